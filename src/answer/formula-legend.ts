/**
 * A formula read with its legend: books write a formula in symbols (E(Ri) = Rf + βi × [E(Rm) - Rf]) and say under
 * 其中 what each symbol stands for (Rf = 无风险利率, E(Rm) - Rf = 市场风险溢价), while a question's options write it in
 * those words (无风险利率 + β × 市场风险溢价). Written back in the legend's symbols, an option is the book's formula or
 * is not.
 */

/** A formula line: its left side (a symbol) and its right side, both as the book writes them. */
export interface Formula {
  lhs: string;
  rhs: string;
}

const HAN = /\p{Script=Han}/u;

/** A symbol, or an expression of symbols: Latin or Greek letters, digits, brackets and operators, no Han. */
const SYMBOLS = /^[(（[]*[A-Za-z\u0370-\u03ff][A-Za-z0-9\u0370-\u03ff()（）[\]\s+\-−×*/÷^.,]*$/u;

/** Markdown emphasis and code marks, and a label before the formula (公式：). */
const MARKS = /[*`]/gu;
const LABEL = /^[^=＝]*?[：:]\s*/u;

/**
 * The legend of a passage: what each symbol stands for, from lines `- Rf = 无风险利率` and clauses `其中，Rf为无风险利率`,
 * as meaning → symbol (a meaning written twice keeps its first symbol).
 */
export function legendOf(text: string): Map<string, string> {
  const legend = new Map<string, string>();
  const add = (symbol: string, meaning: string): void => {
    const s = symbol.trim();
    const m = meaning.trim().replace(/[。；;，,]+$/u, '');
    if (s === '' || m === '' || !SYMBOLS.test(s) || !HAN.test(m) || legend.has(m)) return;
    legend.set(m, s);
  };
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(MARKS, '')
      .replace(/^\s*[-•·]\s*/u, '')
      .trim();
    const eq = /^([^=＝\p{Script=Han}]+?)\s*[=＝]\s*([^=＝]+)$/u.exec(line);
    // The meaning is words (资产i的期望收益率), not another formula.
    if (eq?.[1] && eq[2] && HAN.test(eq[2]) && !/[+×*/÷]/u.test(eq[2])) add(eq[1], eq[2]);
    for (const m of line.matchAll(
      /([A-Za-z\u0370-\u03ff][A-Za-z0-9\u0370-\u03ff()（）]*)\s*(?:为|表示|代表)\s*(\p{Script=Han}[^，,；;。]*)/gu,
    )) {
      if (m[1] && m[2]) add(m[1], m[2]);
    }
  }
  return legend;
}

/** The formula a line states (`**公式：** E(Ri) = Rf + βi × [E(Rm) - Rf]`), or null: a symbol, =, and symbols only. */
export function formulaOf(line: string): Formula | null {
  const text = line.replace(MARKS, '').replace(LABEL, '').trim();
  const parts = text.split(/[=＝]/u);
  if (parts.length !== 2) return null;
  const lhs = (parts[0] ?? '').trim();
  const rhs = (parts[1] ?? '').trim();
  if (!SYMBOLS.test(lhs) || !SYMBOLS.test(rhs) || !/[+\-−×*/÷^]/u.test(rhs)) return null;
  return { lhs, rhs };
}

/**
 * A claim written in words, written back in the legend's symbols (longest meaning first; a meaning that stands for
 * an expression is bracketed, so 市场风险溢价 in β × 市场风险溢价 reads β × (E(Rm) - Rf)). Null unless every word of the
 * claim is a meaning the legend gives.
 */
export function inSymbols(claim: string, legend: ReadonlyMap<string, string>): { text: string; used: string[] } | null {
  let text = claim;
  const used: string[] = [];
  for (const meaning of [...legend.keys()].sort((a, b) => b.length - a.length)) {
    if (!text.includes(meaning)) continue;
    const symbol = legend.get(meaning) ?? '';
    text = text.split(meaning).join(/[+\-−×*/÷]/u.test(symbol) ? `(${symbol})` : symbol);
    used.push(meaning);
  }
  if (used.length === 0 || HAN.test(text)) return null;
  // Named in the order the claim writes them.
  return { text, used: used.sort((a, b) => claim.indexOf(a) - claim.indexOf(b)) };
}

/** The terms of an expression: symbols, operators and brackets (square ones read as round), spaces dropped. */
function termsOf(expression: string): string[] {
  return (
    expression
      .normalize('NFKC')
      .replace(/[[（]/gu, '(')
      .replace(/[\]）]/gu, ')')
      .replace(/[−–]/gu, '-')
      .replace(/[*·]/gu, '×')
      .match(/[A-Za-z\u0370-\u03ff][A-Za-z0-9\u0370-\u03ff]*|\d+(?:\.\d+)?|[()+\-×/÷^]/gu) ?? []
  );
}

/**
 * Whether an expression in symbols is the formula's right side: the same terms in the same order, where a symbol may
 * leave out the subscript the book gives it (β for βi: an option speaks of any asset's beta).
 */
export function sameFormula(expression: string, rhs: string): boolean {
  const a = termsOf(expression);
  const b = termsOf(rhs);
  return a.length === b.length && a.every((t, i) => t === b[i] || (/^[\u0370-\u03ff]$/u.test(t) && b[i] === `${t}i`));
}

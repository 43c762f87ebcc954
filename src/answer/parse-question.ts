import { UserError } from '../errors.js';
import { removeInvisible } from '../text/normalize-text.js';
import type { ParsedQuestion, QuestionKind, QuestionOption, Statement } from './answer-types.js';

/**
 * Turns free text (as typed, pasted or read from a CSV) into a stem, options and a question kind.
 * Options may be marked `A.`, `A、`, `A．`, `A)`, `(A)`, `（A）`, `A:` with full-width letters too,
 * one per line or inline. Combination questions list statements as Ⅰ/Ⅱ/Ⅲ… (or ①②③, or ASCII I/II/III)
 * in the stem; their options name sets of statements.
 */

/** Options accepted by {@link parseQuestion}. */
export interface ParseQuestionOptions {
  /** Options given separately (`--options`, a CSV row); when set, the text is the stem only. */
  options?: Record<string, string> | readonly string[];
  /** A kind known from elsewhere (a CSV `type` column); otherwise inferred. */
  kind?: QuestionKind;
}

const LETTERS = 'ABCDEFGH';
const ROMAN = ['Ⅰ', 'Ⅱ', 'Ⅲ', 'Ⅳ', 'Ⅴ', 'Ⅵ', 'Ⅶ', 'Ⅷ', 'Ⅸ', 'Ⅹ'];
const CIRCLED = ['①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧', '⑨', '⑩'];
const ASCII_ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

/**
 * Words that make the stem ask for the wrong / excluded choice. Deliberately narrow: `不得`, `不能`
 * are content (the textbook lists prohibited acts), not a reversal of the question.
 */
const NEGATION =
  /不正确|不准确|不精确|不确切|不严谨|不妥|不恰当|不合理|不符合|不属于|不被允许|不包括|不包含|不涉及|不适用|不是|并非|不对|错误|有误|除外|不可能|不被?视为|不被?认为|不算|\bnot\b|\bexcept\b|\bincorrect\b|\bfalse\b/i;
const MULTI = /多选|多项选择|不定项|多个选项|选出所有|select all|all that apply/i;
const JUDGE = /判断题|判断[:：]|正确与否|对还是错|是否正确|true or false/i;
const JUDGE_OPTION = /^(正确|错误|对|错|是|否|√|×|✓|✗|true|false|t|f)$/i;

/** Clauses that ask: they name the choice to make (找出, 选出, 下列, 以下, 哪一项 …). */
const ASKING = /找出|选出|选择|下列|以下|如下|哪[一个项些种]|何者|which/i;
/** A clause that continues a description: 但, 但是, 且, 并且, 而且 at its start. */
const DESCRIBING = /^(?:但是?|并且|而且|且)/u;
/** The asking clause says outright that it wants the right choice. */
const ASKS_POSITIVE = /(?<!不)(正确|准确|恰当|符合)的(是|有|选项|说法|表述)/;

/** A stem asking which statement about its subject holds: 下列关于开放式基金的说法，正确的是 / 以下表述错误的是. */
const ASKS_FOR_STATEMENT = /(?:下列|以下|如下|关于).*(?:说法|表述|描述|叙述|论述|陈述)/u;

/**
 * Whether the options are statements of their own (下列关于开放式基金的说法，正确的是: 有固定封闭期, 无固定期限) rather
 * than names or values filling the stem's blank (组织…考试的机构是: 中国证监会, 基金业协会). Each is still read against
 * the stem's subject, but a clause naming another option is not that option standing in this one's place.
 */
export function asksForStatement(stem: string): boolean {
  return ASKS_FOR_STATEMENT.test(foldWidth(stem));
}

/**
 * Whether the stem asks for the wrong or excluded choice. Negation is read from the clauses that ask: the one
 * holding the blank (or the last), and every clause naming the choice (找出, 选出, 下列, 以下 …). So
 * "请从以下选项中找出错误的说法，关于…的描述" asks for the wrong one, while "计价错误偏差达到0.5%时，基金管理人应当（ ）"
 * mentions an error in a condition but asks for the right action. A blank clause that says 正确的是 wins.
 */
export function asksForIncorrect(stem: string): boolean {
  const marked = foldWidth(stem).replace(/\([\s]*\)|_{2,}/g, '\u0000');
  const clauses = marked
    .split(/[,，;；。?？!！:：]/)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
  const ask = clauses.find((c) => c.includes('\u0000')) ?? clauses[clauses.length - 1] ?? marked;
  // 而不是 / 而非 set one thing aside for another (…披露，而不是仅向个别机构…披露的原则是): a description, not a request for
  // the wrong option.
  const unset = (c: string): string => c.replace('\u0000', '').replace(/而不是|而非/gu, '');
  const plainAsk = unset(ask);
  // A clause that goes on describing what is asked for (…货币市场工具，但投资比例不符合…规定的基金是) negates a property of
  // it, not the request, unless it names the choice (但下列不属于…的是).
  const describing = DESCRIBING.test(plainAsk) && !ASKING.test(plainAsk);
  if (NEGATION.test(plainAsk) && !describing) return true;
  if (ASKS_POSITIVE.test(plainAsk)) return false;
  return clauses.some((c) => c !== ask && ASKING.test(c) && NEGATION.test(unset(c)));
}

/** Maps full-width ASCII (Ａ, ．, （, ：) and the ideographic space to their half-width forms, one char for one char. */
export function foldWidth(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xff01 && code <= 0xff5e) out += String.fromCodePoint(code - 0xfee0);
    else if (code === 0x3000) out += ' ';
    else out += ch;
  }
  return out;
}

interface Marker {
  letter: string;
  start: number;
  end: number;
}

/** Finds option markers: `(A)` anywhere, or `A` + delimiter not preceded by a Latin letter or digit. */
function findMarkers(text: string): Marker[] {
  const markers: Marker[] = [];
  const paren = /[(]\s*([A-Ha-h])\s*[)]/g;
  const plain = /(?<![A-Za-z0-9])([A-H])\s*(?:[.、:)]|\s(?=\S))/g;
  for (const m of text.matchAll(paren)) {
    markers.push({ letter: (m[1] ?? '').toUpperCase(), start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(plain)) {
    // `A ` (letter + space) only counts at a line start, where people type `A 基金…`.
    const delimited = /[.、:)]$/.test(m[0].trimEnd());
    if (!delimited && !(m.index === 0 || text[m.index - 1] === '\n')) continue;
    if (markers.some((x) => m.index >= x.start && m.index < x.end)) continue;
    markers.push({ letter: m[1] ?? '', start: m.index, end: m.index + m[0].length });
  }
  return markers.sort((a, b) => a.start - b.start);
}

/** The longest run A, B, C… of markers in text order; ties go to the latest start (options come last). */
function bestChain(markers: Marker[]): Marker[] {
  let best: Marker[] = [];
  markers.forEach((first, i) => {
    if (first.letter !== 'A') return;
    const chain = [first];
    for (let j = i + 1; j < markers.length; j++) {
      const m = markers[j];
      const want = LETTERS[chain.length];
      if (m && m.letter === want && m.start >= (chain.at(-1)?.end ?? 0)) chain.push(m);
    }
    if (chain.length >= best.length) best = chain;
  });
  return best.length >= 2 ? best : [];
}

function cleanOptionText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[;；,，]$/, '')
    .trim();
}

/** Splits `stem A.x B.y` into the stem and lettered options. */
function splitOptions(text: string): { stem: string; options: QuestionOption[] } {
  const folded = foldWidth(text);
  const chain = bestChain(findMarkers(folded));
  if (chain.length === 0) return { stem: text.trim(), options: [] };
  const options: QuestionOption[] = chain.map((m, i) => {
    const next = chain[i + 1];
    // foldWidth maps one UTF-16 unit to one, so positions found in the folded text slice the original.
    return { letter: m.letter, text: cleanOptionText(text.slice(m.end, next ? next.start : undefined)) };
  });
  const stem = text.slice(0, chain[0]?.start ?? 0).trim();
  return { stem, options };
}

interface StatementScheme {
  labels: readonly string[];
  pattern: RegExp;
}

const SCHEMES: StatementScheme[] = [
  { labels: ROMAN, pattern: /([ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩ])\s*[.、:]?/g },
  { labels: CIRCLED, pattern: /([①②③④⑤⑥⑦⑧⑨⑩])\s*[.、:]?/g },
  // ASCII roman numerals need a delimiter and a non-letter before them, or `IV` in English text would match.
  { labels: ASCII_ROMAN, pattern: /(?<![A-Za-z])(VIII|VII|VI|IV|IX|III|II|I|V|X)\s*[.、:]/g },
];

/** Finds statements labelled Ⅰ, Ⅱ… (in label order, at least two) in a stem. */
function splitStatements(stem: string): { stem: string; statements: Statement[] } {
  for (const scheme of SCHEMES) {
    const found: Array<{ label: string; start: number; end: number }> = [];
    for (const m of stem.matchAll(scheme.pattern)) {
      const label = m[1] ?? '';
      if (label !== scheme.labels[found.length]) continue;
      found.push({ label, start: m.index, end: m.index + m[0].length });
    }
    if (found.length < 2) continue;
    const statements = found.map((f, i) => {
      const next = found[i + 1];
      return { label: f.label, text: cleanOptionText(stem.slice(f.end, next ? next.start : undefined)) };
    });
    return { stem: stem.slice(0, found[0]?.start ?? 0).trim(), statements };
  }
  return { stem, statements: [] };
}

/** What an option that speaks of the others says of them: all of them hold (以上都是), or none does (以上都不是). */
export type Covering = 'all' | 'none';

/**
 * `all` for 以上都是 / 全部以上选项 / 这些全部都是 / all of the above, `none` for 以上都不是 / 以上均不正确 / none of the above,
 * null for an option that names something of its own. Only such words, with at least one of all / none (全部, 都, 均,
 * 所有): 全部基金财产 names a thing.
 */
export function coveringOf(option: string): Covering | null {
  const bare = removeInvisible(option).replace(/[\s，,。.、！!]/gu, '');
  const english = /^(all|none)oftheabove$/iu.exec(bare);
  if (english) return english[1]?.toLowerCase() === 'none' ? 'none' : 'all';
  const covering =
    /全部|都|均|所有|皆/u.test(bare) &&
    bare.replace(/以上|上述|这些|前述|选项|各项|说法|表述|全部|所有|都|均|皆|的|是|不|正确|错误|对|错|符合|成立|有/gu, '') === '';
  if (!covering) return null;
  return /不|错误|错/u.test(bare) ? 'none' : 'all';
}

/** The statement labels an option names (`Ⅰ、Ⅲ` → [Ⅰ, Ⅲ]; `①②④符合` → [①, ②, ④]; `以上都是` → all). */
export function statementsInOption(option: string, statements: readonly Statement[]): string[] {
  const labels = statements.map((s) => s.label);
  if (labels.length === 0) return [];
  if (coveringOf(option) === 'all') return [...labels];
  const ascii = ASCII_ROMAN.includes(labels[0] ?? '');
  const found: string[] = [];
  if (ascii) {
    for (const m of foldWidth(option).matchAll(/(?<![A-Za-z])(VIII|VII|VI|IV|IX|III|II|I|V|X)(?![A-Za-z])/g)) {
      const l = m[1] ?? '';
      if (labels.includes(l) && !found.includes(l)) found.push(l);
    }
  } else {
    for (const ch of option) if (labels.includes(ch) && !found.includes(ch)) found.push(ch);
  }
  return found.sort((a, b) => labels.indexOf(a) - labels.indexOf(b));
}

function normaliseGivenOptions(given: Record<string, string> | readonly string[]): QuestionOption[] {
  const entries: Array<[string, string]> = Array.isArray(given)
    ? (given as readonly string[]).map((t, i) => [LETTERS[i] ?? String(i + 1), t])
    : Object.entries(given as Record<string, string>);
  const options: QuestionOption[] = [];
  for (const [key, value] of entries) {
    const letter = removeInvisible(foldWidth(key)).trim().toUpperCase();
    const text = cleanOptionText(removeInvisible(foldWidth(String(value ?? ''))));
    if (!/^[A-H]$/.test(letter)) throw new UserError(`option key "${key}" is not a letter A–H; give options as {"A": "…", "B": "…"}`);
    if (text === '') continue;
    options.push({ letter, text });
  }
  return options.sort((a, b) => a.letter.localeCompare(b.letter));
}

function inferKind(stem: string, options: QuestionOption[], statements: Statement[]): QuestionKind {
  if (statements.length >= 2 && options.some((o) => statementsInOption(o.text, statements).length > 0)) return 'combination';
  if (options.length === 2 && options.every((o) => JUDGE_OPTION.test(o.text))) return 'judge';
  if (options.length === 0) return JUDGE.test(stem) ? 'judge' : 'open';
  if (MULTI.test(stem)) return 'multi';
  return 'single';
}

/**
 * Parses a question. An empty question is a `UserError`; a question without options is an `open`
 * question (answered with cited evidence but no letter), unless it is marked as a 判断题, in which case
 * the options 正确 / 错误 are supplied.
 */
export function parseQuestion(text: string, options: ParseQuestionOptions = {}): ParsedQuestion {
  // Invisible characters (a NUL or zero-width space pasted with an option) would change the words the question
  // searches and scores with; books are read without them, so questions are too.
  const raw = removeInvisible(text);
  if (raw.trim() === '' && (options.options === undefined || Object.keys(options.options).length === 0)) {
    throw new UserError(
      'empty question: type a question with options A–D, e.g. ask "下列属于货币市场工具的是 A.股票 B.银行定期存单 C.公司债 D.可转债"',
    );
  }
  let stem: string;
  let opts: QuestionOption[];
  if (options.options !== undefined) {
    stem = raw.trim();
    opts = normaliseGivenOptions(options.options);
  } else {
    ({ stem, options: opts } = splitOptions(raw));
  }
  const { stem: bareStem, statements } = splitStatements(stem);
  let kind = options.kind ?? inferKind(stem, opts, statements);
  if (kind === 'combination' && statements.length < 2) kind = 'single';
  if (kind === 'judge' && opts.length === 0) {
    opts = [
      { letter: 'A', text: '正确' },
      { letter: 'B', text: '错误' },
    ];
  }
  if (kind !== 'open' && kind !== 'judge' && opts.length === 0) kind = 'open';
  const finalStem = (kind === 'combination' ? bareStem : stem).replace(/\s+/g, ' ').trim();
  const negated = kind !== 'judge' && asksForIncorrect(kind === 'combination' ? bareStem : stem);
  if (finalStem === '' && statements.length === 0) {
    throw new UserError('empty question: only options were given; type the question text before the options');
  }
  return { raw, stem: finalStem, options: opts, kind, negated, statements: kind === 'combination' ? statements : [] };
}

/** Builds a question from separate parts (a CSV row): stem plus `{A, B, C, D…}` (empty options are dropped). */
export function questionFromParts(stem: string, options: Record<string, string>, kind?: QuestionKind): ParsedQuestion {
  return parseQuestion(stem, kind ? { options, kind } : { options });
}

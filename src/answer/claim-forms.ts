import { memoizeShortText } from '../bounded-cache.js';
import { normalizeText } from '../text/analyzer.js';

/**
 * The forms a claim is compared in: its values (a number with its unit, in one normal form), its exact written form
 * (symbols kept, for formulas) and the names it goes by. Shared by the clause reader (`option-verdicts.ts`).
 */

/** The blank a fill-in stem asks to fill: （ ） or ( ) with any spaces (an ideographic one too) or underscores, ＿＿, __. */
export const BLANK = /[（(][\s\u3000_＿]*[)）]|_{2,}|＿{2,}/u;

/** The clause of a stem that holds its blank (the whole stem when none does): 公司型基金的营运依据是（ ）. */
export function askingClause(stem: string): string {
  return stem.split(/[，,。；;]/u).find((clause) => BLANK.test(clause)) ?? stem;
}

/** A token that is only a unit (天 in 30天). */
export const UNIT_WORD = /^(个)?(月|日|天|年|周|%|人|元|万元|亿元|份|万份|亿份|倍|学时|小时|分钟|工作日|交易日|个百分点)$/u;

export const FORMULA = /[=＝+＋×*/÷^]/u;

/**
 * A number with its unit, in one normal form: `30日` for 三十日 / 30天, `t+1`, `80%`, `12月` for 12个月, `36.5亿元` for
 * 三十六亿五千万元 (which the analyzer reads as 36亿5000万元), `59700元` for 五万九千七百元 and `3000万元` for 3千万元. An amount keeps the 万 or 亿 it
 * is written in: 12亿元 and a share's 1.2元 are not compared as one unit.
 */
export function valuesOf(text: string): string[] {
  const out: string[] = [];
  // Digits with a Chinese multiplier (3千万元, 1亿5千万元) are multiplied first: the analyzer reads 千万 as a numeral
  // run of its own (1000万), which would make 3千万 into 31000万.
  const scaled = text.replace(/(\d+(?:\.\d+)?)\s*([十百千])/gu, (_, n: string, unit: string) =>
    decimal(Number(n) * (unit === '千' ? 1000 : unit === '百' ? 100 : 10)),
  );
  const normal = normalizeText(scaled);
  const re =
    /(?<![a-z])t(?=日)|t\s*\+\s*(\d+)|(\d+(?:\.\d+)?)\s*亿\s*(\d+(?:\.\d+)?)\s*万\s*(元|份)|(\d+(?:\.\d+)?)\s*万\s*(\d+(?:\.\d+)?)\s*(元|份)|(\d+(?:\.\d+)?)\s*(%|个工作日|工作日|个月|月|日|天|年|周|个交易日|交易日|人|亿元|万元|亿份|万份|元|份|倍|学时|小时|分钟|家|名|次|只|条|项|个百分点|bp)/gu;
  for (const m of normal.matchAll(re)) {
    if (m[0] === 't') out.push('t+0');
    else if (m[1] !== undefined) out.push(`t+${m[1]}`);
    else if (m[4] !== undefined) out.push(`${decimal(Number(m[2]) + Number(m[3]) / 1e4)}亿${m[4]}`);
    // 五万九千七百元 (read 5万9700元) is 59700元, as a question writes it.
    else if (m[7] !== undefined) out.push(`${decimal(Number(m[5]) * 1e4 + Number(m[6]))}${m[7]}`);
    else out.push(`${Number(m[8])}${unitOf(m[9] ?? '')}`);
  }
  return out;
}

/** A computed amount as a decimal (0.07万 is 700, not 700.0000000000001). */
function decimal(n: number): string {
  return String(Number(n.toPrecision(12)));
}

function unitOf(unit: string): string {
  if (unit === '天') return '日';
  if (unit === '个月') return '月';
  if (unit === '个工作日') return '工作日';
  if (unit === '个交易日') return '交易日';
  return unit;
}

/** The unit of a normal-form value (`t+` for T+n). */
export function unitOfValue(v: string): string {
  return v.startsWith('t+') ? 't+' : v.replace(/^[\d.]+/u, '');
}

/** Text compared character for character: the analyzer's normal form without whitespace, symbols kept. */
export function exactForm(text: string): string {
  return exactForms(text);
}

function exactFormOf(text: string): string {
  return normalizeText(text)
    .toLowerCase()
    .replace(/[\s*`]+/gu, '')
    .replace(/[（]/gu, '(')
    .replace(/[）]/gu, ')');
}

/**
 * Clauses already in exact form: each option reads every clause of every passage read for the question, so one clause
 * is asked for four times or more. Only short strings are kept, as the analyzer keeps its normal forms.
 */
const exactForms = memoizeShortText(exactFormOf, 400, 4096);

/** English words as books write them beside a term: 投资条款清单（Term Sheet）, 首次公开发行（Initial Public Offering）. */
const ENGLISH_PHRASE = /[A-Za-z]+(?:[ -][A-Za-z]+)+/gu;

/**
 * The English words an acronym option stands for, as the passages write them: TS for Term Sheet, MOU for Memorandum of
 * Understanding (the initials of every word, or of the capitalised ones). Empty for any other option.
 */
export function spelledOut(claim: string, texts: readonly string[]): string[] {
  const acronym = claim.trim();
  if (!/^[A-Z]{2,8}$/u.test(acronym)) return [];
  const found = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(ENGLISH_PHRASE)) {
      const words = m[0].split(/[ -]/u);
      const every = words.map((w) => w[0]?.toUpperCase() ?? '').join('');
      const capitals = words
        .filter((w) => /^[A-Z]/u.test(w))
        .map((w) => w[0] ?? '')
        .join('');
      if (every === acronym || capitals === acronym) found.add(m[0]);
    }
  }
  return [...found];
}

/** A claim and the names it goes by: `有限合伙人（LP）` is also `有限合伙人` and `LP`. */
export function aliasesOf(claim: string): string[] {
  const out = [claim];
  // A formula's brackets group terms; only a name's brackets hold another name.
  const m = FORMULA.test(claim) ? null : /^(.+?)[（(]([^（）()]+)[）)]$/u.exec(claim.trim());
  if (m?.[1] && m[2]) out.push(m[1], m[2]);
  return out.map(exactForm).filter((a) => a.length >= 2);
}

/** An amount of 元 or 份 in units of one, whatever its 万 / 亿 (八万份 is 80000份); null for any other value. */
export function amountSize(value: string): { size: number; unit: string } | null {
  const m = /^(\d+(?:\.\d+)?)(万|亿)?(元|份)$/u.exec(value);
  if (!m?.[1] || !m[3]) return null;
  return { size: Number(m[1]) * (m[2] === '亿' ? 1e8 : m[2] === '万' ? 1e4 : 1), unit: m[3] };
}

/**
 * Whether two normal-form values are one amount written at different scales (8万份 and 80000份). Only equality
 * crosses scales: a clause's 十二亿元 says nothing against an option's 1.2元, which may be another quantity (a price).
 */
export function sameAmount(a: string, b: string): boolean {
  const x = amountSize(a);
  const y = amountSize(b);
  return x !== null && y !== null && x.unit === y.unit && Math.abs(x.size - y.size) < 1e-6 * Math.max(1, x.size);
}

/** The value as the clause writes it (三十日 for 30日, 八万份 for 80000份), for the reason. */
export function rawValue(clause: string, value: string): string {
  const m = value.startsWith('t+') ? new RegExp(`[tT]\\s*\\+\\s*${value.slice(2)}`, 'u').exec(clause) : null;
  if (m) return m[0];
  // The number and its unit as the book writes them (三十日 for 30日, 百分之零点二 for 0.2%), not the clause around it.
  for (const run of clause.matchAll(RAW_NUMBER)) if (valuesOf(run[0]).some((v) => v === value || sameAmount(v, value))) return run[0];
  return value;
}

/** A number as books write it, in digits or Chinese numerals, with what may follow it as a unit. */
const RAW_NUMBER =
  /(?:百分之)?[零〇一二两三四五六七八九十百千万亿点\d.]+\s*(?:%|个工作日|工作日|个月|月|日|天|年|周|个交易日|交易日|人|亿元|万元|亿份|万份|元|份|倍|学时|小时|分钟|家|名|次|只|条|项|个百分点|bp)?/gu;

import { amountSize, rawValue, unitOfValue, valuesOf } from './claim-forms.js';

/**
 * Tiered schedules: a rule stated band by band (申购费按申购金额M分档——M＜100万元的，申购费率为1.50%；100万元≤M＜500万元的，
 * 申购费率为1.00%；…, 持有期限在1年以上2年以下的，赎回费率为0.25%). A band applies to the question only when the amount or
 * period the question states lies in it: the other bands state the rule for other cases and say nothing of this one.
 * Generic to how a schedule is written, not to any one table.
 */

/** What a band bounds: an amount of money (in 元) or a period of time (in days). */
type Dimension = 'amount' | 'period';

/** A value in its dimension's base unit. */
export interface Quantity {
  dimension: Dimension;
  size: number;
}

/** A quantity a question states as its case, with the words that say what it is (某投资者申购某股票基金A类份额 for 300万元). */
export interface CaseQuantity extends Quantity {
  context: string;
}

/** One end of a band. */
interface Bound {
  size: number;
  inclusive: boolean;
}

/** A band of a schedule: the condition as the book writes it, and its ends in one dimension. */
export interface Tier {
  /** The condition as written (`100万元≤M＜500万元`), to mark in the quote. */
  text: string;
  /** What it bands as the condition names it: a word (申购金额 in 申购金额不满100万元) or a letter (M); empty when unnamed. */
  of: string;
  dimension: Dimension;
  from?: Bound;
  to?: Bound;
}

// A month as a twelfth of a year, so that 12个月 and 1年 are one period; working and trading days are not calendar days.
const PERIOD: Readonly<Record<string, number>> = { 日: 1, 周: 7, 月: 365 / 12, 年: 365 };

/**
 * A normal-form value (`300万元`, `18月`, from `valuesOf`) as a quantity, or null when it is neither money nor a period.
 * A year of the calendar (2019年, 1997年) is a date, not a period.
 */
export function quantityOf(value: string): Quantity | null {
  const amount = amountSize(value);
  if (amount) return amount.unit === '元' ? { dimension: 'amount', size: amount.size } : null;
  const m = /^(\d+(?:\.\d+)?)(.+)$/u.exec(value);
  if (!m?.[1] || !m[2]) return null;
  const period = PERIOD[m[2]];
  if (period === undefined || (m[2] === '年' && /^\d{4}$/u.test(m[1]))) return null;
  return { dimension: 'period', size: Number(m[1]) * period };
}

/** A number as a schedule writes it (digits or Chinese numerals) with a money or time unit. */
const NUMBER = String.raw`[\d.零〇一二两三四五六七八九十百千万亿]+\s*(?:亿元|万元|元|个月|月|日|天|年|周)`;
/** The quantity a band is on: a letter (M, Y) or a word for it (持有期限, 申购金额). */
const VARIABLE = String.raw`(?:[A-Za-zＡ-Ｚａ-ｚ]|\p{Script=Han}{2,6})`;
const LESS = String.raw`(?:<|＜|≤|≦|<=)`;
const MORE = String.raw`(?:>|＞|≥|≧|>=)`;
/** `100万元≤M＜500万元`, `M＜100万元`, `M≥500万元`, `Y<7日`. */
const SYMBOLIC = new RegExp(String.raw`(?:(${NUMBER})\s*(${LESS})\s*)?(${VARIABLE})\s*(?:(${LESS})|(${MORE}))\s*(${NUMBER})`, 'u');
/** What a word before a number makes of it: 不满7日 is below 7日, not 7日 itself; 满1年 is 1年 and above. */
const BEFORE: Readonly<Record<string, ['from' | 'to', boolean]>> = {
  不满: ['to', false],
  不足: ['to', false],
  未满: ['to', false],
  低于: ['to', false],
  少于: ['to', false],
  小于: ['to', false],
  不超过: ['to', true],
  不高于: ['to', true],
  不多于: ['to', true],
  超过: ['from', false],
  高于: ['from', false],
  多于: ['from', false],
  大于: ['from', false],
  不低于: ['from', true],
  不少于: ['from', true],
  满: ['from', true],
};

/** A bound in words: 不满7日, 1年以上, 500万元（含）以上, 2年以下, 超过1年 (longer words first: 不低于 is not 低于). */
const WORDED = new RegExp(
  String.raw`(${Object.keys(BEFORE)
    .sort((x, y) => y.length - x.length)
    .join('|')})?(${NUMBER})\s*([（(]不?含[）)])?\s*(以上|以下|以内|及以上|及以下)?`,
  'gu',
);

function sizeOf(raw: string, dimension?: Dimension): Quantity | null {
  const value = valuesOf(raw)[0];
  const q = value === undefined ? null : quantityOf(value);
  return q && (dimension === undefined || q.dimension === dimension) ? q : null;
}

function strict(op: string): boolean {
  return !/[≤≦≥≧=]/u.test(op);
}

/**
 * The band a sentence states a rule for, or null when it states none: the condition ends in 的 at the end of its
 * first clause (M＜100万元的，…; 持有期限在1年以上2年以下的，…), after any lead (申购费按申购金额M分档——).
 */
export function tierOf(sentence: string): Tier | null {
  const m = /^([^，,；;。]*?)的[，,]/u.exec(sentence.trim());
  // A table's row states its band in symbols without 的 (赎回费 1年≤Y＜2年 0.25%), on a letter: a word with a bound
  // and no 的 (净资产≥1000万元) is a requirement, not one band of a schedule.
  if (!m?.[1]) {
    const row = [...sentence].length <= 40 ? symbolicTier(sentence) : null;
    return row && /^[A-Za-zＡ-Ｚａ-ｚ]$/u.test(row.of) ? row : null;
  }
  const condition =
    m[1]
      .split(/——|—|：|:/u)
      .at(-1)
      ?.trim() ?? '';
  if (condition === '' || [...condition].length > 30) return null;
  return symbolicTier(condition) ?? wordedTier(condition);
}

/** A band written with a variable and comparison signs (100万元≤M＜500万元), or null. */
function symbolicTier(condition: string): Tier | null {
  const symbolic = SYMBOLIC.exec(condition);
  if (!symbolic) return null;
  const [whole, lowRaw, lowOp, variable, lessOp, moreOp, highRaw] = symbolic;
  const end = sizeOf(highRaw ?? '');
  if (!end) return null;
  const low = lowRaw !== undefined ? sizeOf(lowRaw, end.dimension) : null;
  if (lowRaw !== undefined && !low) return null;
  const tier: Tier = { text: whole, of: variable ?? '', dimension: end.dimension };
  if (lessOp !== undefined) tier.to = { size: end.size, inclusive: !strict(lessOp) };
  if (moreOp !== undefined) tier.from = { size: end.size, inclusive: !strict(moreOp) };
  if (low && lowOp !== undefined) tier.from = { size: low.size, inclusive: !strict(lowOp) };
  return tier;
}

/** A band written in words (持有期限在1年以上2年以下, 不满7日), or null. */
function wordedTier(condition: string): Tier | null {
  // In words: each bound is a number with the word that makes it one (以上 / 以下 after it, 不满 / 超过 before it);
  // 以上 and 以下 include the number itself unless written 不含, as the law reads them.
  const tier: Partial<Tier> = {};
  let first = -1;
  let last = -1;
  for (const b of condition.matchAll(WORDED)) {
    const [whole, before, raw, included, after] = b;
    if (!before && !after) continue;
    const q = sizeOf(raw ?? '', tier.dimension);
    if (!q) return null;
    tier.dimension = q.dimension;
    const excluded = included !== undefined && included.includes('不');
    const [bound, inclusive]: ['from' | 'to', boolean] = after
      ? [after.endsWith('以上') ? 'from' : 'to', !excluded]
      : (BEFORE[before ?? ''] ?? ['from', true]);
    tier[bound] = { size: q.size, inclusive };
    if (first < 0) first = b.index;
    last = b.index + whole.length;
  }
  if (tier.dimension === undefined || (!tier.from && !tier.to)) return null;
  // What it bands is named before its first bound (申购金额在100万元以上…, 持有期限不满7日).
  const of = /\p{Script=Han}{2,8}$/u.exec(condition.slice(0, first).replace(/[在为达]$/u, ''))?.[0] ?? '';
  return { ...tier, of, dimension: tier.dimension, text: condition.slice(first, last) };
}

/** Whether a quantity lies in the band (in the band's dimension; another dimension is not bounded by it). */
export function withinTier(tier: Tier, q: Quantity): boolean {
  if (q.dimension !== tier.dimension) return true;
  const above = !tier.from || (tier.from.inclusive ? q.size >= tier.from.size - 1e-9 : q.size > tier.from.size + 1e-9);
  const below = !tier.to || (tier.to.inclusive ? q.size <= tier.to.size + 1e-9 : q.size < tier.to.size - 1e-9);
  return above && below;
}

/**
 * Words that make a number a bound, a relative date or no number at all, not a case: 少于七日, 超过上一日, 前一日, 每年,
 * 在哪一年, 某一天.
 */
const NOT_A_CASE = /(?:不满|不足|未满|低于|少于|小于|超过|高于|多于|大于|不低于|不少于|不超过|满|上|前|次|后|当|每|近|哪|某|这|那|同|第)$/u;

/**
 * The one amount and the one period a question states as its case (申购…300万元, 持有…18个月后赎回), each with the words
 * of its clause before it. A dimension stated twice or not at all is left out, since which of its values a band would
 * bound is not known; so is a number the question states as a bound or a relative date (少于七日, 前一日).
 */
export function questionQuantities(stem: string): CaseQuantity[] {
  const all: CaseQuantity[] = [];
  for (const clause of stem.split(/[，,。；;：:]/u)) {
    for (const v of valuesOf(clause)) {
      const q = quantityOf(v);
      const raw = rawValue(clause, v);
      const at = clause.indexOf(raw);
      if (!q || at < 0) continue;
      const before = clause.slice(0, at);
      if (NOT_A_CASE.test(before) || /^\s*(?:以上|以下|以内|期)/u.test(clause.slice(at + raw.length))) continue;
      all.push({ ...q, context: before });
    }
  }
  return (['amount', 'period'] as const).flatMap((d) => {
    const of = all.filter((q) => q.dimension === d);
    return of.length === 1 ? of : [];
  });
}

/** A band as it bears on a question: the band, and whether the question's own amount or period lies in it. */
export interface BandReading {
  tier: Tier;
  holds: boolean;
  /** The schedule's lead (赎回费按持有期限Y分档——) when the band is not its first, to quote before it; else null. */
  lead: string | null;
}

/**
 * How a sentence's band bears on the question: null when it states no band, or a band of something the question does
 * not give (its name, 申购金额 or 持有期限, shares no word with the words before the question's quantity: 资产净值为
 * 36.5亿元 is no purchase). A letter (M) is named by the schedule's lead (申购费按申购金额M分档——).
 */
export function bandReading(sentence: string, passage: string, quantities: readonly CaseQuantity[]): BandReading | null {
  if (quantities.length === 0) return null;
  const tier = tierOf(sentence);
  if (!tier) return null;
  const lead = scheduleLead(passage, sentence, tier);
  let name = tier.of;
  if (/^[A-Za-zＡ-Ｚａ-ｚ]$/u.test(name)) {
    // The words just before the letter, after the verb that introduces them (按申购金额M → 申购金额).
    const before = new RegExp(String.raw`(\p{Script=Han}{2,8})\s*${name}`, 'u').exec(lead ?? sentence)?.[1] ?? '';
    name = before.replace(/^.*[按依以据照]/u, '');
  }
  const pairs = [...name].slice(0, -1).map((ch, i) => ch + (name[i + 1] ?? ''));
  const tied = quantities.filter((q) => q.dimension === tier.dimension && pairs.some((p) => q.context.includes(p)));
  if (tied.length === 0) return null;
  return { tier, holds: tied.every((q) => withinTier(tier, q)), lead };
}

/**
 * Whether a sentence works another case than the question's: it states an amount (or period) where the question
 * states one, and never the question's own (an example of 101500元 for a question on 300万元). What such a sentence
 * computes, the question's case need not share.
 */
export function otherCase(sentence: string, quantities: readonly Quantity[]): boolean {
  if (quantities.length === 0) return false;
  const values = valuesOf(sentence);
  const stated = values.flatMap((v) => quantityOf(v) ?? []);
  const relevant = stated.filter((s) => quantities.some((q) => q.dimension === s.dimension));
  if (relevant.some((s) => quantities.some((q) => q.dimension === s.dimension && Math.abs(q.size - s.size) < 1e-6))) return false;
  // A period in working or trading days is no period of calendar days, so never the stem's own (十五个工作日 for a stem's
  // 两个月): it is another period, though it has no length in days to compare.
  const otherDays = values.some((v) => BUSINESS_DAYS.test(v)) && quantities.some((q) => q.dimension === 'period');
  return relevant.length > 0 || otherDays;
}

/** A normal-form period in working or trading days (15工作日, 3个交易日 → 3交易日). */
const BUSINESS_DAYS = /^\d+(?:\.\d+)?(?:个)?(?:工作日|交易日)$/u;

/** The values a text states in its conditions: the clauses ending in 时 (…偏差达到基金份额净值的0.5%时). */
function conditionValues(text: string): string[] {
  return text
    .split(/[，,；;。：:]/u)
    .filter((clause) => /时\s*$/u.test(clause))
    .flatMap((clause) => valuesOf(clause));
}

/**
 * Whether a sentence states a rule for another threshold than the stem's: both state a condition (…时) with a value in
 * one unit, and the sentence never the stem's (达到…百分之零点二五时，应当通报… for a stem asking what is due when the
 * error reaches 0.5%). What the rule requires of that case, the stem's case need not.
 */
export function otherThreshold(sentence: string, stem: string): boolean {
  const asked = conditionValues(stem);
  if (asked.length === 0) return false;
  const stated = conditionValues(sentence);
  return asked.some((v) => {
    const unit = unitOfValue(v);
    const same = stated.filter((s) => unitOfValue(s) === unit);
    return same.length > 0 && !same.includes(v);
  });
}

/**
 * What a band's schedule says it bands, as the passage writes it before its first band (赎回费按持有期限Y分档——), for
 * a band that is not the first: quoted before it, so the reader sees what Y is. Null for the first band, which holds
 * it, or when the passage writes none.
 */
function scheduleLead(passage: string, sentence: string, tier: Tier): string | null {
  const at = passage.indexOf(sentence);
  if (at <= 0) return null;
  const sentences = passage
    .slice(0, at)
    .split(/(?<=[。；;\n])/u)
    .filter((s) => s.trim() !== '');
  // Back over the bands of the same quantity to the schedule's first.
  let first: { sentence: string; band: Tier } | null = null;
  for (let i = sentences.length - 1; i >= 0; i--) {
    const s = sentences[i] ?? '';
    const band = tierOf(s);
    if (!band || band.dimension !== tier.dimension) break;
    first = { sentence: s, band };
  }
  if (first === null) return null;
  const lead = /^(.*(?:——|：|:))/u.exec(first.sentence.slice(0, first.sentence.indexOf(first.band.text)))?.[1];
  return lead && lead.trim() !== '' ? lead.trimStart() : null;
}

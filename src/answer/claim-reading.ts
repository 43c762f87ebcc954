/**
 * What a claim is read for (`ClaimReading`: its forms, values and words, and the question words a clause must hold),
 * and how much of it, or of the question, a text holds: the vocabulary `option-verdicts.ts` and the list readings
 * (`list-reading.ts`) share.
 */
import type { Analyzer } from '../text/analyzer.js';
import { normalizeText } from '../text/analyzer.js';
import type { Chunk } from '../types.js';
import { FORMULA } from './claim-forms.js';
import type { CorpusStats } from './corpus-stats.js';
import type { TableRow } from './table-rows.js';
import type { CaseQuantity } from './tier-ranges.js';

/**
 * Words that frame a question rather than name its subject (下列关于…的说法，正确的是): a clause need not hold them.
 * Generic to exam Chinese, not to any one book.
 */
export const FRAME = new Set([
  '下列',
  '以下',
  '关于',
  '说法',
  '表述',
  '描述',
  '叙述',
  '正确',
  '错误',
  '不正确',
  '属于',
  '不属于',
  '包括',
  '不包括',
  '符合',
  '不符合',
  '哪些',
  '哪个',
  '哪项',
  '选项',
  '的是',
  '是',
  '的',
  '中',
  '有',
  '为',
  // The form the answer is asked in (当期收益率的计算公式是), not what it is about.
  '公式',
  '计算公式',
]);

/**
 * Phrases a stem asks with, not what it asks about: the 内容 of 以下哪项内容 and the part of …的一部分 / …的组成部分 name
 * no thing a passage would state. Left in, they weigh in a clause's coverage of the question as much as its subject
 * does, and the rarest of them becomes the word every clause must hold.
 */
const ASKING_PHRASES = /(?<=哪一?项|哪些|下列|以下)内容|的(?:一|组成)部分/gu;

/** A stem without the phrases it asks with ({@link ASKING_PHRASES}), for the words its topic is made of. */
export function withoutAskingPhrases(stem: string): string {
  return stem.replace(ASKING_PHRASES, ' ');
}

/**
 * The share of a statement's words a clause must hold to state it (or one of its clauses): most of them, so a clause
 * that shares the statement's subject but says something else of it does not.
 */
export const STATED_SHARE = 0.75;

/** What a claim is read for: its forms, values and words, and the question words a clause must hold. */
export interface ClaimReading {
  text: string;
  aliases: readonly string[];
  /** The other options' forms (alternatives a clause may state in its place); empty for multi-select. */
  others: readonly (readonly string[])[];
  /** The other options' texts, parallel to `others`, to name them in a reason. */
  otherTexts: readonly string[];
  /**
   * One other option named where the question's words are stands in this one's place. Not for a negated stem, where
   * the others are all right: there only a passage that lists the others without this one rules it out.
   */
  placeTaken: boolean;
  /**
   * The options are statements of their own (下列关于…的说法): a clause naming other options neither stands in this
   * one's place nor, listing them without it, rules it out.
   */
  statementChoice: boolean;
  values: readonly string[];
  /**
   * The units of its values and of the other options' (工作日 and 月 for 15个工作日 / 1个月 / 2个月 / 3个月): a clause
   * stating a value in any of them answers the question's number, so 两个月 rules out 15个工作日.
   */
  valueUnits: ReadonlySet<string>;
  /** The claim's own words (not the stem's, not its values). */
  words: readonly string[];
  /**
   * The clauses of a claim written with commas (由基金管理人计算，由基金托管人复核), each with its own words, the stem's
   * included: here the stem's words are the acts, and who does which is what the claim says. Empty for one clause.
   */
  parts: readonly ClaimPart[];
  /**
   * Its words that no other option has (上市 in 根据企业是否上市调整估值 against 根据企业未来业绩调整估值): a clause that
   * holds only the words the options share does not single this one out. Empty for multi-select and statements.
   */
  distinct: readonly string[];
  /**
   * Words a clause must hold besides `words` to name the claim by its words: those every option holds (认购 of 认购数量,
   * 认购份额 and 认购金额, where the options are alternatives), so 基金份额 does not name 认购份额; and those the stem holds
   * only inside a longer word of its own (管理 of 基金管理人), so 投资人 does not name 投资管理.
   */
  requiredWords: readonly string[];
  /** Values the stem itself states: a clause repeating them states no other value. */
  stemValues: ReadonlySet<string>;
  /** The amount and period the stem gives as its case (申购…300万元): a band of a schedule stated for others says nothing of it. */
  quantities: readonly CaseQuantity[];
  /** The stem without its asking clause: the case it states (某投资者持有该基金18个月后赎回), which a band holding its quantity states too. */
  stemCase: string;
  /** The documents the stem names by title (《证券投资基金管理暂行办法》), in exact form without the brackets. */
  titles: readonly string[];
  topic: Topic;
  /** The table rows written out in the passages read: a row's value is compared with the others' ({@link readRow}). */
  rows: readonly TableRow[];
  /** Statement-like claim: most of its words must stand in one clause. */
  statement: boolean;
  /** The stem, for words whose opposite a clause may state (最高 against 最低). */
  stem: string;
  /** The stem's clause with the blank, in the analyzer's normal form: what it forbids or allows ({@link deonticAgainst}). */
  asking: string;
  /** The stem is read as 选错误的一项: its claims are the options read without the stem's negation. */
  negatedStem: boolean;
  /**
   * The option is written in the stem itself (复核、审查基金管理人计算的… with option 基金管理人): a clause holds it
   * because it holds the stem, which says nothing of the option.
   */
  inStem: boolean;
}

/** The question's own words (idf-weighted) and its most specific one. */
export interface Topic {
  /**
   * The words, each once, and their idf weights at the same index: two arrays, since the coverage sums below loop over
   * them for every clause of every passage, and a loop over a Map's entries makes an array per word until V8 optimizes it.
   */
  words: readonly string[];
  idfs: readonly number[];
  /** The sum of `idfs`, in their order. */
  total: number;
  /** The highest-idf word: a clause that speaks of the question names it. */
  key: string | null;
}

/**
 * The analyzer's pieces of a long word, without those that straddle two others (募股 in 私募|股权 of 私募股权投资基金):
 * such a piece is a dictionary word the text does not contain as a word, and being rare it would weigh most.
 */
export function wholePieces(tokens: readonly string[], text: string): string[] {
  const normal = normalizeText(text);
  const spans = tokens.map((t) => ({ t, from: normal.indexOf(t), to: normal.indexOf(t) + t.length }));
  const crosses = (a: (typeof spans)[number], b: (typeof spans)[number]): boolean =>
    a.from >= 0 && b.from >= 0 && ((a.from < b.from && b.from < a.to && a.to < b.to) || (b.from < a.from && a.from < b.to && b.to < a.to));
  let kept = spans;
  for (;;) {
    const counts = kept.map((a) => kept.filter((b) => crosses(a, b)).length);
    const most = Math.max(0, ...counts);
    if (most < 2) return kept.map((s) => s.t);
    kept = kept.filter((_, i) => counts[i] !== most);
  }
}

/** The question's own words in `tokens`, weighted by idf, and its key word (see `Topic`). */
export function topicOf(tokens: readonly string[], stats: CorpusStats, text: string): Topic {
  // Words the books never use cannot be looked for in them (and would be the rarest, so the key, of every question).
  const words = [...new Set(wholePieces(tokens, text).filter((t) => stats.df(t) > 0))];
  const idfs = words.map((t) => stats.idf(t));
  const total = idfs.reduce((x, y) => x + y, 0);
  // The key is a word that holds no other of the question's words: a compound (私募股权投资基金) is named by its parts,
  // and a book that writes 股权投资基金 still speaks of it.
  let key: string | null = null;
  let keyIdf = 0;
  words.forEach((t, i) => {
    if (words.some((o) => o !== t && t.includes(o))) return;
    const w = idfs[i] as number;
    if (key === null || w > keyIdf) {
      key = t;
      keyIdf = w;
    }
  });
  return { words, idfs, total, key };
}

/** Idf-weighted share of the topic's words found in `text`. */
export function coverageOf(text: string, topic: Topic): number {
  if (topic.total <= 0) return 1;
  const normal = normalizeText(text);
  let s = 0;
  const { words, idfs } = topic;
  for (let i = 0; i < words.length; i++) if (normal.includes(words[i] as string)) s += idfs[i] as number;
  return s / topic.total;
}

/** One clause of a claim written as several (由基金管理人计算，由基金托管人复核): its text and the claim's words in it. */
export interface ClaimPart {
  text: string;
  words: readonly string[];
}

/** A text's words as a claim is read for: the analyzer's tokens without numbers and the question's frame words. */
export function ownWords(text: string, analyzer: Analyzer): string[] {
  return [...new Set(analyzer.tokens(text))].filter((t) => !/^[\d.%]+$/u.test(t) && !FRAME.has(t));
}

/**
 * The tokens that are not pieces of another token: the analyzer gives a word with its pieces (基金托管人 → 基金, 托管,
 * 托管人), and only 基金托管人 is a word of the text.
 */
export function wholeWords(tokens: readonly string[]): string[] {
  return tokens.filter((t) => !tokens.some((other) => other !== t && other.includes(t)));
}

/** The clauses of a claim written with commas, each with its words; none for a one-clause claim. */
export function claimParts(text: string, analyzer: Analyzer): ClaimPart[] {
  const parts = text
    .split(/[，,；;]/u)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      // Whole words only: a clause naming 基金托管人 would otherwise hold five of the six words of 由基金托管人计算
      // without 计算.
      return { text: part, words: wholeWords(ownWords(part, analyzer)) };
    });
  return parts.length >= 2 && parts.every((p) => p.words.length > 0) ? parts : [];
}

/** Whether a text, in its exact form, names the claim by one of its names. */
export function namesClaim(form: string, c: ClaimReading): boolean {
  return c.aliases.some((a) => form.includes(a));
}

/**
 * Whether a text states a name by its own words, not its written form (IPO退出 in 首次公开发行(IPO), 管理费收入 in
 * 管理人、托管人的管理费、托管费收入): every word of two characters or more the claim has of its own, the words it must
 * hold, and a word setting it apart from the other options where it has one. Never for a formula, which is its form.
 */
export function holdsOwnWords(text: string, c: ClaimReading): boolean {
  if (FORMULA.test(c.text)) return false;
  const words = c.words.filter((w) => [...w].length >= 2);
  return (
    words.length > 0 &&
    words.every((w) => holds(text, w)) &&
    c.requiredWords.every((w) => holds(text, w)) &&
    (c.distinct.length === 0 || c.distinct.some((w) => holds(text, w)))
  );
}

/**
 * The other options a text, in its exact form, names, in option order; `where` can refuse a name by where it stands
 * (one named only to be set aside).
 */
export function othersNamed(form: string, c: ClaimReading, where: (alias: string) => boolean = () => true): string[] {
  return c.otherTexts.filter((_, j) => (c.others[j] ?? []).some((a) => form.includes(a) && where(a)));
}

/** How a text, in its exact form, writes the given other options: for each, the longest of its names found there. */
export function namedForms(form: string, c: ClaimReading, texts: readonly string[]): string[] {
  return c.otherTexts.flatMap((text, j) => {
    if (!texts.includes(text)) return [];
    const found = (c.others[j] ?? []).filter((a) => form.includes(a)).sort((a, b) => b.length - a.length);
    return found.length > 0 ? [found[0]!] : [];
  });
}

/** Whether a text, in its normal form, holds the token (null: nothing asked). */
export function holds(text: string, token: string | null): boolean {
  return token === null || normalizeText(text).includes(token);
}

/**
 * What a passage is about besides its own words: its book's title, the outermost heading (a list of 风险类型 in
 * 私募股权投资基金基础知识 speaks of 私募股权投资基金 without naming it), then its heading path.
 */
export function headingsOf(chunk: Chunk): string {
  return [chunk.book, chunk.chapter, chunk.section, ...(chunk.headings ?? [])].join(' ');
}

/**
 * How a unit ranks among the units read for a claim: by its own words, then (by a hundredth) with its passage's headings,
 * which units of one passage share.
 */
export function unitCoverage(text: string, chunk: Chunk, topic: Topic): number {
  return coverageOf(text, topic) + framedCoverage(chunk, text, topic) / 100;
}

/**
 * `coverageOf` a text read with its passage's headings (`headingsOf(chunk) + ' ' + text`), to the same double. A word
 * without whitespace is found in the two joined exactly when it is found in either: which words the headings hold is
 * worked out once per topic and heading path, since every unit of a passage, for every option, asks.
 */
export function framedCoverage(chunk: Chunk, text: string, topic: Topic): number {
  if (topic.total <= 0) return 1;
  const inHeadings = headingWords(chunk, topic);
  if (!inHeadings) return coverageOf(`${headingsOf(chunk)} ${text}`, topic);
  const normal = normalizeText(text);
  let s = 0;
  const { words, idfs } = topic;
  for (let i = 0; i < words.length; i++) {
    const t = words[i] as string;
    if (inHeadings.has(t) || normal.includes(t)) s += idfs[i] as number;
  }
  return s / topic.total;
}

/** `holds` for the topic's key in a text read with its passage's headings. */
export function framedHoldsKey(chunk: Chunk, text: string, topic: Topic): boolean {
  if (topic.key === null) return true;
  const inHeadings = headingWords(chunk, topic);
  if (!inHeadings) return holds(`${headingsOf(chunk)} ${text}`, topic.key);
  return inHeadings.has(topic.key) || holds(text, topic.key);
}

/** The topic's words each heading path holds, per topic (a topic lives for one question); null for a topic with a word that holds whitespace, which could straddle the join. */
const headingWordsOf = new WeakMap<Topic, Map<string, ReadonlySet<string>> | null>();

function headingWords(chunk: Chunk, topic: Topic): ReadonlySet<string> | null {
  let byPath = headingWordsOf.get(topic);
  if (byPath === undefined) {
    byPath = topic.words.some((t) => /\s/u.test(t)) ? null : new Map();
    headingWordsOf.set(topic, byPath);
  }
  if (byPath === null) return null;
  const headings = headingsOf(chunk);
  let found = byPath.get(headings);
  if (!found) {
    const normal = normalizeText(headings);
    found = new Set(topic.words.filter((t) => normal.includes(t)));
    byPath.set(headings, found);
  }
  return found;
}

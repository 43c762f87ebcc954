import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { stemmer } from 'stemmer';
import { memoizeShortText } from '../bounded-cache.js';
import { UserError } from '../errors.js';
import { defaultDictionaryFile } from './dictionary-cache.js';
import { splitDictionaryLine, type DictionaryTable } from './dictionary-table.js';
import { Jieba } from './jieba.js';

/**
 * The one text analyzer shared by the keyword index, the LSA embedder and the offline answerer,
 * so index time and query time always cut text the same way.
 */
export interface Analyzer {
  /** Search-mode tokens (jieba `cutForSearch`: long words plus their sub-words), lowercased and stemmed, no punctuation or stopwords. */
  tokens(text: string): string[];
  /**
   * `texts.map(tokens)`, the same tokens, from one cut of all the texts where the analyzer can make one (an index cuts
   * every clause of every passage, and one call per clause cost more than the cutting itself).
   */
  tokensOfEach?(texts: readonly string[]): string[][];
  /** Identifies the dictionary content, so an index built with another dictionary can be detected. */
  readonly fingerprint: string;
}

const PUNCT_OR_SPACE = /^[\p{P}\p{S}\p{Z}\s]+$/u;
const LATIN_WORD = /^[a-z][a-z'-]*$/;

/** Function words that carry no evidence in exam stems; dropping them keeps BM25 and option scoring on content words. */
const STOPWORDS = new Set([
  '的',
  '了',
  '和',
  '与',
  '及',
  '或',
  '是',
  '在',
  '为',
  '对',
  '由',
  '将',
  '把',
  '被',
  '等',
  '中',
  '其',
  '之',
  '以',
  '于',
  '也',
  '就',
  '都',
  '而',
  '下列',
  '以下',
  '关于',
  '说法',
  '正确',
  '错误',
  '不正确',
  '不',
  '属于',
  '不属于',
  '选项',
  '哪',
  '哪个',
  '哪些',
  '哪项',
  '何',
  '什么',
  '多少',
  '是否',
  '包括',
  '不包括',
  '下面',
  '有关',
  '表述',
  '描述',
  '一项',
  '一个',
  '应当',
  '可以',
  '根据',
  '按照',
  '（',
  '）',
  'the',
  'a',
  'an',
  'of',
  'to',
  'in',
  'and',
  'or',
  'is',
  'are',
  'be',
  'for',
  'on',
  'with',
  'as',
  'by',
  'which',
  'what',
  'not',
  'except',
]);

/**
 * Sentences and option texts already put in normal form. Reading one question's options asks for the same few hundred
 * sentences and words about 5,000 times (every option against every clause), and each time cost three regular-expression
 * passes; a remembered string is one hash lookup. Texts over 400 characters (whole passages, cut once at ingest) are
 * not remembered, so the memory stays bounded (a few MB).
 */
const normalForms = memoizeShortText(normalForm, 400, 4096);

/**
 * Normalises width, case and numerals so ＡＢＣ, ABC and abc, and 一百二十天 and 120天, index and match alike
 * (NFKC folds full-width forms). Textbooks spell numbers in Chinese where questions use digits.
 */
export function normalizeText(text: string): string {
  return normalForms(text);
}

function normalForm(text: string): string {
  return chineseNumeralsToArabic(text.normalize('NFKC').toLowerCase());
}

const DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const UNITS: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };
const NUMERAL_RUN = /[零〇一二两三四五六七八九十百千万亿]+点[零〇一二三四五六七八九]+|[零〇一二两三四五六七八九十百千万亿]{2,}|十/g;
/**
 * A lone digit character before a unit of time or a multiple (三个月, 两年, 五倍): questions write 3个月 where the book
 * writes 三个月. Elsewhere a lone digit is part of a word (统一, 一般, 第一章, 一方) or means "a" (一个, 一人), so only
 * these units qualify.
 */
const LONE_COUNT = /(?<![零〇一二两三四五六七八九十百千万亿])[一二两三四五六七八九](?=个月|个工作日|个交易日|年|月|日|天|周|倍|小时)/g;
const PERCENT = /百分之([零〇一二两三四五六七八九十百千]+(?:点[零〇一二三四五六七八九]+)?)/g;

/** Value of a Chinese numeral below 万 written with units (三千五百, 一百二十, 十五), or null when malformed. */
function numeralValue(run: string): number | null {
  let section = 0;
  let digit: number | null = null;
  for (const ch of run) {
    if (ch === '零' || ch === '〇') {
      digit = null; // 一百零五: the zero only marks a skipped place
    } else if (ch in DIGITS) {
      if (digit !== null) return null; // two digits in a row only in digit-by-digit form
      digit = DIGITS[ch] ?? 0;
    } else if (ch in UNITS) {
      section += (digit ?? 1) * (UNITS[ch] ?? 1);
      digit = null;
    }
  }
  return section + (digit ?? 0);
}

/**
 * Rewrites Chinese numerals as Arabic digits: runs with units (一百二十 → 120, 三千五百万 → 3500万, 百分之五 → 5%),
 * digit-by-digit runs of two or more (二〇一五 → 2015), and a lone digit before a counter (三个月 → 3个月). Any other
 * lone digit character is left alone, because it is usually part of a word (统一, 一般, 第一).
 */
export function chineseNumeralsToArabic(text: string): string {
  let out = text;
  for (const pass of NUMERAL_PASSES) out = out.replace(pass.pattern, pass.replace);
  return out;
}

/** The digits a Chinese numeral run stands for, or null when it is not a well-formed number. */
function convertNumeral(run: string): string | null {
  // 一点五 → 1.5, 零点零五 → 0.05: the fraction is read digit by digit.
  const point = run.indexOf('点');
  if (point > 0) {
    const whole = run.slice(0, point);
    const wholeValue = whole.length === 1 ? String(DIGITS[whole] ?? '') : convertNumeral(whole);
    const fraction = [...run.slice(point + 1)].map((ch) => String(DIGITS[ch] ?? '')).join('');
    return wholeValue ? `${wholeValue}.${fraction}` : null;
  }
  // 万 and 亿 stay as written units, the way questions write amounts (3500万元, 2亿份).
  if (/[万亿]/.test(run)) {
    return run
      .split(/([万亿])/)
      .map((part) =>
        part === '万' || part === '亿' || part === ''
          ? part
          : part.length === 1 && part in DIGITS
            ? String(DIGITS[part])
            : (convertNumeral(part) ?? part),
      )
      .join('');
  }
  if (/[十百千]/.test(run)) {
    const n = numeralValue(run);
    return n === null ? null : String(n);
  }
  return run.length >= 2 ? [...run].map((ch) => String(DIGITS[ch] ?? 0)).join('') : null;
}

/** One rewrite of `chineseNumeralsToArabic`: a global pattern and what a match becomes. */
interface NumeralPass {
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

/** The rewrites in order: percentages first (百分之五 holds the run 五), then runs, then lone digits before a unit. */
const NUMERAL_PASSES: readonly NumeralPass[] = [
  {
    pattern: PERCENT,
    replace: (match, run = '') => {
      const value = run.length === 1 && run in DIGITS ? String(DIGITS[run]) : convertNumeral(run);
      return value === null || value === '' ? match : `${value}%`;
    },
  },
  { pattern: NUMERAL_RUN, replace: (match) => convertNumeral(match) ?? match },
  { pattern: LONE_COUNT, replace: (digit) => String(DIGITS[digit] ?? digit) },
];

/**
 * `normalizeText` together with, for each character of the result, the range of `text` it stands for: a match found
 * in the normal form (a question's 3个月) can then be marked where the book wrote it (三个月). Null in the rare case
 * where normalising character by character differs from normalising the whole text (combining marks).
 */
export function normalizeWithSpans(text: string): { text: string; spans: Array<readonly [number, number]> } | null {
  let out = '';
  let spans: Array<readonly [number, number]> = [];
  for (let i = 0; i < text.length;) {
    const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
    const normal = ch.normalize('NFKC').toLowerCase();
    for (let k = 0; k < normal.length; k++) spans.push([i, i + ch.length]);
    out += normal;
    i += ch.length;
  }
  for (const pass of NUMERAL_PASSES) {
    let next = '';
    const nextSpans: Array<readonly [number, number]> = [];
    let at = 0;
    for (const m of out.matchAll(pass.pattern)) {
      const start = m.index;
      const end = start + m[0].length;
      const replaced = pass.replace(m[0], ...m.slice(1).map((g) => g ?? ''));
      next += out.slice(at, start) + replaced;
      nextSpans.push(...spans.slice(at, start));
      // Every character of a rewritten numeral stands for the whole run it replaced.
      const whole = [spans[start]?.[0] ?? 0, spans[end - 1]?.[1] ?? 0] as const;
      for (let k = 0; k < replaced.length; k++) nextSpans.push(replaced === m[0] ? (spans[start + k] ?? whole) : whole);
      at = end;
    }
    next += out.slice(at);
    nextSpans.push(...spans.slice(at));
    out = next;
    spans = nextSpans;
  }
  return out === normalizeText(text) ? { text: out, spans } : null;
}

/**
 * A dictionary file's text; a `UserError` naming the file and the first bad line when it is binary or not
 * UTF-8, which jieba would otherwise either reject with a bare "Load dict failed" or load as garbled terms.
 */
function dictionaryText(file: string, bytes: Buffer): string {
  // The whole file at once first (native, and no per-line decoder on every start); line by line only to name a bad line.
  if (isUtf8(bytes) && !bytes.includes(0)) return bytes.toString('utf8').replace(/^\uFEFF/u, '');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  for (let line = 1; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start) === -1 ? bytes.length : bytes.indexOf(0x0a, start);
    const raw = bytes.subarray(start, end);
    let ok = !raw.includes(0);
    if (ok) {
      try {
        decoder.decode(raw);
      } catch {
        ok = false;
      }
    }
    if (!ok)
      throw new UserError(
        `${file}: line ${line} is not UTF-8 text (binary, or another encoding such as GBK); save the dictionary as UTF-8, one term per line`,
      );
    start = end + 1;
  }
  return bytes.toString('utf8').replace(/^\uFEFF/u, '');
}

/** Reads user dictionary files: one term per line, optionally `term [freq] [tag]`; `#` starts a comment. */
export function readUserDictionary(files: readonly string[]): { lines: string[]; missing: string[] } {
  const lines: string[] = [];
  const missing: string[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      missing.push(file);
      continue;
    }
    const content = dictionaryText(file, bytes);
    for (const raw of content.split(/\r?\n/)) {
      const line = raw.replace(/#.*/, '').trim();
      if (!line) continue;
      const [term, freq, tag] = line.split(/\s+/);
      if (!term) continue;
      // A high default frequency makes jieba keep the whole term as one word.
      lines.push(`${term} ${freq ?? '100000'} ${tag ?? 'n'}`);
    }
  }
  return { lines, missing };
}

/**
 * jieba's default dictionary, the file `@node-rs/jieba/dict.js` exports. Read directly: that module also reads the
 * 6 MB keyword-idf table, which segmentation never uses, on every start.
 */
function defaultDictionary(): Buffer {
  return readFileSync(defaultDictionaryFile());
}

/** Options of `createAnalyzer`. */
export interface AnalyzerOptions {
  /**
   * jieba's default dictionary as a lookup table (`dictionary-table.ts`): jieba then gets only the words that occur
   * in the texts it cuts, instead of building its trie from all 349,000 words first. The tokens are the same.
   */
  table?: DictionaryTable;
}

/** Builds an analyzer over jieba's default dictionary plus the given user-dictionary lines (`term freq tag`). */
export function createAnalyzer(userDictionary: readonly string[] = [], options: AnalyzerOptions = {}): Analyzer {
  const sorted = [...new Set(userDictionary)].sort();
  const userText = sorted.length > 0 ? sorted.join('\n') + '\n' : '';
  const segment = (options.table && segmentOnDemand(options.table, userText)) ?? segmentWithFullDictionary(userText);
  const fingerprint = `jieba-search+num4+user:${sorted.length}:${simpleHash(sorted.join('\n'))}`;
  return {
    fingerprint,
    tokens(text: string): string[] {
      const out: string[] = [];
      for (const piece of segment(normalizeText(text))) keepToken(piece, out);
      return out;
    },
    tokensOfEach(texts: readonly string[]): string[][] {
      // jieba cuts runs of CJK characters, letters and digits, and emits every other whitespace character as a word of
      // its own: texts joined by line breaks cut as each text alone, the breaks standing between. A text holding a
      // line break or a carriage return of its own is cut alone. The normal form is taken of the joined texts too: none
      // of its rewritings (width, case, numerals) reads across a line break.
      if (texts.length < 2 || texts.some((t) => t.includes('\n') || t.includes('\r'))) return texts.map((t) => this.tokens(t));
      const out: string[][] = [[]];
      for (const piece of segment(normalizeText(texts.join('\n')))) {
        if (piece === '\n') out.push([]);
        else keepToken(piece, out[out.length - 1]!);
      }
      return out.length === texts.length ? out : texts.map((t) => this.tokens(t));
    },
  };
}

/** Adds jieba's word to `out` as a token: trimmed, stemmed when a Latin word, and not when punctuation, space or a stopword. */
function keepToken(piece: string, out: string[]): void {
  const token = piece.trim();
  if (!token || PUNCT_OR_SPACE.test(token) || STOPWORDS.has(token)) return;
  out.push(LATIN_WORD.test(token) ? stemmer(token) : token);
}

/** jieba search-mode cut of normalised text. */
type Segment = (text: string) => string[];

/** jieba with its whole default dictionary, then the user dictionary over it. */
function segmentWithFullDictionary(userText: string): Segment {
  const jieba = Jieba.withDict(defaultDictionary());
  if (userText) jieba.loadDict(Buffer.from(userText, 'utf8'));
  return (text) => jieba.cutForSearch(text, true);
}

/**
 * After this many characters, loading the whole dictionary once costs less than finding each text's words
 * (an eval, a long REPL session); one question with its passages is about 20,000.
 */
const ON_DEMAND_CHARS = 100_000;

/**
 * A word no text can contain: jieba only looks words up inside runs of CJK and ASCII letters, digits and `+#&._%-`,
 * and these are private-use characters. Its frequency holds the frequencies of the dictionary words not loaded yet.
 */
const RESERVE_WORD = '\ue000\ue001\ue002';

/**
 * jieba fed on demand: before cutting a text, the dictionary words occurring in it are added. jieba-rs cuts a text
 * by the words that occur in it and by the sum of all frequencies (it recomputes the sum on every load), so with
 * the missing frequency mass kept on `RESERVE_WORD` the cut is the same as with the whole dictionary loaded.
 * The user dictionary is loaded first and wins over the default entries for its words, as in the full load.
 * Null when a user line has a frequency jieba would reject: the full load then reports it as it always has.
 */
function segmentOnDemand(table: DictionaryTable, userText: string): Segment | null {
  const userFreq = new Map<string, number>();
  for (const line of userText.split('\n')) {
    const entry = splitDictionaryLine(line);
    if (!entry) continue;
    if (entry.freq === null) return null;
    userFreq.set(entry.word, entry.freq); // the last line for a word wins, as in jieba
  }
  const loaded = new Uint8Array(table.wordCount);
  let total = table.totalFrequency;
  let loadedFrequency = 0;
  for (const [word, freq] of userFreq) {
    const id = table.wordId(word);
    if (id >= 0) {
      total -= table.frequency(id);
      loaded[id] = 1; // never load the default entry over the user's
    }
    total += freq;
    loadedFrequency += freq;
  }
  const reserve = (): string => `${RESERVE_WORD} ${total - loadedFrequency}\n`;
  const jieba = Jieba.withDict(Buffer.from(userText + reserve(), 'utf8'));
  let seen = 0;
  let full: Segment | null = null;
  return (text) => {
    if (full) return full(text);
    seen += text.length;
    if (seen > ON_DEMAND_CHARS) {
      full = segmentWithFullDictionary(userText);
      return full(text);
    }
    let lines = '';
    table.forEachWordIn(text, (id) => {
      if (loaded[id]) return;
      loaded[id] = 1;
      loadedFrequency += table.frequency(id);
      lines += `${table.word(id)} ${table.frequency(id)} ${table.tag(id)}\n`;
    });
    if (lines) jieba.loadDict(Buffer.from(lines + reserve(), 'utf8'));
    return jieba.cutForSearch(text, true);
  };
}

/** FNV-1a, enough to tell dictionaries apart in a fingerprint. */
function simpleHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

import type { Analyzer } from '../../text/analyzer.js';

/**
 * The LSA embedder's features and their weighting, shared by the fit (`lsa-fit.ts`) and the fitted model
 * (`lsa-model.ts`): both turn a text's feature counts into the same weighted row with `weightedRow`, so a document
 * embedded at ingest and the same text embedded later by the model get the same numbers.
 */

/** N-gram features are kept apart from word features so `基金` the word and `基金` the bigram weigh separately. */
const NGRAM_PREFIX = '\u0002';
const CJK_RUN = /[\p{Script=Han}]{2,}/gu;
/** BM25's saturation and length normalisation (Robertson & Zaragoza's usual values). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Character n-gram lengths taken from CJK runs by default: characters and bigrams. */
export const DEFAULT_NGRAMS: readonly number[] = [1, 2];

/**
 * How a document's feature counts become weights before the SVD (and before folding in):
 * - `tfidf`: (1 + log tf) · idf, the classic LSA input;
 * - `bm25`: idf · tf (k1 + 1) / (tf + k1 (1 − b + b · len / avglen)), which saturates repeated terms and
 *   discounts long chunks, as BM25 does; queries are weighted (1 + log tf) · idf;
 * - `log-entropy`: log(1 + tf) · (1 + Σ p log p / log n), Dumais' weighting for LSA, which favours terms
 *   concentrated in few documents.
 */
export type LsaWeighting = 'tfidf' | 'bm25' | 'log-entropy';

/** Features of one text: analyzer tokens and CJK character n-grams, with counts. */
export function lsaFeatures(analyzer: Analyzer, text: string, ngrams: readonly number[] = DEFAULT_NGRAMS): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (f: string): void => {
    counts.set(f, (counts.get(f) ?? 0) + 1);
  };
  for (const t of analyzer.tokens(text)) add(t);
  for (const run of text.normalize('NFKC').matchAll(CJK_RUN)) {
    const s = run[0];
    for (const n of ngrams) for (let i = 0; i + n <= s.length; i++) add(NGRAM_PREFIX + s.slice(i, i + n));
  }
  return counts;
}

/**
 * A map from a pair of UTF-16 code units (a 32-bit key) to a non-negative id, by linear probing in typed arrays: a
 * lookup makes no object, where a Map of numbers above the small-integer range boxes each key.
 */
class UnitPairTable {
  private keys = new Uint32Array(1 << 16);
  private ids = new Int32Array(1 << 16).fill(-1);
  private size = 0;

  /** The id stored for `key`, or -1. */
  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let at = (Math.imul(key, 0x9e3779b1) >>> 0) & mask; ; at = (at + 1) & mask) {
      const id = this.ids[at]!;
      if (id < 0 || this.keys[at] === key) return id;
    }
  }

  /** Stores `id` (non-negative) for a key not stored yet. */
  set(key: number, id: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let at = (Math.imul(key, 0x9e3779b1) >>> 0) & mask;
    while (this.ids[at]! >= 0) at = (at + 1) & mask;
    this.keys[at] = key;
    this.ids[at] = id;
    this.size++;
  }

  private grow(): void {
    const { keys, ids } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.ids = new Int32Array(keys.length * 2).fill(-1);
    this.size = 0;
    for (let at = 0; at < keys.length; at++) if (ids[at]! >= 0) this.set(keys[at]!, ids[at]!);
  }
}

/**
 * The features of many texts, each interned to an integer id as it is first seen, counted per text exactly as
 * {@link lsaFeatures} counts them (the same features, counts and first-seen order). For a fit over a whole corpus:
 * a character or a bigram is looked up by its UTF-16 code units in small-integer tables, so neither a string per
 * n-gram nor a Map per text is made (on a library of 66k chunks, those were over a third of the fit). Other n-gram
 * lengths are looked up by their string.
 */
export class FeatureInterner {
  /** `names[id]`: the feature as {@link lsaFeatures} names it. */
  readonly names: string[] = [];
  private readonly tokenIds = new Map<string, number>();
  /** Characters by code unit (-1: not seen). */
  private readonly unigramIds = new Int32Array(65536).fill(-1);
  /** Bigrams by their two code units (first · 65536 + second), in an open-addressing table. */
  private readonly bigramIds = new UnitPairTable();
  private readonly longerIds = new Map<string, number>();
  /** Per id: the last text it was counted in (1-based) and its slot in that text's row. */
  private lastText: Int32Array = new Int32Array(1024);
  private slot: Int32Array = new Int32Array(1024);
  private texts = 0;
  private readonly rowIds: number[] = [];
  private readonly rowCounts: number[] = [];

  constructor(
    private readonly analyzer: Analyzer,
    private readonly ngrams: readonly number[] = DEFAULT_NGRAMS,
  ) {}

  /** The ids of one text's features and their counts, in the order {@link lsaFeatures} first meets them. */
  count(text: string): { ids: Int32Array; counts: Int32Array } {
    const textNo = ++this.texts;
    this.rowIds.length = 0;
    this.rowCounts.length = 0;
    for (const token of this.analyzer.tokens(text)) {
      // A token spelled as an n-gram's name is that feature, as in lsaFeatures' one map.
      if (token.startsWith(NGRAM_PREFIX)) {
        this.add(this.gramId(token, 1, token.length - 1), textNo);
        continue;
      }
      let id = this.tokenIds.get(token);
      if (id === undefined) {
        id = this.newId(token);
        this.tokenIds.set(token, id);
      }
      this.add(id, textNo);
    }
    for (const run of text.normalize('NFKC').matchAll(CJK_RUN)) {
      const s = run[0];
      for (const n of this.ngrams) {
        for (let i = 0; i + n <= s.length; i++) this.add(this.gramId(s, i, n), textNo);
      }
    }
    return { ids: Int32Array.from(this.rowIds), counts: Int32Array.from(this.rowCounts) };
  }

  private gramId(s: string, i: number, n: number): number {
    if (n === 1) {
      const unit = s.charCodeAt(i);
      let id = this.unigramIds[unit]!;
      if (id < 0) {
        id = this.newId(NGRAM_PREFIX + s[i]!);
        this.unigramIds[unit] = id;
      }
      return id;
    }
    if (n === 2) {
      const key = s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1);
      let id = this.bigramIds.get(key);
      if (id < 0) {
        id = this.newId(NGRAM_PREFIX + s.slice(i, i + 2));
        this.bigramIds.set(key, id);
      }
      return id;
    }
    const name = NGRAM_PREFIX + s.slice(i, i + n);
    let id = this.longerIds.get(name);
    if (id === undefined) {
      id = this.newId(name);
      this.longerIds.set(name, id);
    }
    return id;
  }

  private newId(name: string): number {
    const id = this.names.length;
    this.names.push(name);
    if (id >= this.lastText.length) {
      const grow = (a: Int32Array): Int32Array => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.lastText = grow(this.lastText);
      this.slot = grow(this.slot);
    }
    return id;
  }

  private add(id: number, textNo: number): void {
    if (this.lastText[id] === textNo) {
      this.rowCounts[this.slot[id]!]! += 1;
      return;
    }
    this.lastText[id] = textNo;
    this.slot[id] = this.rowIds.length;
    this.rowIds.push(id);
    this.rowCounts.push(1);
  }
}

/** The local weight of a count in a document of `length` features, per weighting. */
export function localWeight(weighting: LsaWeighting, tf: number, length: number, averageLength: number): number {
  switch (weighting) {
    case 'tfidf':
      return 1 + Math.log(tf);
    case 'bm25':
      return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(averageLength, 1e-9)));
    case 'log-entropy':
      return Math.log(1 + tf);
  }
}

/** A sparse weighted row: vocabulary columns in increasing order and their L2-normalised weights. */
export interface WeightedRow {
  indices: number[];
  values: number[];
}

/**
 * The weighted, L2-normalised row of one text's features: `columns[t]` is feature t's vocabulary column (negative:
 * not in the vocabulary, skipped) and `counts[t]` its count. The document length (BM25's) counts every feature,
 * in the vocabulary or not. Entries are ordered by column.
 */
export function weightedRow(
  columns: ArrayLike<number>,
  counts: ArrayLike<number>,
  weighting: LsaWeighting,
  averageLength: number,
  idf: ArrayLike<number>,
): WeightedRow {
  let length = 0;
  for (let t = 0; t < counts.length; t++) length += counts[t]!;
  // Ordered by column through one numeric sort of keys column · n + t (exact: a column is below 2^16 · n, n a
  // text's feature count), which on a library's 66k rows is several times faster than sorting pairs by a comparator.
  // A column occurs once per text, so the order is the same.
  const n = columns.length;
  const keys = new Float64Array(n);
  let kept = 0;
  for (let t = 0; t < n; t++) {
    const j = columns[t]!;
    if (j >= 0) keys[kept++] = j * n + t;
  }
  const sorted = keys.subarray(0, kept).sort();
  const indices = new Array<number>(kept);
  const weights = new Array<number>(kept);
  let sumSquares = 0;
  for (let p = 0; p < kept; p++) {
    const j = Math.floor(sorted[p]! / n);
    const t = sorted[p]! - j * n;
    const w = localWeight(weighting, counts[t]!, length, averageLength) * idf[j]!;
    indices[p] = j;
    weights[p] = w;
    sumSquares += w * w;
  }
  const norm = Math.sqrt(sumSquares) || 1;
  for (let p = 0; p < kept; p++) weights[p]! /= norm;
  return { indices, values: weights };
}

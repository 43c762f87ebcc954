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

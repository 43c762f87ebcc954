import { createHash } from 'node:crypto';
import type { Analyzer } from '../../text/analyzer.js';
import { buildTermTable } from '../../text/term-table.js';
import { DEFAULT_NGRAMS, FeatureInterner, weightedRow, type LsaWeighting } from './lsa-features.js';
import { LsaModel, type LsaState } from './lsa-model.js';
import { projectionInMemory, STATE_VERSION } from './lsa-store.js';
import { randomizedSvd, type CsrMatrix } from './randomized-svd.js';
import { kernelWorkspace } from './dense-kernels.js';
import { l2normalize } from './vector-math.js';

const MAX_VOCABULARY = 60_000;
/** What a document's feature arrays become once it is embedded. */
const EMPTY_ROW = new Int32Array(0);
/** Documents embedded per block of weighted rows at the end of a fit. */
const EMBED_BLOCK = 4096;
/** The randomized SVD's seed: a fit is deterministic. */
const SVD_SEED = 20240601;
/** From this many documents on, features seen in a single document are dropped (they cannot link documents). */
const MIN_DF_CORPUS = 50;

/** What a fit may vary. Everything but `dimension` has a default measured on the benchmarks. */
export interface LsaFitOptions {
  /** Requested latent dimensions; capped by the corpus size. */
  dimension: number;
  /**
   * Default `tfidf`: on lay legal questions (STARD dev) it beat `bm25` and `log-entropy` as the input of the
   * cosine-compared SVD (`node scripts/bench/vector.mjs ../shared/bench --variants …`).
   */
  weighting?: LsaWeighting;
  /** Character n-gram lengths taken from CJK runs (default [1, 2]: characters and bigrams; adding characters gained 4 points of R@10). */
  ngrams?: readonly number[];
  /**
   * The SVD is fitted on at most this many documents (an even stride over the corpus; default 6,000);
   * every document is still embedded. The latent space of a library is found as well from a few thousand
   * chunks, and the fit's cost grows with the documents it sees.
   */
  maxFitDocuments?: number;
  /** Subspace iterations of the randomized SVD (default 1: LSA needs the leading subspace, not precise tail vectors). */
  powerIterations?: number;
}

const DEFAULTS = { weighting: 'tfidf' as LsaWeighting, ngrams: DEFAULT_NGRAMS, maxFitDocuments: 6000, powerIterations: 1 };

/** Hash of what determines a fit, so an unchanged corpus can reuse the previous model. */
export function lsaCorpusHash(analyzer: Analyzer, texts: readonly string[], options: LsaFitOptions): string {
  const o = { ...DEFAULTS, ...options };
  const h = createHash('sha256');
  h.update(
    `v${STATE_VERSION}|${analyzer.fingerprint}|${o.dimension}|${o.weighting}|${o.ngrams.join(',')}|${o.maxFitDocuments}|${o.powerIterations}|${texts.length}\n`,
  );
  for (const t of texts) h.update(t).update('\u0000');
  return h.digest('hex');
}

/** A fitted model plus the embeddings of the documents it was fitted on (in input order). */
export interface LsaFit {
  model: LsaModel;
  /** `model.embed(texts[i])` for every input text, computed from the fit's own matrix (no second tokenisation). */
  vectors: Float32Array[];
}

/**
 * Fits LSA on the corpus (deterministic: fixed SVD seed, fixed document sample). The dimension is capped by the
 * corpus size. Each text is tokenised once: its features are interned to integer ids right away, so memory
 * grows with the vocabulary and the non-zeros, not with one Map per document.
 */
export function fitLsa(
  analyzer: Analyzer,
  texts: readonly string[],
  options: LsaFitOptions,
  onProgress?: (done: number, total: number) => void,
): LsaFit {
  const o = { ...DEFAULTS, ...options };
  const interner = new FeatureInterner(analyzer, o.ngrams);
  // Per feature id: document frequency, global frequency and Σ tf·log tf (for the entropy weight).
  const df: number[] = [];
  const gf: number[] = [];
  const tfLogTf: number[] = [];
  const rows: Int32Array[] = [];
  const counts: Int32Array[] = [];
  let totalLength = 0;
  texts.forEach((text, i) => {
    const { ids: row, counts: cnt } = interner.count(text);
    for (let p = 0; p < row.length; p++) {
      const id = row[p]!;
      const c = cnt[p]!;
      if (id === df.length) {
        df.push(0);
        gf.push(0);
        tfLogTf.push(0);
      }
      df[id]! += 1;
      gf[id]! += c;
      tfLogTf[id]! += c * Math.log(c);
      totalLength += c;
    }
    rows.push(row);
    counts.push(cnt);
    if (onProgress && (i % 500 === 0 || i === texts.length - 1)) onProgress(i + 1, texts.length);
  });
  const n = texts.length;
  const averageLength = n > 0 ? totalLength / n : 0;
  // Features seen in a single document cannot link documents; drop them once the corpus is big enough to afford it.
  const minDf = n >= MIN_DF_CORPUS ? 2 : 1;
  const names = interner.names;
  const vocabulary = names
    .map((f, id) => ({ f, id }))
    .filter((e) => df[e.id]! >= minDf)
    .sort((a, b) => df[b.id]! - df[a.id]! || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0))
    .slice(0, MAX_VOCABULARY)
    .sort((a, b) => (a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  const column = new Int32Array(names.length).fill(-1);
  vocabulary.forEach((e, j) => {
    column[e.id] = j;
  });
  const logN = Math.log(Math.max(n, 2));
  const idf = vocabulary.map(({ id }) => {
    if (o.weighting === 'log-entropy') {
      // 1 + Σ_i p_ij log p_ij / log n with p_ij = tf_ij / gf_j, rewritten with Σ tf log tf to need no second pass.
      const g = gf[id]!;
      return 1 + (tfLogTf[id]! / g - Math.log(g)) / logN;
    }
    if (o.weighting === 'bm25') return Math.log(1 + (n - df[id]! + 0.5) / (df[id]! + 0.5));
    return Math.log((1 + n) / (1 + df[id]!)) + 1;
  });

  /** Weighted, L2-normalised CSR rows of the given documents (`weightedRow`, as the model weights a text). */
  const matrixOf = (docIndices: readonly number[]): CsrMatrix => {
    const rowStart = new Int32Array(docIndices.length + 1);
    let nnz = 0;
    for (const i of docIndices) for (const id of rows[i]!) if (column[id]! >= 0) nnz++;
    const indices = new Int32Array(nnz);
    const values = new Float64Array(nnz);
    let p = 0;
    docIndices.forEach((i, r) => {
      const row = rows[i]!;
      const columns = new Int32Array(row.length);
      for (let t = 0; t < row.length; t++) columns[t] = column[row[t]!]!;
      const w = weightedRow(columns, counts[i]!, o.weighting, averageLength, idf);
      indices.set(w.indices, p);
      values.set(w.values, p);
      p += w.indices.length;
      rowStart[r + 1] = p;
    });
    return { rows: docIndices.length, cols: vocabulary.length, rowStart, indices, values };
  };

  const all = Array.from({ length: n }, (_, i) => i);
  const stride = Math.max(1, n / Math.max(1, o.maxFitDocuments));
  const sample = n <= o.maxFitDocuments ? all : Array.from({ length: Math.floor(n / stride) }, (_, k) => Math.floor(k * stride));
  const fitMatrix = matrixOf(sample);
  const rank = Math.max(1, Math.min(o.dimension, sample.length, vocabulary.length));
  // The fold-in workspace below takes a block's compressed rows; it is sized for the largest block.
  const whole = sample.length === n;
  let capacity = 0;
  for (let from = 0; from < n; from += EMBED_BLOCK) {
    let size = 0;
    const to = Math.min(n, from + EMBED_BLOCK);
    if (whole) size = fitMatrix.rowStart[to]! - fitMatrix.rowStart[from]!;
    else for (let i = from; i < to; i++) size += rows[i]!.length;
    capacity = Math.max(capacity, size);
  }
  const { fold, dimension, singularValues } = fitProjection(fitMatrix, rank, o.powerIterations, {
    rows: Math.min(n, EMBED_BLOCK),
    entries: capacity,
  });
  const { arrays: a, at, kernels } = fold;
  // The model reads the projection where the fold-in does: one copy of the vocabulary × dimension floats.
  const projection = a.projection;
  const corpusHash = lsaCorpusHash(analyzer, texts, options);
  const vocabularyNames = vocabulary.map((e) => e.f);
  const stateHash = createHash('sha256')
    .update(
      JSON.stringify({
        vocabulary: vocabularyNames,
        idf,
        analyzer: analyzer.fingerprint,
        weighting: o.weighting,
        ngrams: o.ngrams,
        averageLength,
      }),
    )
    .update(Buffer.from(projection.buffer, projection.byteOffset, projection.byteLength))
    .digest('hex')
    .slice(0, 12);
  const state: LsaState = {
    id: `lsa:d${dimension}:${stateHash}`,
    analyzer: analyzer.fingerprint,
    requestedDimension: o.dimension,
    dimension,
    corpusHash,
    weighting: o.weighting,
    ngrams: [...o.ngrams],
    averageLength,
    vocabulary: buildTermTable(vocabularyNames),
    idf: Float64Array.from(idf),
    singularValues: Array.from(singularValues),
  };
  const model = new LsaModel(analyzer, state, projectionInMemory(projection, dimension));

  // Every document's embedding from its weighted row: the same numbers `model.embed` gives, without tokenising again.
  // Block by block rather than from a CSR matrix of the whole corpus, which on a library of 66k chunks held ~170 MB at
  // the peak of ingest; each block's features are released once it is embedded. The dense kernels fold a block in,
  // from its compressed rows copied into their memory.
  const vectors: Float32Array[] = [];
  for (let from = 0; from < n; from += EMBED_BLOCK) {
    const block = all.slice(from, Math.min(n, from + EMBED_BLOCK));
    const matrix = whole ? fitMatrix : matrixOf(block);
    const offset = whole ? from : 0;
    const base = matrix.rowStart[offset]!;
    const stop = matrix.rowStart[offset + block.length]!;
    for (let r = 0; r <= block.length; r++) a.rowStart[r] = matrix.rowStart[offset + r]! - base;
    a.indices.set(matrix.indices.subarray(base, stop));
    a.values.set(matrix.values.subarray(base, stop));
    a.out.fill(0);
    kernels.embedRows(block.length, at.rowStart, at.indices, at.values, at.projection, at.out, dimension);
    for (let r = 0; r < block.length; r++) {
      vectors.push(l2normalize(a.out.slice(r * dimension, (r + 1) * dimension)));
      rows[block[r]!] = EMPTY_ROW;
      counts[block[r]!] = EMPTY_ROW;
    }
  }
  return { model, vectors };
}

/**
 * The randomized SVD of the fit matrix, and a fold-in workspace holding its V as float32 (the model's projection,
 * vocabulary × dimension) with room for a block of `block.rows` rows and `block.entries` non-zeros. A function of its
 * own so that the SVD's workspace (about 200 MB on a library) is unreachable once V is copied out of it.
 */
function fitProjection(fitMatrix: CsrMatrix, rank: number, powerIterations: number, block: { rows: number; entries: number }) {
  const svd =
    fitMatrix.rows > 0 && fitMatrix.cols > 0
      ? randomizedSvd(fitMatrix, rank, { seed: SVD_SEED, powerIterations })
      : { v: new Float64Array(0), singularValues: new Float64Array(0), rank: 0 };
  const dimension = Math.max(1, svd.rank);
  const fold = kernelWorkspace({
    projection: ['f32', fitMatrix.cols * dimension],
    rowStart: ['i32', block.rows + 1],
    indices: ['i32', block.entries],
    values: ['f64', block.entries],
    out: ['f32', block.rows * dimension],
  });
  // Rounded to float32 as Float32Array.from would; a rank of 0 leaves one zero column.
  if (svd.rank > 0) fold.arrays.projection.set(svd.v);
  return { fold, dimension, singularValues: svd.singularValues };
}

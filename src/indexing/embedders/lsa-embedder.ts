import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NotReadyError } from '../../errors.js';
import type { Analyzer } from '../../text/analyzer.js';
import type { Embedder } from '../../types.js';
import { buildTermTable, readTermTable, type TermTable } from '../../text/term-table.js';
import { randomizedSvd, type CsrMatrix } from './randomized-svd.js';
import { l2normalize } from './vector-math.js';

/**
 * The offline default embedder: latent semantic analysis. Features are analyzer words PLUS CJK characters
 * and character bigrams (so 托管人 and 托管机构 share features even when jieba cuts them differently, and a
 * lay question's 房子 still meets 房屋), weighted (tf-idf by default, see `LsaWeighting`), L2-normalised,
 * then projected by a truncated SVD fitted on the corpus at ingest. Queries are folded in with the same projection, so terms that co-occur in the
 * corpus land near each other: more than exact word overlap, with no download.
 */

const STATE_FILE = 'lsa.json';
const PROJECTION_FILE = 'lsa-projection.f32';
/**
 * The vocabulary as a term table (`text/term-table.ts`) and each term's global weight as float64, beside the JSON
 * since format 3: read as they are, where the JSON arrays of format 2 took a parse and a Map of every term.
 */
const TERMS_FILE = 'lsa-terms.bin';
const WEIGHTS_FILE = 'lsa-idf.f64';
const STATE_VERSION = 3;
/** A fit saved by format 2 (vocabulary and weights inside the JSON) is still read. */
const JSON_VOCABULARY_VERSION = 2;
/** N-gram features are kept apart from word features so `基金` the word and `基金` the bigram weigh separately. */
const NGRAM_PREFIX = '\u0002';
const MAX_VOCABULARY = 60_000;
/** What a document's feature arrays become once it is embedded. */
const EMPTY_ROW = new Int32Array(0);
/** Documents embedded per block of weighted rows at the end of a fit. */
const EMBED_BLOCK = 4096;
const CJK_RUN = /[\p{Script=Han}]{2,}/gu;
/** BM25's saturation and length normalisation (Robertson & Zaragoza's usual values). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/**
 * How a document's feature counts become weights before the SVD (and before folding in):
 * - `tfidf`: (1 + log tf) · idf, the classic LSA input;
 * - `bm25`: idf · tf (k1 + 1) / (tf + k1 (1 − b + b · len / avglen)), which saturates repeated terms and
 *   discounts long chunks, as BM25 does; queries are weighted (1 + log tf) · idf;
 * - `log-entropy`: log(1 + tf) · (1 + Σ p log p / log n), Dumais' weighting for LSA, which favours terms
 *   concentrated in few documents.
 */
export type LsaWeighting = 'tfidf' | 'bm25' | 'log-entropy';

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

const DEFAULTS = { weighting: 'tfidf' as LsaWeighting, ngrams: [1, 2] as readonly number[], maxFitDocuments: 6000, powerIterations: 1 };

/** A fitted model's state in memory. */
interface LsaState {
  id: string;
  analyzer: string;
  requestedDimension: number;
  dimension: number;
  corpusHash: string;
  weighting: LsaWeighting;
  ngrams: number[];
  /** Average document length in features (BM25's avglen). */
  averageLength: number;
  vocabulary: TermTable;
  /** The global weight of each term: idf, or the entropy weight for `log-entropy`. */
  idf: Float64Array;
  singularValues: number[];
}

/** What `lsa.json` holds: the state's scalars, and in format 2 also the vocabulary and weights. */
type LsaStateFile = Omit<LsaState, 'vocabulary' | 'idf'> & { version: number; vocabulary?: unknown; idf?: unknown };

/** Features of one text: analyzer tokens and CJK character n-grams, with counts. */
export function lsaFeatures(analyzer: Analyzer, text: string, ngrams: readonly number[] = DEFAULTS.ngrams): Map<string, number> {
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

/** Total count of a feature map (BM25's document length). */
function lengthOf(counts: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const c of counts.values()) n += c;
  return n;
}

/** The local weight of a count in a document of `length` features, per weighting. */
function localWeight(weighting: LsaWeighting, tf: number, length: number, averageLength: number): number {
  switch (weighting) {
    case 'tfidf':
      return 1 + Math.log(tf);
    case 'bm25':
      return (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(averageLength, 1e-9)));
    case 'log-entropy':
      return Math.log(1 + tf);
  }
}

/** The fitted model: vocabulary, global weights and projection. */
export class LsaModel implements Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly requestedDimension: number;
  readonly corpusHash: string;
  private readonly analyzer: Analyzer;
  private readonly state: LsaState;
  private readonly projection: Projection;

  constructor(analyzer: Analyzer, state: LsaState, projection: Projection) {
    this.analyzer = analyzer;
    this.state = state;
    this.projection = projection;
    this.id = state.id;
    this.dimension = state.dimension;
    this.requestedDimension = state.requestedDimension;
    this.corpusHash = state.corpusHash;
  }

  /** How documents are weighted (queries too, except that `bm25` queries use (1 + log tf) · idf). */
  get weighting(): LsaWeighting {
    return this.state.weighting;
  }

  /** Sparse weighted row of a text (L2-normalised) over the fitted vocabulary; `query` selects the query weighting. */
  weights(text: string, query = false): { indices: number[]; values: number[] } {
    const indices: number[] = [];
    const values: number[] = [];
    const counts = lsaFeatures(this.analyzer, text, this.state.ngrams);
    const weighting = query && this.state.weighting === 'bm25' ? 'tfidf' : this.state.weighting;
    const length = lengthOf(counts);
    for (const [f, n] of counts) {
      const j = this.state.vocabulary.id(f);
      if (j < 0) continue;
      indices.push(j);
      values.push(localWeight(weighting, n, length, this.state.averageLength) * this.state.idf[j]!);
    }
    const norm = Math.sqrt(values.reduce((s, v) => s + v * v, 0));
    if (norm > 0) for (let i = 0; i < values.length; i++) values[i]! /= norm;
    return { indices, values };
  }

  /** Document embedding (the document weighting). */
  embed(text: string): Float32Array {
    return this.project(this.weights(text, false));
  }

  private project({ indices, values }: { indices: number[]; values: number[] }): Float32Array {
    const d = this.dimension;
    const out = new Float32Array(d);
    const rows = this.projection.rows(indices);
    for (let p = 0; p < indices.length; p++) {
      const row = rows[p]!;
      const w = values[p]!;
      for (let c = 0; c < d; c++) out[c]! += w * row[c]!;
    }
    return l2normalize(out);
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.embed(t)));
  }

  embedQuery(text: string): Promise<Float32Array> {
    return Promise.resolve(this.project(this.weights(text, true)));
  }

  /** Releases the projection file of a loaded model (after which it cannot embed). */
  close(): void {
    this.projection.close?.();
  }

  /** Writes the fitted state under `dir`: JSON, the term table, the weights and a Float32 projection (vocabulary × dimension). */
  save(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const { vocabulary, idf, ...scalars } = this.state;
    writeFileSync(path.join(dir, STATE_FILE), JSON.stringify({ version: STATE_VERSION, ...scalars } satisfies LsaStateFile));
    writeFileSync(path.join(dir, TERMS_FILE), vocabulary.bytes);
    writeFileSync(path.join(dir, WEIGHTS_FILE), new Uint8Array(idf.buffer, idf.byteOffset, idf.byteLength));
    const all = this.projection.all();
    writeFileSync(path.join(dir, PROJECTION_FILE), Buffer.from(all.buffer, all.byteOffset, all.byteLength));
  }
}

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
  const ids = new Map<string, number>();
  const df: number[] = [];
  // Global frequency per feature and Σ tf·log tf, for the entropy weight.
  const gf: number[] = [];
  const tfLogTf: number[] = [];
  const rows: Int32Array[] = [];
  const counts: Int32Array[] = [];
  let totalLength = 0;
  texts.forEach((text, i) => {
    const features = lsaFeatures(analyzer, text, o.ngrams);
    const row = new Int32Array(features.size);
    const cnt = new Int32Array(features.size);
    let p = 0;
    for (const [f, c] of features) {
      let id = ids.get(f);
      if (id === undefined) {
        id = df.length;
        ids.set(f, id);
        df.push(0);
        gf.push(0);
        tfLogTf.push(0);
      }
      df[id]! += 1;
      gf[id]! += c;
      tfLogTf[id]! += c * Math.log(c);
      row[p] = id;
      cnt[p++] = c;
      totalLength += c;
    }
    rows.push(row);
    counts.push(cnt);
    if (onProgress && (i % 500 === 0 || i === texts.length - 1)) onProgress(i + 1, texts.length);
  });
  const n = texts.length;
  const averageLength = n > 0 ? totalLength / n : 0;
  // Features seen in a single document cannot link documents; drop them once the corpus is big enough to afford it.
  const minDf = n >= 50 ? 2 : 1;
  const names = [...ids.keys()];
  ids.clear();
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

  /** Weighted, L2-normalised CSR rows of the given documents. */
  const matrixOf = (docIndices: readonly number[]): CsrMatrix => {
    const rowStart = new Int32Array(docIndices.length + 1);
    let nnz = 0;
    for (const i of docIndices) for (const id of rows[i]!) if (column[id]! >= 0) nnz++;
    const indices = new Int32Array(nnz);
    const values = new Float64Array(nnz);
    let p = 0;
    docIndices.forEach((i, r) => {
      const row = rows[i]!;
      const cnt = counts[i]!;
      let length = 0;
      for (const c of cnt) length += c;
      const entries: [number, number][] = [];
      for (let t = 0; t < row.length; t++) {
        const j = column[row[t]!]!;
        if (j >= 0) entries.push([j, localWeight(o.weighting, cnt[t]!, length, averageLength) * idf[j]!]);
      }
      entries.sort((a, b) => a[0] - b[0]);
      const norm = Math.sqrt(entries.reduce((s, [, v]) => s + v * v, 0)) || 1;
      for (const [j, v] of entries) {
        indices[p] = j;
        values[p++] = v / norm;
      }
      rowStart[r + 1] = p;
    });
    return { rows: docIndices.length, cols: vocabulary.length, rowStart, indices, values };
  };

  const all = Array.from({ length: n }, (_, i) => i);
  const stride = Math.max(1, n / Math.max(1, o.maxFitDocuments));
  const sample = n <= o.maxFitDocuments ? all : Array.from({ length: Math.floor(n / stride) }, (_, k) => Math.floor(k * stride));
  const fitMatrix = matrixOf(sample);
  const rank = Math.max(1, Math.min(o.dimension, sample.length, vocabulary.length));
  const svd =
    sample.length > 0 && vocabulary.length > 0
      ? randomizedSvd(fitMatrix, rank, { seed: 20240601, powerIterations: o.powerIterations })
      : { v: new Float64Array(0), singularValues: new Float64Array(0), rank: 0 };
  const dimension = Math.max(1, svd.rank);
  const projection = svd.rank > 0 ? Float32Array.from(svd.v) : new Float32Array(vocabulary.length);
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
    singularValues: Array.from(svd.singularValues),
  };
  const model = new LsaModel(analyzer, state, projectionInMemory(projection, dimension));

  // Every document's embedding from its weighted row: the same numbers `model.embed` gives, without tokenising again.
  // Block by block rather than from a CSR matrix of the whole corpus, which on a library of 66k chunks held ~170 MB at
  // the peak of ingest; each block's features are released once it is embedded.
  const vectors: Float32Array[] = [];
  for (let from = 0; from < n; from += EMBED_BLOCK) {
    const block = all.slice(from, Math.min(n, from + EMBED_BLOCK));
    const matrix = sample.length === n ? fitMatrix : matrixOf(block);
    const offset = sample.length === n ? from : 0;
    for (let r = 0; r < block.length; r++) {
      const out = new Float32Array(dimension);
      for (let p = matrix.rowStart[offset + r]!; p < matrix.rowStart[offset + r + 1]!; p++) {
        const base = matrix.indices[p]! * dimension;
        const w = matrix.values[p]!;
        for (let c = 0; c < dimension; c++) out[c]! += w * projection[base + c]!;
      }
      vectors.push(l2normalize(out));
      rows[block[r]!] = EMPTY_ROW;
      counts[block[r]!] = EMPTY_ROW;
    }
  }
  return { model, vectors };
}

/** Loads a fitted model from `dir`; NotReadyError when missing, corrupt, or built with another analyzer. */
export function loadLsa(dir: string, analyzer: Analyzer): LsaModel {
  const stateFile = path.join(dir, STATE_FILE);
  const projectionFile = path.join(dir, PROJECTION_FILE);
  const rebuild = '; run `exam-copilot ingest --force`';
  if (!existsSync(stateFile) || !existsSync(projectionFile)) throw new NotReadyError(`no fitted LSA embedder in ${dir}${rebuild}`);
  let file: LsaStateFile;
  try {
    file = JSON.parse(readFileSync(stateFile, 'utf8')) as LsaStateFile;
  } catch {
    throw new NotReadyError(`${stateFile} is unreadable${rebuild}`);
  }
  if ((file.version !== STATE_VERSION && file.version !== JSON_VOCABULARY_VERSION) || !Array.isArray(file.ngrams)) {
    throw new NotReadyError(`${stateFile} was written by another version${rebuild}`);
  }
  if (file.analyzer !== analyzer.fingerprint) {
    throw new NotReadyError(
      `the LSA embedder in ${dir} was fitted with analyzer ${file.analyzer}, the current user dictionary gives ${analyzer.fingerprint}${rebuild}`,
    );
  }
  const { vocabulary, idf } = file.version === STATE_VERSION ? readTermsAndWeights(dir) : termsFromJson(file, stateFile);
  if (idf.length !== vocabulary.size) throw new NotReadyError(`${dir}: ${idf.length} term weights for ${vocabulary.size} terms${rebuild}`);
  if (statSync(projectionFile).size !== vocabulary.size * file.dimension * 4) {
    throw new NotReadyError(`${projectionFile} has the wrong size${rebuild}`);
  }
  const { version: _version, vocabulary: _v, idf: _i, ...scalars } = file;
  return new LsaModel(analyzer, { ...scalars, vocabulary, idf }, projectionFromFile(projectionFile, file.dimension));
}

/** The vocabulary and weights of a format 3 fit, from their own files. */
function readTermsAndWeights(dir: string): { vocabulary: TermTable; idf: Float64Array } {
  const termsFile = path.join(dir, TERMS_FILE);
  const weightsFile = path.join(dir, WEIGHTS_FILE);
  let vocabulary: TermTable;
  let weights: Buffer;
  try {
    vocabulary = readTermTable(readFileSync(termsFile));
    weights = readFileSync(weightsFile);
  } catch (error) {
    throw new NotReadyError(`${dir}: the LSA vocabulary is unreadable (${(error as Error).message}); run \`exam-copilot ingest --force\``);
  }
  if (weights.length % 8 !== 0) throw new NotReadyError(`${weightsFile} has the wrong size; run \`exam-copilot ingest --force\``);
  // A copy: a small file's Buffer may sit at an offset a Float64Array view cannot use.
  return { vocabulary, idf: new Float64Array(weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.length)) };
}

/** The vocabulary and weights of a format 2 fit, from the JSON arrays. */
function termsFromJson(file: LsaStateFile, stateFile: string): { vocabulary: TermTable; idf: Float64Array } {
  const { vocabulary, idf } = file;
  const valid =
    Array.isArray(vocabulary) &&
    vocabulary.every((t) => typeof t === 'string') &&
    Array.isArray(idf) &&
    idf.every((w) => typeof w === 'number');
  if (!valid) throw new NotReadyError(`${stateFile} was written by another version; run \`exam-copilot ingest --force\``);
  try {
    return { vocabulary: buildTermTable(vocabulary), idf: Float64Array.from(idf) };
  } catch (error) {
    throw new NotReadyError(`${stateFile} is unreadable (${(error as Error).message}); run \`exam-copilot ingest --force\``);
  }
}

/** The projection matrix (vocabulary × dimension, row-major): the rows a text's features select, or all of it. */
interface Projection {
  rows(indices: readonly number[]): Float32Array[];
  all(): Float32Array;
  /** Releases the saved file, for a projection read from one. */
  close?(): void;
}

function projectionInMemory(matrix: Float32Array, dimension: number): Projection {
  return {
    rows: (indices) => indices.map((j) => matrix.subarray(j * dimension, (j + 1) * dimension)),
    all: () => matrix,
  };
}

/**
 * Rows read from the saved file when a text first needs them: a query touches a few hundred of the matrix's
 * tens of thousands of rows, and reading all of it (13 MB for a 252-page book) was a large part of answering
 * one question. The file stays open until `close`, so a model keeps reading the matrix it was loaded with even
 * when an ingest swaps in a new index meanwhile (as eval, which scores one index, relies on).
 */
function projectionFromFile(file: string, dimension: number): Projection & { close(): void } {
  const rowBytes = dimension * 4;
  const cache = new Map<number, Float32Array>();
  let fd: number | null = openSync(file, 'r');
  const handle = (): number => {
    if (fd === null) throw new Error(`${file}: read after the embedder was closed`);
    return fd;
  };
  return {
    rows(indices) {
      return indices.map((j) => {
        let row = cache.get(j);
        if (!row) {
          row = new Float32Array(dimension);
          const read = readSync(handle(), new Uint8Array(row.buffer), 0, rowBytes, j * rowBytes);
          if (read !== rowBytes) throw new NotReadyError(`${file} is shorter than its vocabulary; run \`exam-copilot ingest --force\``);
          cache.set(j, row);
        }
        return row;
      });
    },
    all() {
      const size = fstatSync(handle()).size;
      const out = new Float32Array(size / 4);
      readSync(handle(), new Uint8Array(out.buffer), 0, size, 0);
      return out;
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** Reads only the corpus hash of a saved model (to decide whether a previous fit can be reused). */
export function savedLsaCorpusHash(dir: string): string | null {
  try {
    const state = JSON.parse(readFileSync(path.join(dir, STATE_FILE), 'utf8')) as Partial<LsaStateFile>;
    return typeof state.corpusHash === 'string' ? state.corpusHash : null;
  } catch {
    return null;
  }
}

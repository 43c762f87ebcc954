import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NotReadyError } from '../../errors.js';
import type { Analyzer } from '../../text/analyzer.js';
import type { Embedder } from '../../types.js';
import { randomizedSvd, type CsrMatrix } from './randomized-svd.js';
import { l2normalize } from './vector-math.js';

/**
 * The offline default embedder: latent semantic analysis. TF-IDF over analyzer words PLUS character
 * bigrams of CJK runs (so 托管人 and 托管机构 share features even when jieba cuts them differently),
 * sublinear tf, smoothed idf, L2-normalised rows, then a truncated SVD fitted on the corpus at ingest.
 * Documents and queries are folded in the same way (tf-idf · V, L2-normalised), so terms that
 * co-occur in the corpus land near each other: more than exact word overlap, with no download.
 */

const STATE_FILE = 'lsa.json';
const PROJECTION_FILE = 'lsa-projection.f32';
const STATE_VERSION = 1;
/** Bigram features are kept apart from word features so `基金` the word and `基金` the bigram weigh separately. */
const BIGRAM_PREFIX = '\u0002';
const MAX_VOCABULARY = 60_000;
const CJK_RUN = /[\p{Script=Han}]{2,}/gu;

interface LsaState {
  version: number;
  id: string;
  analyzer: string;
  requestedDimension: number;
  dimension: number;
  corpusHash: string;
  vocabulary: string[];
  idf: number[];
  singularValues: number[];
}

/** Features of one text: analyzer tokens and CJK character bigrams, with counts. */
export function lsaFeatures(analyzer: Analyzer, text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (f: string): void => {
    counts.set(f, (counts.get(f) ?? 0) + 1);
  };
  for (const t of analyzer.tokens(text)) add(t);
  for (const run of text.normalize('NFKC').matchAll(CJK_RUN)) {
    const s = run[0];
    for (let i = 0; i + 1 < s.length; i++) add(BIGRAM_PREFIX + s.slice(i, i + 2));
  }
  return counts;
}

/** The fitted model: vocabulary, idf and projection. */
export class LsaModel implements Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly requestedDimension: number;
  readonly corpusHash: string;
  private readonly analyzer: Analyzer;
  private readonly termIndex: Map<string, number>;
  private readonly state: LsaState;
  private readonly projection: Float32Array;

  constructor(analyzer: Analyzer, state: LsaState, projection: Float32Array) {
    this.analyzer = analyzer;
    this.state = state;
    this.projection = projection;
    this.id = state.id;
    this.dimension = state.dimension;
    this.requestedDimension = state.requestedDimension;
    this.corpusHash = state.corpusHash;
    this.termIndex = new Map(state.vocabulary.map((t, i) => [t, i]));
  }

  /** Sparse tf-idf row of a text (sublinear tf, L2-normalised), over the fitted vocabulary. */
  tfidf(text: string): { indices: number[]; values: number[] } {
    const indices: number[] = [];
    const values: number[] = [];
    for (const [f, n] of lsaFeatures(this.analyzer, text)) {
      const j = this.termIndex.get(f);
      if (j === undefined) continue;
      indices.push(j);
      values.push((1 + Math.log(n)) * this.state.idf[j]!);
    }
    const norm = Math.sqrt(values.reduce((s, v) => s + v * v, 0));
    if (norm > 0) for (let i = 0; i < values.length; i++) values[i]! /= norm;
    return { indices, values };
  }

  embed(text: string): Float32Array {
    const d = this.dimension;
    const out = new Float32Array(d);
    const { indices, values } = this.tfidf(text);
    for (let p = 0; p < indices.length; p++) {
      const base = indices[p]! * d;
      const w = values[p]!;
      for (let c = 0; c < d; c++) out[c]! += w * this.projection[base + c]!;
    }
    return l2normalize(out);
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.embed(t)));
  }

  embedQuery(text: string): Promise<Float32Array> {
    return Promise.resolve(this.embed(text));
  }

  /** Writes the fitted state under `dir` (JSON + a Float32 projection matrix, vocabulary × dimension). */
  save(dir: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, STATE_FILE), JSON.stringify(this.state));
    writeFileSync(path.join(dir, PROJECTION_FILE), Buffer.from(this.projection.buffer, this.projection.byteOffset, this.projection.byteLength));
  }
}

/** Hash of what determines a fit, so an unchanged corpus can reuse the previous model. */
export function lsaCorpusHash(analyzer: Analyzer, texts: readonly string[], dimension: number): string {
  const h = createHash('sha256');
  h.update(`v${STATE_VERSION}|${analyzer.fingerprint}|${dimension}|${texts.length}\n`);
  for (const t of texts) h.update(t).update('\u0000');
  return h.digest('hex');
}

/** Fits LSA on the corpus (deterministic: fixed SVD seed). The dimension is capped by the corpus size. */
export function fitLsa(analyzer: Analyzer, texts: readonly string[], requestedDimension: number): LsaModel {
  const docs = texts.map((t) => lsaFeatures(analyzer, t));
  const df = new Map<string, number>();
  for (const d of docs) for (const f of d.keys()) df.set(f, (df.get(f) ?? 0) + 1);
  // Features seen in a single document cannot link documents; drop them once the corpus is big enough to afford it.
  const minDf = docs.length >= 50 ? 2 : 1;
  const vocabulary = [...df.entries()]
    .filter(([, n]) => n >= minDf)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_VOCABULARY)
    .map(([f]) => f)
    .sort();
  const termIndex = new Map(vocabulary.map((t, i) => [t, i]));
  const n = docs.length;
  const idf = vocabulary.map((f) => Math.log((1 + n) / (1 + (df.get(f) ?? 0))) + 1);

  const rowStart = new Int32Array(n + 1);
  const idx: number[] = [];
  const vals: number[] = [];
  docs.forEach((d, i) => {
    const entries: [number, number][] = [];
    for (const [f, c] of d) {
      const j = termIndex.get(f);
      if (j !== undefined) entries.push([j, (1 + Math.log(c)) * idf[j]!]);
    }
    entries.sort((a, b) => a[0] - b[0]);
    const norm = Math.sqrt(entries.reduce((s, [, v]) => s + v * v, 0)) || 1;
    for (const [j, v] of entries) {
      idx.push(j);
      vals.push(v / norm);
    }
    rowStart[i + 1] = idx.length;
  });
  const matrix: CsrMatrix = { rows: n, cols: vocabulary.length, rowStart, indices: Int32Array.from(idx), values: Float64Array.from(vals) };
  const rank = Math.max(1, Math.min(requestedDimension, n, vocabulary.length));
  const svd = n > 0 && vocabulary.length > 0 ? randomizedSvd(matrix, rank, { seed: 20240601 }) : { v: new Float64Array(0), singularValues: new Float64Array(0), rank: 0 };
  const dimension = Math.max(1, svd.rank);
  const projection = svd.rank > 0 ? Float32Array.from(svd.v) : new Float32Array(vocabulary.length);
  const corpusHash = lsaCorpusHash(analyzer, texts, requestedDimension);
  const stateHash = createHash('sha256')
    .update(JSON.stringify({ vocabulary, idf, analyzer: analyzer.fingerprint }))
    .update(Buffer.from(projection.buffer, projection.byteOffset, projection.byteLength))
    .digest('hex')
    .slice(0, 12);
  const state: LsaState = {
    version: STATE_VERSION,
    id: `lsa:d${dimension}:${stateHash}`,
    analyzer: analyzer.fingerprint,
    requestedDimension,
    dimension,
    corpusHash,
    vocabulary,
    idf,
    singularValues: Array.from(svd.singularValues),
  };
  return new LsaModel(analyzer, state, projection);
}

/** Loads a fitted model from `dir`; NotReadyError when missing, corrupt, or built with another analyzer. */
export function loadLsa(dir: string, analyzer: Analyzer): LsaModel {
  const stateFile = path.join(dir, STATE_FILE);
  const projectionFile = path.join(dir, PROJECTION_FILE);
  if (!existsSync(stateFile) || !existsSync(projectionFile)) {
    throw new NotReadyError(`no fitted LSA embedder in ${dir}; run \`exam-copilot ingest --force\``);
  }
  let state: LsaState;
  try {
    state = JSON.parse(readFileSync(stateFile, 'utf8')) as LsaState;
  } catch {
    throw new NotReadyError(`${stateFile} is unreadable; run \`exam-copilot ingest --force\``);
  }
  if (state.version !== STATE_VERSION || !Array.isArray(state.vocabulary) || !Array.isArray(state.idf)) {
    throw new NotReadyError(`${stateFile} was written by another version; run \`exam-copilot ingest --force\``);
  }
  if (state.analyzer !== analyzer.fingerprint) {
    throw new NotReadyError(`the LSA embedder in ${dir} was fitted with analyzer ${state.analyzer}, the current user dictionary gives ${analyzer.fingerprint}; run \`exam-copilot ingest --force\``);
  }
  const buf = readFileSync(projectionFile);
  const projection = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  if (projection.length !== state.vocabulary.length * state.dimension) {
    throw new NotReadyError(`${projectionFile} has the wrong size; run \`exam-copilot ingest --force\``);
  }
  return new LsaModel(analyzer, state, projection);
}

/** Reads only the corpus hash of a saved model (to decide whether a previous fit can be reused). */
export function savedLsaCorpusHash(dir: string): string | null {
  try {
    const state = JSON.parse(readFileSync(path.join(dir, STATE_FILE), 'utf8')) as Partial<LsaState>;
    return typeof state.corpusHash === 'string' ? state.corpusHash : null;
  } catch {
    return null;
  }
}

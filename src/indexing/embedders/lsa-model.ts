import type { Analyzer } from '../../text/analyzer.js';
import type { TermTable } from '../../text/term-table.js';
import type { Embedder } from '../../types.js';
import { lsaFeatures, weightedRow, type LsaWeighting, type WeightedRow } from './lsa-features.js';
import { addScaledRow, l2normalize } from './vector-math.js';

/**
 * The offline default embedder: latent semantic analysis. Features are analyzer words PLUS CJK characters
 * and character bigrams (so 托管人 and 托管机构 share features even when jieba cuts them differently, and a
 * lay question's 房子 still meets 房屋), weighted (tf-idf by default, see `LsaWeighting`), L2-normalised,
 * then projected by a truncated SVD fitted on the corpus at ingest (`lsa-fit.ts`). Queries are folded in with the same
 * projection, so terms that co-occur in the corpus land near each other: more than exact word overlap, with no download.
 */

/** A fitted model's state in memory. */
export interface LsaState {
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

/** The projection matrix (vocabulary × dimension, row-major): the rows a text's features select, or all of it. */
export interface Projection {
  rows(indices: readonly number[]): Float32Array[];
  all(): Float32Array;
  /** Releases the saved file, for a projection read from one. */
  close?(): void;
}

/** The fitted model: vocabulary, global weights and projection (saved and loaded by `lsa-store.ts`). */
export class LsaModel implements Embedder {
  readonly id: string;
  readonly dimension: number;
  readonly requestedDimension: number;
  readonly corpusHash: string;
  private readonly analyzer: Analyzer;

  constructor(
    analyzer: Analyzer,
    /** The fitted state (read by `saveLsa`). */
    readonly state: LsaState,
    /** The projection (read by `saveLsa`). */
    readonly projection: Projection,
  ) {
    this.analyzer = analyzer;
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
  weights(text: string, query = false): WeightedRow {
    const counts = lsaFeatures(this.analyzer, text, this.state.ngrams);
    const columns: number[] = [];
    const tf: number[] = [];
    for (const [f, n] of counts) {
      columns.push(this.state.vocabulary.id(f));
      tf.push(n);
    }
    const weighting = query && this.state.weighting === 'bm25' ? 'tfidf' : this.state.weighting;
    return weightedRow(columns, tf, weighting, this.state.averageLength, this.state.idf);
  }

  /** Document embedding (the document weighting). */
  embed(text: string): Float32Array {
    return this.project(this.weights(text, false));
  }

  private project({ indices, values }: WeightedRow): Float32Array {
    const d = this.dimension;
    const out = new Float32Array(d);
    const rows = this.projection.rows(indices);
    for (let p = 0; p < indices.length; p++) addScaledRow(out, values[p]!, rows[p]!, 0);
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
}

import type { ChunkFilter, Hit, Searcher } from '../types.js';
import { reciprocalRankFusion } from './fusion.js';

export interface HybridOptions {
  /** RRF constant (60 in Cormack et al. for deep TREC runs; 2 by default here, fitted on lay questions: two short candidate lists). */
  rrfK: number;
  weights: { keyword: number; vector: number };
  /** Candidates taken from each searcher before fusion. */
  depth: number;
}

/** Keyword and vector candidates fused by weighted reciprocal rank fusion (pyserini's HybridSearcher shape). */
export class HybridSearcher implements Searcher {
  readonly name = 'hybrid';
  constructor(
    private readonly keyword: Searcher,
    private readonly vector: Searcher,
    private readonly options: HybridOptions,
  ) {}

  async search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    const depth = Math.max(k, this.options.depth);
    const [kw, vec] = await Promise.all([this.keyword.search(query, depth, filter), this.vector.search(query, depth, filter)]);
    return reciprocalRankFusion(
      [
        { name: this.keyword.name, hits: kw, weight: this.options.weights.keyword },
        { name: this.vector.name, hits: vec, weight: this.options.weights.vector },
      ],
      { k: this.options.rrfK },
    ).slice(0, k);
  }
}

import { isZeroVector } from '../indexing/embedders/vector-math.js';
import type { Chunk, ChunkFilter, Embedder, Hit, Searcher } from '../types.js';
import { isActiveFilter, matchesFilter } from './chunk-filter.js';

/** The part of a vector index the searcher needs (FAISS or the JS flat index). */
export interface SearchableVectors {
  readonly size: number;
  search(query: Float32Array, k: number): { ids: number[]; scores: number[] } | Promise<{ ids: number[]; scores: number[] }>;
}

/**
 * Nearest neighbours by inner product over normalised vectors (cosine). Filters are applied after
 * the search, so it over-fetches (4×k, doubling up to the whole index) until k hits pass the filter.
 */
export class VectorSearcher implements Searcher {
  readonly name = 'vector';
  constructor(
    private readonly embedder: Embedder,
    private readonly index: SearchableVectors,
    /** Row → chunk (the order of ids.json): an array, or a lookup that reads the chunk when a hit needs it. */
    private readonly rows: readonly Chunk[] | ((row: number) => Chunk | undefined),
  ) {}

  async search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    if (k <= 0 || this.index.size === 0 || query.trim() === '') return [];
    const q = await this.embedder.embedQuery(query);
    // A query with no known feature has no direction; every cosine would be 0 and the order arbitrary.
    if (isZeroVector(q)) return [];
    const filtered = isActiveFilter(filter);
    let fetch = Math.min(this.index.size, filtered ? k * 4 : k);
    for (;;) {
      const { ids, scores } = await this.index.search(q, fetch);
      const hits: Hit[] = [];
      for (let i = 0; i < ids.length && hits.length < k; i++) {
        const row = ids[i]!;
        const chunk = typeof this.rows === 'function' ? this.rows(row) : this.rows[row];
        if (!chunk || !matchesFilter(chunk, filter)) continue;
        hits.push({ chunk, score: scores[i]! });
      }
      if (hits.length >= k || fetch >= this.index.size) return hits;
      fetch = Math.min(this.index.size, fetch * 2);
    }
  }
}

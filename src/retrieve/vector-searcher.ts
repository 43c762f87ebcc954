import { boundedCache, type BoundedCache } from '../bounded-cache.js';
import { isZeroVector } from '../indexing/embedders/vector-math.js';
import type { Chunk, ChunkFilter, Embedder, Hit, Searcher } from '../types.js';
import { isActiveFilter, matchesFilter } from './chunk-filter.js';

/** The part of a vector index the searcher needs (FAISS or the JS flat index). */
export interface SearchableVectors {
  readonly size: number;
  search(query: Float32Array, k: number): { ids: number[]; scores: number[] } | Promise<{ ids: number[]; scores: number[] }>;
  /** Several queries at once, where the index does that in one pass (`VectorIndex.searchMany`). */
  searchMany?(
    queries: readonly Float32Array[],
    k: number,
  ): { ids: number[]; scores: number[] }[] | Promise<{ ids: number[]; scores: number[] }[]>;
}

/**
 * Nearest neighbours by inner product over normalised vectors (cosine). Filters are applied after
 * the search, so it over-fetches (4×k, doubling up to the whole index) until k hits pass the filter.
 */
export class VectorSearcher implements Searcher {
  readonly name = 'vector';
  /**
   * Neighbours found per query text and depth, when `options.remember` allows: a batch of questions in several
   * modes searches the same texts to the same depth again (eval's vector mode, then its hybrid), and the index does
   * not change while open.
   */
  private readonly found: BoundedCache<string, { ids: number[]; scores: number[] } | null> | null;

  constructor(
    private readonly embedder: Embedder,
    private readonly index: SearchableVectors,
    /** Row → chunk (the order of ids.json): an array, or a lookup that reads the chunk when a hit needs it. */
    private readonly rows: readonly Chunk[] | ((row: number) => Chunk | undefined),
    /** Searches remembered by query text and depth (default 0: none). */
    options: { remember?: number } = {},
  ) {
    const remember = options.remember ?? 0;
    this.found = remember > 0 ? boundedCache(remember) : null;
  }

  async search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    if (k <= 0 || this.index.size === 0 || query.trim() === '') return [];
    const filtered = isActiveFilter(filter);
    let fetch = Math.min(this.index.size, filtered ? k * 4 : k);
    for (;;) {
      const neighbours = await this.neighbours(query, fetch);
      // A query with no known feature has no direction; every cosine would be 0 and the order arbitrary.
      if (!neighbours) return [];
      const hits = this.hitsOf(neighbours, k, filter);
      if (hits.length >= k || fetch >= this.index.size) return hits;
      fetch = Math.min(this.index.size, fetch * 2);
    }
  }

  /**
   * `search` for each query, the unfiltered ones in one call to the index where it has `searchMany` (the offline
   * answerer's stem and options: one pass over a flat index instead of one per query).
   */
  async searchMany(queries: readonly string[], k: number, filter?: ChunkFilter): Promise<Hit[][]> {
    const batch = this.index.searchMany?.bind(this.index);
    if (!batch || isActiveFilter(filter) || queries.length < 2) {
      const out: Hit[][] = [];
      for (const q of queries) out.push(await this.search(q, k, filter));
      return out;
    }
    if (k <= 0 || this.index.size === 0) return queries.map(() => []);
    const fetch = Math.min(this.index.size, k);
    const found: ({ ids: number[]; scores: number[] } | null | undefined)[] = [];
    const asked: { at: number; key: string; vector: Float32Array }[] = [];
    for (const [at, query] of queries.entries()) {
      if (query.trim() === '') {
        found.push(null);
        continue;
      }
      const key = `${fetch}\u0000${query}`;
      const known = this.found?.get(key);
      if (known !== undefined) {
        found.push(known);
        continue;
      }
      const vector = await this.embedder.embedQuery(query);
      found.push(isZeroVector(vector) ? null : undefined);
      if (isZeroVector(vector)) this.found?.set(key, null);
      else asked.push({ at, key, vector });
    }
    if (asked.length > 0) {
      const results = await batch(
        asked.map((a) => a.vector),
        fetch,
      );
      asked.forEach((a, i) => {
        found[a.at] = results[i]!;
        this.found?.set(a.key, results[i]!);
      });
    }
    const out: Hit[][] = [];
    for (const [at, neighbours] of found.entries()) {
      const hits = neighbours ? this.hitsOf(neighbours, k) : [];
      // Rows without a chunk left fewer than k: the one-by-one search fetches deeper.
      out.push(neighbours && hits.length < k && fetch < this.index.size ? await this.search(queries[at]!, k) : hits);
    }
    return out;
  }

  /** The first k neighbours whose chunks pass the filter, as hits. */
  private hitsOf({ ids, scores }: { ids: number[]; scores: number[] }, k: number, filter?: ChunkFilter): Hit[] {
    const hits: Hit[] = [];
    for (let i = 0; i < ids.length && hits.length < k; i++) {
      const row = ids[i]!;
      const chunk = typeof this.rows === 'function' ? this.rows(row) : this.rows[row];
      if (!chunk || !matchesFilter(chunk, filter)) continue;
      hits.push({ chunk, score: scores[i]! });
    }
    return hits;
  }

  /** The index's `fetch` nearest rows to the query's embedding; null when the embedding is all zeros. */
  private async neighbours(query: string, fetch: number): Promise<{ ids: number[]; scores: number[] } | null> {
    const key = `${fetch}\u0000${query}`;
    const known = this.found?.get(key);
    if (known !== undefined) return known;
    const q = await this.embedder.embedQuery(query);
    const result = isZeroVector(q) ? null : await this.index.search(q, fetch);
    this.found?.set(key, result);
    return result;
  }
}

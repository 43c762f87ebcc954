import type { FtsIndex } from '../indexing/fts-index.js';
import type { ChunkFilter, Hit, Searcher } from '../types.js';

/** BM25 over the FTS5 index; filters run inside the SQL query. */
export class KeywordSearcher implements Searcher {
  readonly name = 'keyword';
  constructor(private readonly fts: FtsIndex) {}

  search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    return Promise.resolve(this.fts.search(query, k, filter));
  }
}

import type { FtsIndex } from '../indexing/fts-index.js';
import type { FtsRankThread } from '../indexing/fts-rank-thread.js';
import type { ChunkFilter, Hit, Searcher } from '../types.js';

/** BM25 over the FTS5 index; filters run inside the SQL query. */
export class KeywordSearcher implements Searcher {
  readonly name = 'keyword';
  constructor(private readonly fts: FtsIndex) {}

  search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    return Promise.resolve(this.fts.search(query, k, filter));
  }
}

/**
 * BM25 as `KeywordSearcher` gives it, ranked on a worker thread (fts-rank-thread.ts). The query terms are chosen and
 * posted before `search` returns its promise, so a caller that then runs other work on this thread (the hybrid's
 * vector scan) overlaps the two; the rows come back to this thread's index for their chunks. Until the thread is
 * ready (`thread()` null), queries are ranked on this thread, with the same result.
 */
export class ThreadedKeywordSearcher implements Searcher {
  readonly name = 'keyword';
  constructor(
    private readonly fts: FtsIndex,
    private readonly thread: () => FtsRankThread | null,
  ) {}

  search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    if (k <= 0) return Promise.resolve([]);
    const thread = this.thread();
    if (!thread) return Promise.resolve(this.fts.search(query, k, filter));
    return thread.rank(this.fts.queryTerms(query), this.fts.rankDepth(k), filter).then((rows) => this.fts.hitsFor(query, rows, k));
  }
}

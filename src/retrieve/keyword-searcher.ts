import type { FtsIndex } from '../indexing/fts-index.js';
import type { FtsRankThread } from '../indexing/fts-rank-thread.js';
import { IndexThreadStopped } from '../indexing/index-thread-stopped.js';
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
 * vector scan) overlaps the two; the rows come back to this thread's index for their chunks. A thread still starting
 * takes the query into its queue; one that could not start, or has stopped since, leaves the query to be ranked on
 * this thread, with the same result.
 */
export class ThreadedKeywordSearcher implements Searcher {
  readonly name = 'keyword';
  constructor(
    private readonly fts: FtsIndex,
    /** An open thread, or one started without waiting (`startFtsRankThread`). */
    private readonly thread: FtsRankThread,
  ) {}

  search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    if (k <= 0) return Promise.resolve([]);
    const body = { terms: this.fts.queryTerms(query), k: this.fts.rankDepth(k), ...(filter ? { filter } : {}) };
    return this.thread.request(body).then(
      (rows) => this.fts.hitsFor(query, rows, k),
      (error: unknown) => {
        // The thread is gone (it could not open, or exited): this thread ranks. A ranking that failed is an error.
        if (error instanceof IndexThreadStopped) return this.fts.search(query, k, filter);
        throw error;
      },
    );
  }
}

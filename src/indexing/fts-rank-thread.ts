/**
 * The keyword index's ranking (`createFtsRanker`) on a worker thread with its own read-only SQLite connection
 * (`index-thread.ts`). A hybrid search over an index without the postings file posts its keyword query here and runs
 * the vector scan (FAISS, which can only be used from the thread that loaded it) meanwhile, so it costs about the
 * slower of the two rather than their sum. Query terms are chosen on the calling thread (the analyzer stays there);
 * the thread returns rows and scores, exactly what the same ranking in-process returns.
 */
import type { ChunkFilter } from '../types.js';
import type { FtsRankerOptions, RankedRow } from './fts-ranker.js';
import type { QueryTerm } from './fts-query.js';
import {
  openIndexThread,
  prestartIndexThread,
  type IndexThread,
  type IndexThreadSpec,
  type PrestartedIndexThread,
  type StartingIndexThread,
} from './index-thread.js';

/** One ranking: the best `k` rows for the terms, under the filter. */
export interface FtsRankBody {
  terms: QueryTerm[];
  k: number;
  filter?: ChunkFilter;
}

/** `createFtsRanker` served by a thread; `close` ends it. */
export type FtsRankThread = IndexThread<FtsRankBody, RankedRow[]>;
/** A keyword ranking thread started without waiting for it. */
export type StartingFtsRankThread = StartingIndexThread<FtsRankBody, RankedRow[]>;
/** A keyword ranking thread started before the caller opened the index; `start` hands it the ranking settings. */
export type PrestartedFtsRankThread = PrestartedIndexThread<FtsRankerOptions, FtsRankBody, RankedRow[]>;

const spec = (file: string): IndexThreadSpec<{ file: string }> => ({
  worker: new URL('./fts-rank-worker.js', import.meta.url),
  data: { file },
  names: { task: 'keyword search', index: 'keyword index' },
});

/** Starts the thread and resolves once its connection is open; it keeps the process alive only while ranking. */
export function openFtsRankThread(file: string, options: FtsRankerOptions, generation: string | null = null): Promise<FtsRankThread> {
  return openIndexThread(spec(file), options, generation);
}

/**
 * Starts a thread on `file` now, to be given its settings later: a worker takes longer to load (its own Node
 * internals, better-sqlite3, the connection) than the ranking it then does, so a one-shot ask starts it before
 * loading the answerer (150 ms of a library ask on 2 cores) rather than after opening the index. It does not keep
 * the process alive.
 */
export function prestartFtsRankThread(file: string): PrestartedFtsRankThread {
  return prestartIndexThread(spec(file));
}

/**
 * Starts the thread without waiting for it. A one-shot `ask` would otherwise sit idle for the 45–55 ms a worker takes
 * to load and open its connection (measured on the law library, 2 cores); instead its first queries are posted at
 * once and ranked there while this thread scans the vectors. Until a request is pending, the thread does not keep the
 * process alive.
 */
export function startFtsRankThread(file: string, options: FtsRankerOptions, generation: string | null = null): StartingFtsRankThread {
  return prestartFtsRankThread(file).start(options, generation);
}

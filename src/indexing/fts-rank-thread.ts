/**
 * The keyword index's ranking (`createFtsRanker`) on a worker thread with its own read-only SQLite connection. A
 * hybrid search posts its keyword query here and runs the vector scan (FAISS, which can only be used from the thread
 * that loaded it) meanwhile, so it costs about the slower of the two rather than their sum. Query terms are chosen
 * on the calling thread (the analyzer stays there); the thread returns rows and scores, exactly what the same
 * ranking in-process returns.
 */
import { Worker } from 'node:worker_threads';
import type { ChunkFilter } from '../types.js';
import type { FtsRankerOptions, RankedRow } from './fts-ranker.js';
import type { QueryTerm } from './fts-query.js';

/** What the thread is told at start. */
export interface FtsRankThreadData {
  file: string;
  options: FtsRankerOptions;
}

/** A request to the thread. */
export interface FtsRankRequest {
  id: number;
  terms: QueryTerm[];
  k: number;
  filter?: ChunkFilter;
}

/** Replies from the thread. */
export type FtsRankReply =
  | { type: 'ready' }
  | { type: 'open-failed'; message: string }
  | { type: 'ranked'; id: number; rows: RankedRow[] }
  | { type: 'failed'; id: number; message: string };

/** `createFtsRanker` served by a thread; `close` ends it. */
export interface FtsRankThread {
  rank(terms: readonly QueryTerm[], k: number, filter?: ChunkFilter): Promise<RankedRow[]>;
  close(): Promise<void>;
}

/** A keyword ranking thread started without waiting for it (`startFtsRankThread`). */
export interface StartingFtsRankThread {
  /** The thread once its connection is open; null before that, or when it failed to open. */
  current(): FtsRankThread | null;
  /** Settles when the thread is ready (true) or could not open (false); never rejects. */
  readonly settled: Promise<boolean>;
  /** Ends the thread, ready or not. */
  close(): Promise<void>;
}

/**
 * Starts the thread and resolves once its connection is open. The thread does not keep the process alive while no
 * ranking is pending, so a caller that never closes it still exits.
 */
export function openFtsRankThread(file: string, options: FtsRankerOptions): Promise<FtsRankThread> {
  return spawnRankThread(file, options, true).ready;
}

/**
 * Starts the thread without waiting for it: a one-shot `ask` would otherwise sit idle for the 45–55 ms a worker takes
 * to load and open its connection (measured on the law library, 2 cores), while ranking its first queries on the
 * calling thread costs less. Until it is ready, the thread does not keep the process alive.
 */
export function startFtsRankThread(file: string, options: FtsRankerOptions): StartingFtsRankThread {
  const { worker, ready } = spawnRankThread(file, options, false);
  let thread: FtsRankThread | null = null;
  let closed = false;
  const settled = ready.then(
    (t) => {
      if (closed) {
        void t.close();
        return false;
      }
      thread = t;
      return true;
    },
    () => false,
  );
  return {
    current: () => thread,
    settled,
    async close() {
      closed = true;
      if (thread) await thread.close();
      else {
        worker.removeAllListeners('exit');
        await worker.terminate();
      }
    },
  };
}

function spawnRankThread(
  file: string,
  options: FtsRankerOptions,
  holdUntilReady: boolean,
): { worker: Worker; ready: Promise<FtsRankThread> } {
  const data: FtsRankThreadData = { file, options };
  const worker = new Worker(new URL('./fts-rank-worker.js', import.meta.url), { workerData: data });
  if (!holdUntilReady) worker.unref();
  const pending = new Map<number, { resolve: (rows: RankedRow[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  const failAll = (error: Error): void => {
    failure = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const ready = new Promise<FtsRankThread>((resolve, reject) => {
    let opened = false;
    worker.on('error', (error) => (opened ? failAll(error) : reject(error)));
    worker.on('exit', (code) => {
      const error = new Error(`the keyword search thread exited (code ${code})`);
      if (opened) failAll(error);
      else reject(error);
    });
    worker.on('message', (reply: FtsRankReply) => {
      if (reply.type === 'open-failed') {
        void worker.terminate();
        reject(new Error(`${file}: the keyword search thread could not open the index: ${reply.message}`));
        return;
      }
      if (reply.type === 'ready') {
        opened = true;
        worker.unref();
        resolve({
          rank(terms, k, filter) {
            if (failure) return Promise.reject(failure);
            const id = nextId++;
            return new Promise<RankedRow[]>((res, rej) => {
              pending.set(id, { resolve: res, reject: rej });
              // Keeps the process alive only while a ranking is pending (unref'd again when the last one settles).
              if (pending.size === 1) worker.ref();
              worker.postMessage({ id, terms: [...terms], k, ...(filter ? { filter } : {}) } satisfies FtsRankRequest);
            });
          },
          async close() {
            worker.removeAllListeners('exit');
            failAll(new Error('the keyword index was closed'));
            await worker.terminate();
          },
        });
        return;
      }
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      if (reply.type === 'ranked') p.resolve(reply.rows);
      else p.reject(new Error(`keyword search failed: ${reply.message}`));
    });
  });
  return { worker, ready };
}

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
import { workerExecArgv } from '../worker-exec-argv.js';

/** What the thread is told at start: only the file, so it can be started before the caller has opened the index. */
export interface FtsRankThreadData {
  file: string;
}

/**
 * Messages to the thread: first `configure`, with what ranking needs and the generation (`fileGeneration`) of the
 * file the caller opened, so the thread never ranks another build's rows; then rankings.
 */
export type FtsRankRequest =
  | { type: 'configure'; options: FtsRankerOptions; generation: string | null }
  | { type: 'rank'; id: number; terms: QueryTerm[]; k: number; filter?: ChunkFilter };

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

/**
 * A keyword ranking thread started without waiting for it (`startFtsRankThread`). `rank` works at once: a request
 * made while the thread is starting waits in its queue and is ranked as soon as its connection is open, and is
 * rejected if the thread cannot open it (then `settled` is false).
 */
export interface StartingFtsRankThread extends FtsRankThread {
  /** The thread once its connection is open; null before that, or when it failed to open. */
  current(): FtsRankThread | null;
  /** Settles when the thread is ready (true) or could not open (false); never rejects. */
  readonly settled: Promise<boolean>;
}

/**
 * A thread started on a keyword index file before the caller knows how it will rank (`prestartFtsRankThread`): it
 * loads its modules and opens its connection meanwhile. `start` hands it the ranking settings; `close` ends it unused.
 */
export interface PrestartedFtsRankThread {
  readonly file: string;
  /** The thread with its ranking settings; `generation` is the opened file's (`fileGeneration`), null to skip the check. */
  start(options: FtsRankerOptions, generation: string | null): StartingFtsRankThread;
  close(): Promise<void>;
}

/**
 * Starts the thread and resolves once its connection is open. The thread does not keep the process alive while no
 * ranking is pending, so a caller that never closes it still exits.
 */
export async function openFtsRankThread(file: string, options: FtsRankerOptions, generation: string | null = null): Promise<FtsRankThread> {
  const thread = spawnRankThread(file, true);
  thread.configure(options, generation);
  await thread.ready;
  return thread;
}

/**
 * Starts a thread on `file` now, to be given its settings later: a worker takes longer to load (its own Node
 * internals, better-sqlite3, the connection) than the ranking it then does, so a one-shot ask starts it before
 * loading the answerer (150 ms of a library ask on 2 cores) rather than after opening the index. It does not keep
 * the process alive.
 */
export function prestartFtsRankThread(file: string): PrestartedFtsRankThread {
  const thread = spawnRankThread(file, false);
  let started: StartingFtsRankThread | null = null;
  return {
    file,
    start(options, generation) {
      if (started) throw new Error(`${file}: the keyword search thread was started already`);
      thread.configure(options, generation);
      started = starting(thread);
      return started;
    },
    close: () => thread.close(),
  };
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

/** The `StartingFtsRankThread` view of a configured thread. */
function starting(thread: SpawnedRankThread): StartingFtsRankThread {
  let opened = false;
  const settled = thread.ready.then(
    () => (opened = true),
    () => false,
  );
  return {
    rank: (terms, k, filter) => thread.rank(terms, k, filter),
    close: () => thread.close(),
    current: () => (opened ? thread : null),
    settled,
  };
}

/** A spawned thread: `configure` once, then rank; `ready` settles once it has opened and taken its settings. */
interface SpawnedRankThread extends FtsRankThread {
  readonly ready: Promise<void>;
  configure(options: FtsRankerOptions, generation: string | null): void;
}

/**
 * The thread and its request queue. Requests are posted as they come, before the thread is ready too: a worker's
 * port holds messages until the thread listens, and it answers them in order, after `configure`.
 */
function spawnRankThread(file: string, holdUntilReady: boolean): SpawnedRankThread {
  const data: FtsRankThreadData = { file };
  const worker = new Worker(new URL('./fts-rank-worker.js', import.meta.url), { workerData: data, execArgv: workerExecArgv() });
  if (!holdUntilReady) worker.unref();
  const pending = new Map<number, { resolve: (rows: RankedRow[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let opened = false;
  let failure: Error | null = null;
  // The first failure is the one every later request hears of (a thread that could not open then also exits).
  const failAll = (error: Error): void => {
    failure ??= error;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  // Keeps the process alive only while a ranking is pending (or, when asked, until the thread is ready).
  const holdWhilePending = (): void => {
    if (pending.size > 0 || (holdUntilReady && !opened && !failure)) worker.ref();
    else worker.unref();
  };
  let rejectReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    rejectReady = reject;
    const fail = (error: Error): void => {
      failAll(error);
      if (!opened) reject(error);
      holdWhilePending();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the keyword search thread exited (code ${code})`)));
    worker.on('message', (reply: FtsRankReply) => {
      if (reply.type === 'open-failed') {
        fail(new Error(`${file}: the keyword search thread could not open the index: ${reply.message}`));
        void worker.terminate();
        return;
      }
      if (reply.type === 'ready') {
        opened = true;
        holdWhilePending();
        resolve();
        return;
      }
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      holdWhilePending();
      if (reply.type === 'ranked') p.resolve(reply.rows);
      else p.reject(new Error(`keyword search failed: ${reply.message}`));
    });
  });
  // Awaited by whoever needs readiness; a failure to open also rejects every request, which their callers handle.
  ready.catch(() => undefined);
  let configured = false;
  return {
    ready,
    configure(options, generation) {
      if (configured) throw new Error(`${file}: the keyword search thread was configured already`);
      configured = true;
      worker.postMessage({ type: 'configure', options, generation } satisfies FtsRankRequest);
    },
    rank(terms, k, filter) {
      if (failure) return Promise.reject(failure);
      if (!configured) return Promise.reject(new Error(`${file}: the keyword search thread ranks only once configured`));
      const id = nextId++;
      return new Promise<RankedRow[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        holdWhilePending();
        worker.postMessage({ type: 'rank', id, terms: [...terms], k, ...(filter ? { filter } : {}) } satisfies FtsRankRequest);
      });
    },
    async close() {
      worker.removeAllListeners('exit');
      failAll(new Error('the keyword index was closed'));
      // Closed before it was ready: whoever waits for readiness hears now rather than never.
      if (!opened) rejectReady(failure ?? new Error('the keyword index was closed'));
      await worker.terminate();
    },
  };
}

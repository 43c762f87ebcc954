import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { AnswerMode, AnswerResult } from '../answer/answer-types.js';
import { NotReadyError, UsageError, UserError, type ExitCodeValue } from '../errors.js';
import type { Chunk } from '../types.js';
import type { EvalEngine, EvalEngineOptions } from './eval-engine.js';
import type { EvalRow } from './eval-types.js';
import { startWorker } from '../start-worker.js';

/**
 * A pool of worker threads for offline `eval`: one per core, each with its own retriever (SQLite handle,
 * vector index, embedder) and its own memoised analyzer, answering rows with the same `answerQuestion` that
 * `ask` uses. It is an `EvalEngine`, so `runEval` feeds it exactly as it feeds the in-process engine and the
 * predictions are the same; only the wall time changes. The LLM answerer does not need it (its time is spent
 * waiting on the network, which the in-process engine already overlaps).
 */

/** Below this many answers the pool's start-up (each worker opens the index) costs more than it saves. */
export const POOL_MIN_ANSWERS = 40;

/** What a worker needs to open its engine; plain data, copied to the thread. */
export interface EvalWorkerData {
  root: string;
  config: EvalEngineOptions['config'];
  topK: number;
}

/** Messages between the pool and a worker. */
export type EvalWorkerRequest = { type: 'answer'; id: number; row: EvalRow; mode: AnswerMode } | { type: 'close' };
export type SerializedError = { name: string; message: string; exitCode?: ExitCodeValue };
export type EvalWorkerReply =
  | { type: 'ready'; embedderId: string }
  | { type: 'open-failed'; error: SerializedError }
  | { type: 'answer'; id: number; result: AnswerResult; chunks: Chunk[] }
  | { type: 'failed'; id: number; error: SerializedError };

/** Workers for a pool: `requested`, else one per available core (at most 8), never more than the answers to give. */
export function evalWorkerCount(answers: number, requested?: number): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const want = requested ?? Math.min(cores, 8);
  if (answers < POOL_MIN_ANSWERS && requested === undefined) return 1;
  return Math.max(1, Math.min(want, answers));
}

/** Rebuilds a typed error from a worker, so exit codes and `instanceof` checks behave as in-process. */
export function reviveError(e: SerializedError): Error {
  if (e.name === 'NotReadyError') return new NotReadyError(e.message);
  if (e.name === 'UsageError') return new UsageError(e.message);
  if (e.name === 'UserError') return new UserError(e.message, e.exitCode);
  const error = new Error(e.message);
  error.name = e.name;
  return error;
}

/** Rows in flight by which a row's own thread may exceed the least busy one before the row goes elsewhere. */
const AFFINITY_SLACK = 2;

/** How long `close()` lets a worker close its index and exit before it is terminated. */
const CLOSE_GRACE_MS = 2000;

interface PoolWorker {
  worker: Worker;
  busy: number;
  /** Settles once the thread has exited. */
  exited: Promise<void>;
}

/** Options of `openEvalPool` beyond the engine's. */
export interface EvalPoolOptions extends EvalEngineOptions {
  workers: number;
  /** Called with each worker thread once it is ready (a test uses it to end one in the middle of a run). */
  onWorker?: (worker: Worker) => void;
}

/**
 * Opens `workers` threads (each opens the index; the first failure is thrown, e.g. NotReadyError without an
 * index) and returns an engine that sends each row to the least busy thread, or back to the thread that answered it
 * in an earlier mode. A thread that dies (an uncaught error, an exit) leaves the pool: the rows it held fail with a
 * one-line error, new rows go to the threads left, and once none is left every row fails at once, so a run never
 * waits on a thread that is gone.
 */
export async function openEvalPool(options: EvalPoolOptions): Promise<EvalEngine> {
  if (options.answerer !== 'offline' || !options.retrieval)
    throw new Error('openEvalPool: only the offline answerer with retrieval runs in a pool');
  const data: EvalWorkerData = { root: options.root, config: options.config, topK: options.topK };
  const url = new URL('./eval-pool-worker.js', import.meta.url);
  const pending = new Map<number, { resolve: (r: AnswerResult) => void; reject: (e: Error) => void; worker: PoolWorker }>();
  const chunks = new Map<string, Chunk>();
  const pool: PoolWorker[] = [];
  const homes = new Map<string, PoolWorker>();
  let nextId = 0;
  let closed = false;
  let lastDeath: string | null = null;

  /** Takes a dead thread out of the pool and fails the rows it held. */
  const remove = (entry: PoolWorker, why: string): void => {
    const at = pool.indexOf(entry);
    // An uncaught error is followed by the exit: the first says why.
    if (at < 0) return;
    pool.splice(at, 1);
    for (const [id, home] of homes) if (home === entry) homes.delete(id);
    let held = 0;
    for (const p of pending.values()) if (p.worker === entry) held++;
    lastDeath = `an eval worker thread ${why}`;
    const error = new UserError(
      `${lastDeath} with ${held} question${held === 1 ? '' : 's'} in flight; ${pool.length} of ${options.workers} left`,
    );
    for (const [id, p] of pending) {
      if (p.worker !== entry) continue;
      pending.delete(id);
      p.reject(error);
    }
  };

  const start = (): Promise<{ worker: PoolWorker; embedderId: string }> =>
    new Promise((resolve, reject) => {
      const worker = startWorker(url, { workerData: data });
      const entry: PoolWorker = { worker, busy: 0, exited: new Promise((done) => worker.once('exit', () => done())) };
      let ready = false;
      worker.on('message', (reply: EvalWorkerReply) => {
        if (reply.type === 'ready') {
          ready = true;
          options.onWorker?.(worker);
          resolve({ worker: entry, embedderId: reply.embedderId });
        } else if (reply.type === 'open-failed') {
          reject(reviveError(reply.error));
        } else {
          const p = pending.get(reply.id);
          if (!p) return;
          pending.delete(reply.id);
          p.worker.busy--;
          if (reply.type === 'answer') {
            for (const c of reply.chunks) chunks.set(c.chunk_id, c);
            p.resolve(reply.result);
          } else p.reject(reviveError(reply.error));
        }
      });
      worker.on('error', (error) => {
        if (!ready) reject(error);
        else remove(entry, `failed (${error.message})`);
      });
      worker.on('exit', (code) => {
        if (closed) return;
        if (!ready) reject(new Error(`eval worker exited with code ${code} while opening the index`));
        else remove(entry, `stopped (exit code ${code})`);
      });
    });

  const started = await Promise.allSettled(Array.from({ length: Math.max(1, options.workers) }, () => start()));
  for (const s of started) if (s.status === 'fulfilled') pool.push(s.value.worker);
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    closed = true;
    await Promise.all(pool.map((p) => p.worker.terminate()));
    throw failure.reason instanceof Error ? failure.reason : new Error(String(failure.reason));
  }
  const embedderId = (started[0] as PromiseFulfilledResult<{ embedderId: string }>).value.embedderId;

  return {
    embedderId,
    answer(row, mode) {
      if (closed) return Promise.reject(new Error('the eval pool is closed'));
      if (pool.length === 0) return Promise.reject(new UserError(`${lastDeath ?? 'every eval worker thread stopped'}; no worker is left`));
      // A row goes back to the thread that answered it in an earlier mode, whose caches (the row's segmentation, the
      // keyword rankings of its queries) already hold it, unless that thread is well behind the least busy one.
      const least = pool.reduce((a, b) => (b.busy < a.busy ? b : a));
      const home = homes.get(row.id);
      const target = home && home.busy <= least.busy + AFFINITY_SLACK ? home : least;
      if (!home) homes.set(row.id, target);
      const id = nextId++;
      target.busy++;
      return new Promise<AnswerResult>((resolve, reject) => {
        pending.set(id, { resolve, reject, worker: target });
        target.worker.postMessage({ type: 'answer', id, row, mode } satisfies EvalWorkerRequest);
      });
    },
    chunk: (id) => chunks.get(id),
    async close() {
      if (closed) return;
      closed = true;
      // Each worker closes its SQLite handle and exits once its message port closes; one that does not is terminated.
      await Promise.all(
        pool.map(async (p) => {
          p.worker.postMessage({ type: 'close' } satisfies EvalWorkerRequest);
          const timer = setTimeout(() => void p.worker.terminate(), CLOSE_GRACE_MS);
          await p.exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}

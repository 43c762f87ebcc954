/**
 * A worker thread that does one job and posts one reply: the job's value, or its error with the error's code (so a
 * full disk on the thread is still recognised as one). The keyword index writer and jieba's lookup table run this way.
 */
import { parentPort } from 'node:worker_threads';
import { startWorker } from './start-worker.js';

/** The one message a task's thread posts. */
type TaskReply<T> = { value: T } | { error: { message: string; code?: string | undefined } };

/** A task under way: `result` settles with the job's value or rejects with its error; `stop` ends the thread. */
export interface WorkerTask<T> {
  readonly result: Promise<T>;
  stop(): void;
}

/**
 * Starts the thread at `url` (whose entry calls `replyFromWorker`) with `workerData`. A thread that fails or stops
 * without replying rejects `result` (naming it as `what`), as its error does. `result` is marked handled, so a caller may await it later
 * without an unhandled rejection meanwhile.
 */
export function startWorkerTask<T>(url: URL, workerData: unknown, what: string): WorkerTask<T> {
  const worker = startWorker(url, { workerData });
  let finished = false;
  const result = new Promise<T>((resolve, reject) => {
    const fail = (error: Error): void => {
      if (finished) return;
      finished = true;
      void worker.terminate();
      reject(error);
    };
    worker.on('message', (reply: TaskReply<T>) => {
      if ('error' in reply) fail(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
      else if (!finished) {
        finished = true;
        resolve(reply.value);
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${what} stopped (exit ${code})`)));
  });
  result.catch(() => undefined);
  return {
    result,
    stop() {
      finished = true;
      void worker.terminate();
    },
  };
}

/** The thread's side: runs `job` and posts its value, or the error it threw. */
export function replyFromWorker<T>(job: () => T): void {
  let reply: TaskReply<T>;
  try {
    reply = { value: job() };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    reply = {
      error: { message: error instanceof Error ? error.message : String(error), code: typeof code === 'string' ? code : undefined },
    };
  }
  parentPort?.postMessage(reply);
}

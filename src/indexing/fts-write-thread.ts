/**
 * The keyword index's writer (`writeFtsIndex`) on a worker thread, so that ingest fits the embedder on its own thread
 * meanwhile instead of after it. The thread builds its analyzer from the same configuration
 * (`analyzerFromConfig(root, config, { wholeCorpus: true })`) and refuses to write when its fingerprint differs from
 * the caller's, so its tokens are those the caller's analyzer gives. It reads the chunks row by row from their
 * JSON-lines file rather than receive a copy of them (a copy raised the law library's ingest peak from 858 to 898 MB,
 * as it is held while the fit is at its peak), and sends back the ids it read, which the caller checks against its
 * own chunks; the file it writes is the one `writeFtsIndex` writes on the calling thread.
 */
import { Worker } from 'node:worker_threads';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { workerExecArgv } from '../worker-exec-argv.js';

/** What the thread is given. */
export interface FtsWriteThreadData {
  file: string;
  /** The chunks in index order, one JSON object per line (ingest's staged `data/chunks.jsonl`). */
  chunksFile: string;
  root: string;
  config: ExamCopilotConfig;
  /** The caller's analyzer fingerprint, which the thread's analyzer must have. */
  analyzer: string;
}

/** Messages from the thread. */
export type FtsWriteReply = { type: 'written'; ids: string[] } | { type: 'failed'; message: string; code?: string | undefined };

/**
 * A write under way: `ids` settles with the chunk ids of the rows written, in order, or rejects with the thread's
 * error; `stop` ends it.
 */
export interface FtsWriteThread {
  readonly ids: Promise<string[]>;
  stop(): void;
}

/**
 * Starts writing `data.file` on a worker thread. It reports no progress row by row: the caller's own stage (the fit)
 * is what a progress line shows meanwhile.
 */
export function startFtsWriteThread(data: FtsWriteThreadData): FtsWriteThread {
  const worker = new Worker(new URL('./fts-write-worker.js', import.meta.url), { workerData: data, execArgv: workerExecArgv() });
  let finished = false;
  const ids = new Promise<string[]>((resolve, reject) => {
    const fail = (error: Error): void => {
      if (finished) return;
      finished = true;
      void worker.terminate();
      reject(error);
    };
    worker.on('message', (reply: FtsWriteReply) => {
      if (reply.type === 'failed') fail(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
      else if (!finished) {
        finished = true;
        resolve(reply.ids);
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the keyword index thread stopped (exit ${code})`)));
  });
  // Awaited by the caller once its own work is done; a failure meanwhile must not go unhandled.
  ids.catch(() => undefined);
  return {
    ids,
    stop() {
      finished = true;
      void worker.terminate();
    },
  };
}

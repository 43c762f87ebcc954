/**
 * The keyword index's writer (`writeFtsIndex`) on a worker thread, so that ingest fits the embedder on its own thread
 * meanwhile instead of after it. The thread builds its analyzer from the same configuration
 * (`analyzerFromConfig(root, config, { wholeCorpus: true })`) and refuses to write when its fingerprint differs from
 * the caller's, so its tokens are those the caller's analyzer gives. It reads the chunks row by row from their
 * JSON-lines file rather than receive a copy of them (a copy raised the law library's ingest peak from 858 to 898 MB,
 * as it is held while the fit is at its peak), and sends back the ids it read, which the caller checks against its
 * own chunks; the file it writes is the one `writeFtsIndex` writes on the calling thread.
 */
import type { ExamCopilotConfig } from '../config/load-config.js';
import { startWorkerTask, type WorkerTask } from '../worker-task.js';

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

/**
 * Starts writing `data.file` on a worker thread; its `result` is the chunk ids of the rows written, in order. It
 * reports no progress row by row: the caller's own stage (the fit) is what a progress line shows meanwhile.
 */
export function startFtsWriteThread(data: FtsWriteThreadData): WorkerTask<string[]> {
  return startWorkerTask<string[]>(new URL('./fts-write-worker.js', import.meta.url), data, 'the keyword index thread');
}

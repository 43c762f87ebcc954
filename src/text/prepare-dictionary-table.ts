import { Worker } from 'node:worker_threads';
import { errorMessage } from '../errors.js';
import type { Warning } from '../types.js';
import { workerExecArgv } from '../worker-exec-argv.js';

/**
 * Makes sure the root's jieba lookup table (`loadDictionaryTable`) is built and written, on a worker thread. Ingest
 * cuts its whole corpus with jieba's full dictionary and never reads the table; only later commands do. Building it
 * takes about 0.7 s, which on ingest's thread delayed the parse of a long PDF (its worker threads fill the cores);
 * ingest starts this once its own analyzer is loaded, while the sources are parsed. Resolves to the table's warnings
 * (an unreadable cache that was rebuilt, or a build that failed, after which queries load jieba's dictionary in full
 * as they would without a table).
 */
export function prepareDictionaryTable(cacheFile: string): Promise<Warning[]> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (warnings: Warning[]): void => {
      if (settled) return;
      settled = true;
      resolve(warnings);
    };
    const failed = (why: string): void =>
      settle([{ where: cacheFile, message: `segmenter dictionary cache not written (${why}); queries load jieba's dictionary in full` }]);
    let worker: Worker;
    try {
      worker = new Worker(new URL('./dictionary-table-worker.js', import.meta.url), {
        workerData: { cacheFile },
        execArgv: workerExecArgv(),
      });
    } catch (error) {
      failed(errorMessage(error).split('\n')[0] ?? 'no worker thread');
      return;
    }
    worker.once('message', (warnings: Warning[]) => settle(warnings));
    worker.once('error', (error) => failed(error.message.split('\n')[0] ?? 'worker failed'));
    worker.once('exit', (code) => failed(`its thread stopped (exit ${code})`));
  });
}

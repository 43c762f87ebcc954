import { errorMessage } from '../errors.js';
import type { Warning } from '../types.js';
import { startWorkerTask } from '../worker-task.js';

/**
 * Makes sure the root's jieba lookup table (`loadDictionaryTable`) is built and written, on a worker thread. Ingest
 * cuts its whole corpus with jieba's full dictionary and never reads the table; only later commands do. Building it
 * takes about 0.7 s, which on ingest's thread delayed the parse of a long PDF (its worker threads fill the cores);
 * ingest starts this once its own analyzer is loaded, while the sources are parsed. Resolves to the table's warnings
 * (an unreadable cache that was rebuilt, or a build that failed, after which queries load jieba's dictionary in full
 * as they would without a table).
 */
export function prepareDictionaryTable(cacheFile: string): Promise<Warning[]> {
  return startWorkerTask<Warning[]>(
    new URL('./dictionary-table-worker.js', import.meta.url),
    { cacheFile },
    'the jieba lookup table thread',
  ).result.catch((error: unknown) => [
    {
      where: cacheFile,
      message: `segmenter dictionary cache not written (${errorMessage(error).split('\n')[0] ?? 'the thread failed'}); queries load jieba's dictionary in full`,
    },
  ]);
}

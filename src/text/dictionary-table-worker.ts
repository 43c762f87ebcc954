/**
 * Worker-thread entry of `prepareDictionaryTable`: builds and writes the jieba lookup table for `workerData.cacheFile`
 * unless a current one is there, and replies with its warnings.
 */
import { workerData } from 'node:worker_threads';
import { replyFromWorker } from '../worker-task.js';
import { loadDictionaryTable } from './dictionary-cache.js';

const { cacheFile } = workerData as { cacheFile: string };
replyFromWorker(() => loadDictionaryTable(cacheFile, { write: true, release: true }).warnings);

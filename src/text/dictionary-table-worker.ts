/**
 * Worker-thread entry of `prepareDictionaryTable`: builds and writes the jieba lookup table for `workerData.cacheFile`
 * unless a current one is there, and posts back its warnings.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadDictionaryTable } from './dictionary-cache.js';

const { cacheFile } = workerData as { cacheFile: string };
parentPort?.postMessage(loadDictionaryTable(cacheFile, { write: true, release: true }).warnings);

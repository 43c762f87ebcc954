/** The thread behind `openFtsRankThread`: one read-only connection to the keyword index, ranking one query at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import { Database } from '../sqlite-database.js';
import { createFtsRanker } from './fts-ranker.js';
import type { FtsRankReply, FtsRankRequest, FtsRankThreadData } from './fts-rank-thread.js';

const port = parentPort;
if (!port) throw new Error('fts-rank-worker runs only as a worker thread');
const post = (reply: FtsRankReply): void => port.postMessage(reply);
const data = workerData as FtsRankThreadData;
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
try {
  const db = new Database(data.file, { readonly: true, fileMustExist: true });
  const rank = createFtsRanker(db, data.options);
  port.on('message', (request: FtsRankRequest) => {
    try {
      post({ type: 'ranked', id: request.id, rows: rank(request.terms, request.k, request.filter) });
    } catch (error) {
      post({ type: 'failed', id: request.id, message: message(error) });
    }
  });
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'open-failed', message: message(error) });
}

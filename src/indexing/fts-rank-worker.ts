/** The thread behind `openFtsRankThread`: one read-only connection to the keyword index, ranking one query at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import { Database, type SqliteDatabase } from '../sqlite-database.js';
import { fileGeneration } from '../store/index-generation.js';
import { createFtsRanker, type RankedRow } from './fts-ranker.js';
import type { FtsRankReply, FtsRankRequest, FtsRankThreadData } from './fts-rank-thread.js';

const port = parentPort;
if (!port) throw new Error('fts-rank-worker runs only as a worker thread');
const post = (reply: FtsRankReply): void => port.postMessage(reply);
const data = workerData as FtsRankThreadData;
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

// The connection is opened at once, before the caller has sent its settings (see `prestartFtsRankThread`). The file's
// generation is read on both sides of the open: when they agree, the connection is that build's.
let db: SqliteDatabase | null = null;
let generation: string | null = null;
let openError: string | null = null;
try {
  const before = fileGeneration(data.file);
  db = new Database(data.file, { readonly: true, fileMustExist: true });
  generation = fileGeneration(data.file) === before ? before : null;
} catch (error) {
  openError = message(error);
}

let rank: ((request: Extract<FtsRankRequest, { type: 'rank' }>) => RankedRow[]) | null = null;
port.on('message', (request: FtsRankRequest) => {
  if (request.type === 'configure') {
    if (!db) return post({ type: 'open-failed', message: openError ?? 'not opened' });
    if (request.generation !== null && request.generation !== generation) {
      // An ingest swapped a new index in between the two opens: this connection's rows are not the caller's.
      db.close();
      return post({ type: 'open-failed', message: 'the index was replaced while it was being opened' });
    }
    try {
      const ranker = createFtsRanker(db, request.options);
      rank = (r) => ranker(r.terms, r.k, r.filter);
    } catch (error) {
      return post({ type: 'open-failed', message: message(error) });
    }
    return post({ type: 'ready' });
  }
  if (!rank) return post({ type: 'failed', id: request.id, message: 'the thread has no open index' });
  try {
    post({ type: 'ranked', id: request.id, rows: rank(request) });
  } catch (error) {
    post({ type: 'failed', id: request.id, message: message(error) });
  }
});

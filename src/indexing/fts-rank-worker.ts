/** The thread behind `fts-rank-thread.ts`: one read-only connection to the keyword index, ranking one query at a time. */
import { Database, type SqliteDatabase } from '../sqlite-database.js';
import { fileGeneration } from '../store/index-generation.js';
import { createFtsRanker, type FtsRankerOptions, type RankedRow } from './fts-ranker.js';
import type { FtsRankBody } from './fts-rank-thread.js';
import { serveIndexThread } from './serve-index-thread.js';

serveIndexThread<{ file: string }, SqliteDatabase, FtsRankerOptions, FtsRankBody, RankedRow[]>({
  // The connection is opened at once, before the caller has sent its settings. The file's generation is read on both
  // sides of the open: when they agree, the connection is that build's.
  open({ file }) {
    const before = fileGeneration(file);
    const db = new Database(file, { readonly: true, fileMustExist: true });
    return { opened: db, generation: fileGeneration(file) === before ? before : null };
  },
  configure(db, options) {
    const ranker = createFtsRanker(db, options);
    return (r) => ranker(r.terms, r.k, r.filter);
  },
  close: (db) => db.close(),
});

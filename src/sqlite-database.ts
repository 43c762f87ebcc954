/**
 * better-sqlite3, loaded with `require` rather than `import`. Why: Node 20 imports a CommonJS package through its
 * ES module loader, which lexes the package for named exports and resolves its own `require`s through the ESM
 * resolver; for the two native packages one offline `ask` loads (this one and jieba, see `text/jieba.ts`) that
 * cost about 60 ms of CPU per process, more than the rest of the answer path's modules together. `require` returns
 * the same module object.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** better-sqlite3's `Database` constructor. */
export const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
/** An open better-sqlite3 connection. */
export type SqliteDatabase = BetterSqlite3.Database;
/** A prepared better-sqlite3 statement. */
export type SqliteStatement = BetterSqlite3.Statement;

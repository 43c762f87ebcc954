// LanceDB's full-text search over the same units and the same jieba tokens as the project's keyword index: the
// reference the speed benchmark compares build time and search latency with. LanceDB (@lancedb/lancedb, a dev
// dependency) is used only here, never by src/, and runs in a child process of its own, with its own memory.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importDist } from './bench-args.mjs';

const { Database } = await importDist('src/sqlite-database.js');

/**
 * The analyzer-segmented body of every unit as the project's FTS5 index stores it (`chunks_fts.content`, tokens
 * joined by spaces), in row order.
 */
export function indexedTokens(ftsDb) {
  const db = new Database(ftsDb, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT content FROM chunks_fts ORDER BY rowid').pluck().all();
  } finally {
    db.close();
  }
}

/**
 * Builds a LanceDB table with an FTS index over `texts` (whitespace tokenizer: they are already jieba tokens), then
 * answers `warmUp` and times `queries` (top 10 each), in a child process. Returns `{ seconds, p50, p95 }` (ms).
 */
export function lanceFts(texts, warmUp = [], queries = []) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-lancedb-'));
  try {
    const input = path.join(dir, 'input.json');
    writeFileSync(input, JSON.stringify({ texts, warmUp, queries }));
    const child = path.join(import.meta.dirname, 'lancedb-fts-child.mjs');
    // Lance's FTS build deadlocks when its CPU pool has no thread to spare (lance-format/lance#7350: every thread asleep,
    // on hosts with 2 cores or fewer), so the pool gets at least 4 threads unless the caller chose a size.
    const env = { ...process.env, LANCE_CPU_THREADS: process.env.LANCE_CPU_THREADS ?? String(Math.max(4, os.cpus().length)) };
    const r = spawnSync(process.execPath, [child, input, path.join(dir, 'db')], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`LanceDB benchmark exited ${r.status}: ${r.stderr.slice(-2000)}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

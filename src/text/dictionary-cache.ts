import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Warning } from '../types.js';
import { buildDictionaryTable, readDictionaryTable, type BuiltDictionaryTable, type DictionaryTable } from './dictionary-table.js';
import { PagedBytes } from './paged-bytes.js';
import { temporaryPath } from '../write-atomic.js';

/** Path of jieba's default dictionary file. */
export function defaultDictionaryFile(): string {
  return createRequire(import.meta.url).resolve('@node-rs/jieba/dict.txt');
}

/** What `loadDictionaryTable` found: the table (null: load jieba's dictionary in full) and what went wrong. */
export interface LoadedDictionaryTable {
  table: DictionaryTable | null;
  warnings: Warning[];
}

/**
 * Which dictionary file a table was built from: its size and time, and the jieba package version (npm gives every
 * installed file the same time, so the version is what tells an upgraded dictionary apart).
 */
function sourceIdentity(dictFile: string): string {
  const stat = statSync(dictFile);
  let version = 'unknown';
  try {
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(dictFile), 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string') version = pkg.version;
  } catch {
    // No readable package.json: size and time alone identify the file.
  }
  return `${path.basename(dictFile)}:${stat.size}:${Math.trunc(stat.mtimeMs)}:${version}`;
}

/** The cache file: the source identity (length-prefixed UTF-8, padded to 4 bytes), then the serialized table. */
function encode(identity: string, table: BuiltDictionaryTable): Uint8Array {
  const id = Buffer.from(identity, 'utf8');
  const head = 4 + Math.ceil(id.length / 4) * 4;
  const out = new Uint8Array(head + table.bytes.byteLength);
  new DataView(out.buffer).setUint32(0, id.length, true);
  out.set(id, 4);
  out.set(table.bytes, head);
  return out;
}

/**
 * The identity written at the head of an open cache file, and where the table starts; throws when the file is too
 * short to hold them.
 */
function readHead(fd: number): { identity: string; head: number; size: number } {
  const size = fstatSync(fd).size;
  const prefix = Buffer.alloc(4);
  if (size < 4 || readSync(fd, prefix, 0, 4, 0) < 4) throw new Error('too short');
  const length = prefix.readUInt32LE(0);
  const head = 4 + Math.ceil(length / 4) * 4;
  if (head > size) throw new Error('too short');
  const id = Buffer.alloc(length);
  if (readSync(fd, id, 0, length, 4) < length) throw new Error('too short');
  return { identity: id.toString('utf8'), head, size };
}

/**
 * jieba's default dictionary as a lookup table, from the cache file when it matches the installed dictionary,
 * else built (about half a second) and written there for the next start. A cache from another dictionary version
 * is replaced silently; an unreadable one is replaced with a warning. Without `write` (the caller's choice, e.g. a
 * root that ingest never touched, where nothing should be created) or when writing fails, no table is built: jieba's
 * dictionary is then loaded in full, as it is when the table cannot represent the dictionary. With `release`, a
 * current cache file is only checked and closed again (the table returned is then null): for a caller that only
 * makes sure the file is there for later commands.
 */
export function loadDictionaryTable(cacheFile: string, options: { write: boolean; release?: boolean }): LoadedDictionaryTable {
  const warnings: Warning[] = [];
  let dictFile: string;
  let identity: string;
  try {
    dictFile = defaultDictionaryFile();
    identity = sourceIdentity(dictFile);
  } catch {
    return { table: null, warnings };
  }
  let cached: number | null = null;
  try {
    cached = openSync(cacheFile, 'r');
  } catch {
    // Not built yet.
  }
  if (cached !== null) {
    // The table reads the pages its lookups need from the open file, which it then owns (`PagedBytes`).
    let paged: PagedBytes | null = null;
    let owned = false;
    try {
      const { identity: builtFrom, head, size } = readHead(cached);
      if (builtFrom === identity) {
        paged = PagedBytes.ofFile(cached, head, size - head);
        const table = readDictionaryTable(paged);
        // Its header and size check out; closed below, as the caller only wanted the file current.
        if (options.release) return { table: null, warnings };
        owned = true;
        return { table, warnings };
      }
    } catch (error) {
      warnings.push({
        where: cacheFile,
        message: `segmenter dictionary cache unreadable (${(error as Error).message}); rebuilt it`,
      });
    } finally {
      // Through the paged reader when it holds the descriptor, so it is not closed a second time when collected.
      if (!owned) {
        if (paged) paged.close();
        else closeSync(cached);
      }
    }
  }
  if (!options.write) return { table: null, warnings };
  // Open the file before building, so a folder we cannot write to costs nothing more than the full load.
  const temp = temporaryPath(cacheFile);
  let fd: number | null;
  try {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    fd = openSync(temp, 'w');
  } catch {
    return { table: null, warnings };
  }
  let table: BuiltDictionaryTable | null = null;
  try {
    table = buildDictionaryTable(readFileSync(dictFile, 'utf8'));
    writeSync(fd, encode(identity, table));
    // Forgotten before it is closed: a descriptor number is reused at once, by any thread, so closing it twice
    // can close another open file.
    const written = fd;
    fd = null;
    closeSync(written);
    // Atomic: a concurrent reader (another thread or process) sees the old file or the new one, never half of one.
    renameSync(temp, cacheFile);
  } catch {
    if (fd !== null) closeSync(fd);
    rmSync(temp, { force: true });
  }
  return { table, warnings };
}

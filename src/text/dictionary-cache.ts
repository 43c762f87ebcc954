import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Warning } from '../types.js';
import { defaultDictionaryFile } from './analyzer.js';
import { buildDictionaryTable, readDictionaryTable, type DictionaryTable } from './dictionary-table.js';

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
function encode(identity: string, table: DictionaryTable): Uint8Array {
  const id = Buffer.from(identity, 'utf8');
  const head = 4 + Math.ceil(id.length / 4) * 4;
  const out = new Uint8Array(head + table.bytes.byteLength);
  new DataView(out.buffer).setUint32(0, id.length, true);
  out.set(id, 4);
  out.set(table.bytes, head);
  return out;
}

/** The identity and the table bytes of a cache file; throws when it is too short to hold them. */
function decode(bytes: Buffer): { identity: string; table: Uint8Array } {
  if (bytes.length < 4) throw new Error('too short');
  const length = bytes.readUInt32LE(0);
  const head = 4 + Math.ceil(length / 4) * 4;
  if (head > bytes.length) throw new Error('too short');
  return { identity: bytes.subarray(4, 4 + length).toString('utf8'), table: bytes.subarray(head) };
}

/**
 * jieba's default dictionary as a lookup table, from the cache file when it matches the installed dictionary,
 * else built (about half a second) and written there for the next start. A cache from another dictionary version
 * is replaced silently; an unreadable one is replaced with a warning. Without `write` (the caller's choice, e.g. a
 * root that ingest never touched, where nothing should be created) or when writing fails, no table is built: jieba's
 * dictionary is then loaded in full, as it is when the table cannot represent the dictionary.
 */
export function loadDictionaryTable(cacheFile: string, options: { write: boolean }): LoadedDictionaryTable {
  const warnings: Warning[] = [];
  let dictFile: string;
  let identity: string;
  try {
    dictFile = defaultDictionaryFile();
    identity = sourceIdentity(dictFile);
  } catch {
    return { table: null, warnings };
  }
  let cached: Buffer | null = null;
  try {
    cached = readFileSync(cacheFile);
  } catch {
    // Not built yet.
  }
  if (cached) {
    try {
      const { identity: builtFrom, table } = decode(cached);
      if (builtFrom === identity) return { table: readDictionaryTable(table), warnings };
    } catch (error) {
      warnings.push({
        where: cacheFile,
        message: `segmenter dictionary cache unreadable (${(error as Error).message}); rebuilt it`,
      });
    }
  }
  if (!options.write) return { table: null, warnings };
  // Open the file before building, so a folder we cannot write to costs nothing more than the full load.
  const temp = `${cacheFile}.${process.pid}.tmp`;
  let fd: number;
  try {
    mkdirSync(path.dirname(cacheFile), { recursive: true });
    fd = openSync(temp, 'w');
  } catch {
    return { table: null, warnings };
  }
  let table: DictionaryTable | null = null;
  try {
    table = buildDictionaryTable(readFileSync(dictFile, 'utf8'));
    writeSync(fd, encode(identity, table));
    closeSync(fd);
    // Atomic: a concurrent reader sees the old file or the new one, never half of one.
    renameSync(temp, cacheFile);
  } catch {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    rmSync(temp, { force: true });
  }
  return { table, warnings };
}

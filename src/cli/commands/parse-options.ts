import { statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { ChunkFilter, ChunkType } from '../../types.js';

/** Parses a positive integer option, or fails with a usage error naming the option. */
export function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${name} needs a whole number above 0, got "${value}"`);
  return n;
}

/** Parses `12-30` (or a single `12`) into an inclusive printed-page range. */
export function pageRange(value: string | undefined): ChunkFilter['pages'] {
  if (value === undefined) return undefined;
  const m = /^\s*(\d+)\s*(?:[-~–]\s*(\d+))?\s*$/.exec(value);
  if (!m) throw new UsageError(`--pages needs a printed page or range like 12-30, got "${value}"`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (to < from) throw new UsageError(`--pages ${value}: the range ends before it starts`);
  return { from, to };
}

const CHUNK_TYPES: readonly ChunkType[] = ['text', 'manual_table_rewrite', 'note'];

/** Builds a chunk filter from the common filter options. */
export function chunkFilter(raw: { book?: string; chapter?: string; pages?: string; type?: string }): ChunkFilter {
  const filter: ChunkFilter = {};
  if (raw.book) filter.book = raw.book;
  if (raw.chapter) filter.chapter = raw.chapter;
  const pages = pageRange(raw.pages);
  if (pages) filter.pages = pages;
  if (raw.type !== undefined) {
    if (!CHUNK_TYPES.includes(raw.type as ChunkType)) throw new UsageError(`--type must be one of ${CHUNK_TYPES.join(', ')}, got "${raw.type}"`);
    filter.chunkType = raw.type as ChunkType;
  }
  return filter;
}

/** Checks a value against a fixed list, for options like --mode. */
export function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** Resolves an output file option (`--report-json` …) against `cwd`; an existing folder there is a usage error. */
export function outputFile(name: string, value: string | undefined, cwd: string): string | undefined {
  if (value === undefined) return undefined;
  const file = path.resolve(cwd, value);
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    // Not there yet: it will be created.
  }
  if (isDirectory) throw new UsageError(`${name} ${file} is a folder; give the path of a file to write (a file inside that folder is fine)`);
  return file;
}

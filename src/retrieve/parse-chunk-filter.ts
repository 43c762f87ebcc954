import { UsageError } from '../errors.js';
import type { ChunkFilter, ChunkType } from '../types.js';

/** How a caller names filter fields in messages: `--pages` on the command line, `pages` in a web form. */
export interface FilterNaming {
  prefix: string;
}

const CLI: FilterNaming = { prefix: '--' };

/** Parses `12-30` (or a single `12`) into an inclusive printed-page range. */
export function pageRange(value: string | undefined, naming: FilterNaming = CLI): ChunkFilter['pages'] {
  if (value === undefined) return undefined;
  const name = `${naming.prefix}pages`;
  const m = /^\s*(\d+)\s*(?:[-~–]\s*(\d+))?\s*$/.exec(value);
  if (!m) throw new UsageError(`${name} needs a printed page or range like 12-30, got "${value}"`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (to < from) throw new UsageError(`${name} ${value}: the range ends before it starts`);
  return { from, to };
}

/** The chunk types a filter may name. */
export const CHUNK_TYPES: readonly ChunkType[] = ['text', 'manual_table_rewrite', 'note'];

/** Builds a chunk filter from the common filter fields (book, chapter, printed pages, chunk type). */
export function chunkFilter(
  raw: { book?: string; chapter?: string; pages?: string; type?: string },
  naming: FilterNaming = CLI,
): ChunkFilter {
  const filter: ChunkFilter = {};
  if (raw.book) filter.book = raw.book;
  if (raw.chapter) filter.chapter = raw.chapter;
  const pages = pageRange(raw.pages, naming);
  if (pages) filter.pages = pages;
  if (raw.type !== undefined && raw.type !== '') {
    if (!CHUNK_TYPES.includes(raw.type as ChunkType)) {
      throw new UsageError(`${naming.prefix}type must be one of ${CHUNK_TYPES.join(', ')}, got "${raw.type}"`);
    }
    filter.chunkType = raw.type as ChunkType;
  }
  return filter;
}

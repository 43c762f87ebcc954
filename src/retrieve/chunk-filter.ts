import { printedPageNumber } from '../indexing/chunk-rows.js';
import type { Chunk, ChunkFilter } from '../types.js';

/**
 * The filter semantics of the keyword index's SQL (`filterSql`), for back ends that filter after the fact:
 * exact book, substring of any heading of the path, printed-page overlap (non-numeric pages excluded), chunk type.
 */
export function matchesFilter(chunk: Chunk, filter: ChunkFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.book && chunk.book !== filter.book) return false;
  const wanted = filter.chapter;
  if (wanted && !chunk.headings.some((h) => h.includes(wanted))) return false;
  if (filter.chunkType && chunk.chunk_type !== filter.chunkType) return false;
  if (filter.pages) {
    const start = printedPageNumber(chunk.page_start);
    if (start === null) return false;
    const end = printedPageNumber(chunk.page_end) ?? start;
    if (start > filter.pages.to || end < filter.pages.from) return false;
  }
  return true;
}

/** True when the filter restricts anything. */
export function isActiveFilter(filter: ChunkFilter | undefined): boolean {
  return !!filter && (!!filter.book || !!filter.chapter || !!filter.pages || !!filter.chunkType);
}

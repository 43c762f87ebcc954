/** The `chunks` table's row shape and its conversion to a Chunk, shared by the keyword index's writer and reader. */
import type { Chunk } from '../types.js';

/** Bumped when the table layout changes, so an old database is reported as needing a re-ingest. */
export const FTS_SCHEMA_VERSION = 2;

/** The printed page label as a number, or null when it is not a plain arabic number (roman front matter, empty). */
export function printedPageNumber(label: string): number | null {
  return /^\d+$/.test(label.trim()) ? Number(label.trim()) : null;
}

/** The Chunk fields stored as JSON text in the `chunks` table. */
type JsonFields = 'headings' | 'articles' | 'page_breaks';

/** A row of the `chunks` table: every Chunk field (arrays as JSON text) plus `row`, the FTS rowid. */
export type ChunkRow = Omit<Chunk, JsonFields> & Record<JsonFields, string> & { row: number };

export function rowToChunk(r: ChunkRow): Chunk {
  const { row: _row, headings, articles, page_breaks, ...rest } = r;
  return {
    ...rest,
    headings: JSON.parse(headings) as string[],
    articles: JSON.parse(articles) as string[],
    page_breaks: JSON.parse(page_breaks) as Chunk['page_breaks'],
  };
}

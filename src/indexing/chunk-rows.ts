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

/**
 * The Chunk a row holds. Every field is named in one object literal, in the table's column order: built as an object
 * spread of the row's other columns, each chunk got a hidden class of its own in V8 (some 400 for 600 chunks read), so
 * every read of a chunk's field in retrieval and answering went through a megamorphic lookup, and every chunk kept
 * its own class and property descriptors alive.
 */
export function rowToChunk(r: ChunkRow): Chunk {
  return {
    chunk_id: r.chunk_id,
    book: r.book,
    chapter: r.chapter,
    section: r.section,
    subsection: r.subsection,
    figure_ref: r.figure_ref,
    page_start: r.page_start,
    page_end: r.page_end,
    pdf_page_start: r.pdf_page_start,
    pdf_page_end: r.pdf_page_end,
    chunk_type: r.chunk_type,
    exam_priority: r.exam_priority,
    source: r.source,
    char_start: r.char_start,
    char_end: r.char_end,
    seq: r.seq,
    text: r.text,
    headings: JSON.parse(r.headings) as string[],
    articles: JSON.parse(r.articles) as string[],
    page_breaks: JSON.parse(r.page_breaks) as Chunk['page_breaks'],
  };
}

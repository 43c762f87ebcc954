import type { Chunk } from '../types.js';
import { chunkText, type ChunkingOptions } from './chunk-text.js';
import { chunkId, EXAM_PRIORITY } from './make-chunks.js';
import type { TableRow } from './load-table-csv.js';

/**
 * One chunk per transcription row; a row longer than maxChars is split between its own lines (table rows),
 * and a single line that is still too long by sentences. Offsets are into the row's content.
 * `pdfPageOf` places a printed page label in the book's PDF when that PDF is part of the corpus.
 */
export function tableRowChunks(
  rows: readonly TableRow[],
  source: string,
  options: ChunkingOptions,
  pdfPageOf: (book: string, label: string) => number | null,
): Chunk[] {
  const chunks: Chunk[] = [];
  let seq = 0;
  rows.forEach((row, rowIndex) => {
    const spans: { start: number; end: number }[] = [];
    const content = row.content;
    if (content.length <= options.maxChars) {
      spans.push({ start: 0, end: content.length });
    } else {
      let start = 0;
      let end = 0;
      let pos = 0;
      for (const line of content.split('\n')) {
        const lineStart = pos;
        const lineEnd = pos + line.length;
        pos = lineEnd + 1;
        if (line.length > options.maxChars) {
          if (end > start) spans.push({ start, end });
          for (const s of chunkText(line, { ...options, overlap: 0, minChars: Math.min(options.minChars, options.maxChars) }))
            spans.push({ start: lineStart + s.start, end: lineStart + s.end });
          start = end = pos;
          continue;
        }
        if (lineEnd - start > options.maxChars && end > start) {
          spans.push({ start, end });
          start = lineStart;
        }
        end = lineEnd;
      }
      if (end > start) spans.push({ start, end });
    }
    const pdfPage = row.page ? pdfPageOf(row.book, row.page) : null;
    for (const span of spans) {
      const text = content.slice(span.start, span.end);
      if (text.trim() === '') continue;
      chunks.push({
        chunk_id: chunkId(source, 'manual_table_rewrite', span.start, span.end, `row${rowIndex}`),
        book: row.book,
        headings: [row.chapter, row.section].filter((h) => h !== ''),
        chapter: row.chapter,
        section: row.section,
        subsection: '',
        articles: [],
        figure_ref: row.figure_ref,
        page_start: row.page,
        page_end: row.page,
        pdf_page_start: pdfPage,
        pdf_page_end: pdfPage,
        chunk_type: 'manual_table_rewrite',
        exam_priority: EXAM_PRIORITY.manual_table_rewrite,
        source,
        char_start: span.start,
        char_end: span.end,
        page_breaks: [],
        seq: seq++,
        text,
      });
    }
  });
  return chunks;
}

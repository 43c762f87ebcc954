import { createHash } from 'node:crypto';
import type { Chunk, ChunkType, IndexDoc, PageBreak } from '../types.js';
import { articlesInSpan, articleStarts } from '../text/articles.js';
import { chunkText, type ChunkingOptions, type TextSpan } from './chunk-text.js';
import { pageAt, type Segment } from './segment.js';

/**
 * The stable chunk id: the same source, type and character range give the same id on every ingest.
 * `position` distinguishes chunks of different CSV rows that share character offsets.
 */
export function chunkId(source: string, chunkType: ChunkType, start: number, end: number, position = ''): string {
  return createHash('sha256').update(`${source}\0${chunkType}\0${position}\0${start}\0${end}`).digest('hex').slice(0, 16);
}

/** Exam priority per chunk type: transcribed tables and figures are what exams lean on. */
export const EXAM_PRIORITY: Readonly<Record<ChunkType, number>> = { text: 1, note: 1, manual_table_rewrite: 3 };

export interface ChunkSourceMeta {
  book: string;
  source: string;
  chunkType: ChunkType;
  /** Printed label per physical page (index 0 = page 1); empty for sources without pages. */
  labels: readonly string[];
}

/** Cuts every segment into chunks (never across segments) and fills in ids, pages and offsets. */
export function segmentsToChunks(segments: readonly Segment[], meta: ChunkSourceMeta, options: ChunkingOptions, firstSeq = 0): Chunk[] {
  const chunks: Chunk[] = [];
  let seq = firstSeq;
  segments.forEach((segment, segIndex) => {
    const articles = articleStarts(segment.text);
    for (const span of unitSpans(segment.text, articles, options)) {
      const p0 = pageAt(segment, span.start);
      const p1 = pageAt(segment, span.end - 1);
      const start = segment.start + span.start;
      const end = segment.start + span.end;
      chunks.push({
        chunk_id: chunkId(meta.source, meta.chunkType, start, end, meta.chunkType === 'manual_table_rewrite' ? String(segIndex) : ''),
        book: meta.book,
        headings: segment.headings,
        chapter: segment.chapter,
        section: segment.section,
        subsection: segment.subsection,
        articles: articlesInSpan(articles, span.start, span.end),
        figure_ref: segment.figureRef ?? '',
        page_start: p0 === null ? '' : (meta.labels[p0 - 1] ?? ''),
        page_end: p1 === null ? '' : (meta.labels[p1 - 1] ?? ''),
        pdf_page_start: p0,
        pdf_page_end: p1,
        chunk_type: meta.chunkType,
        exam_priority: EXAM_PRIORITY[meta.chunkType],
        source: meta.source,
        char_start: start,
        char_end: end,
        page_breaks: pageBreaks(segment, span.start, span.end, meta.labels),
        seq: seq++,
        text: segment.text.slice(span.start, span.end),
      });
    }
  });
  return chunks;
}

/**
 * The spans a segment is cut into. Statute-like text (a segment with article headings) is cut at every article
 * heading, so each article is its own small unit, and only an article longer than maxChars is cut further; the
 * text before the first heading, and text without articles, is cut into windows by `chunkText`.
 */
function unitSpans(text: string, articles: readonly { offset: number }[], options: ChunkingOptions): TextSpan[] {
  if (!options.articleUnits || articles.length === 0) return chunkText(text, options);
  const bounds = [0, ...articles.map((a) => a.offset), text.length];
  const spans: TextSpan[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const from = bounds[i]!;
    const to = bounds[i + 1]!;
    if (to <= from) continue;
    for (const s of chunkText(text.slice(from, to), options)) spans.push({ start: s.start + from, end: s.end + from });
  }
  return spans;
}

/** The page breaks falling inside `[start, end)` of a segment, as offsets into the chunk's text. */
function pageBreaks(segment: Segment, start: number, end: number, labels: readonly string[]): PageBreak[] {
  return segment.pages
    .filter((p) => p.offset > start && p.offset < end)
    .map((p) => ({ offset: p.offset - start, page: labels[p.pdfPage - 1] ?? '', pdf_page: p.pdfPage }));
}

/**
 * The text both indexes see: `book | heading path` (plus ` | figure_ref`), a newline, then the chunk text. A path of
 * up to two headings reads `book | chapter | section` as before.
 */
export function indexDocFor(chunk: Chunk): IndexDoc {
  const path = chunk.headings.length > 2 ? chunk.headings : [chunk.chapter, chunk.section];
  const head = [chunk.book, ...path, chunk.figure_ref].filter((part, i) => i <= path.length || part !== '').join(' | ');
  return { chunk_id: chunk.chunk_id, text: `${head}\n${chunk.text}` };
}

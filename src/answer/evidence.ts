import { formatCitation, quoteLocation, type CitationParts } from '../ingest/citation.js';
import type { Chunk } from '../types.js';
import type { EvidenceItem } from './answer-types.js';

/** Longest quote shown per evidence item; enough to check the claim, short enough for a terminal. */
export const MAX_QUOTE_CHARS = 160;

/** Collapses whitespace and shortens to `max` characters with an ellipsis. */
export function shortQuote(text: string, max = MAX_QUOTE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * The cited form of a chunk: where it is (book | heading path | figure | articles | pages) and a short quote. The
 * pages and articles are those of the quote itself, so a student opens the right page at the right article.
 */
export function toEvidence(chunk: Chunk, quote?: string): EvidenceItem {
  const text = quote ?? chunk.text;
  const at = quoteLocation(chunk, text);
  return {
    chunk_id: chunk.chunk_id,
    book: chunk.book,
    headings: chunk.headings,
    chapter: chunk.chapter,
    section: chunk.section,
    articles: at.articles,
    figure_ref: chunk.figure_ref,
    page_start: at.page_start,
    page_end: at.page_end,
    quote: shortQuote(text),
  };
}

/** `上册 | 第二章 … | 第一节 … | 表2-1 | p.35` (empty parts left out), as shown to users and to the LLM: `formatCitation`. */
export function citation(item: CitationParts): string {
  return formatCitation(item);
}

import type { Chunk } from '../types.js';
import type { EvidenceItem } from './answer-types.js';

/** Longest quote shown per evidence item; enough to check the claim, short enough for a terminal. */
export const MAX_QUOTE_CHARS = 160;

/** Collapses whitespace and shortens to `max` characters with an ellipsis. */
export function shortQuote(text: string, max = MAX_QUOTE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The cited form of a chunk: where it is (book | chapter | section | figure | pages) and a short quote. */
export function toEvidence(chunk: Chunk, quote?: string): EvidenceItem {
  return {
    chunk_id: chunk.chunk_id,
    book: chunk.book,
    chapter: chunk.chapter,
    section: chunk.section,
    figure_ref: chunk.figure_ref,
    page_start: chunk.page_start,
    page_end: chunk.page_end,
    quote: shortQuote(quote ?? chunk.text),
  };
}

/** `上册 | 第二章 … | 第一节 … | 表2-1 | p.35` (empty parts left out), as shown to users and to the LLM. */
export function citation(item: Pick<EvidenceItem, 'book' | 'chapter' | 'section' | 'figure_ref' | 'page_start' | 'page_end'>): string {
  const pages = item.page_start ? (item.page_end && item.page_end !== item.page_start ? `p.${item.page_start}-${item.page_end}` : `p.${item.page_start}`) : '';
  return [item.book, item.chapter, item.section, item.figure_ref, pages].filter((p) => p !== '').join(' | ');
}

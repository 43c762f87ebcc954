import type { Chunk, ChunkLocation } from '../types.js';
import { articlesInSpan, articleStarts } from './articles.js';

/** What a citation is made of; `headings`/`articles` may be missing in reports written before they existed. */
export type CitationParts = Pick<ChunkLocation, 'book' | 'chapter' | 'section' | 'figure_ref' | 'page_start' | 'page_end'> & {
  headings?: readonly string[] | undefined;
  articles?: readonly string[] | undefined;
};

/** `p.7` or `p.7-8`; empty when the page is unknown. */
export function formatPages(start: string, end: string): string {
  if (!start) return '';
  return end && end !== start ? `p.${start}-${end}` : `p.${start}`;
}

/** `第三十二条`, `第三十二条、第三十三条`, or `第三十二条–第三十五条` for three or more. */
export function formatArticles(articles: readonly string[]): string {
  if (articles.length === 0) return '';
  if (articles.length <= 2) return articles.join('、');
  return `${articles[0] ?? ''}–${articles[articles.length - 1] ?? ''}`;
}

/**
 * The one citation format, shown to students, to the LLM and in reports:
 * `book | heading path… | figure | 第X条 | p.N` (empty parts left out). Old records without a heading path fall back to
 * chapter and section.
 */
export function formatCitation(item: CitationParts): string {
  const path = item.headings && item.headings.length > 0 ? item.headings : [item.chapter, item.section];
  return [item.book, ...path, item.figure_ref, formatArticles(item.articles ?? []), formatPages(item.page_start, item.page_end)]
    .filter((p) => p !== '')
    .join(' | ');
}

/** The printed and physical page holding character `offset` of a chunk's text. */
export function pageAtOffset(
  chunk: Pick<Chunk, 'page_start' | 'pdf_page_start' | 'page_breaks'>,
  offset: number,
): { page: string; pdf_page: number | null } {
  let at = { page: chunk.page_start, pdf_page: chunk.pdf_page_start };
  for (const b of chunk.page_breaks ?? []) {
    if (b.offset <= offset) at = { page: b.page, pdf_page: b.pdf_page };
    else break;
  }
  return at;
}

/**
 * Where a quote from a chunk lies: its printed pages (`page_start`/`page_end`, equal when it sits on one page) and the
 * articles it quotes from. The quote is found by its text with whitespace ignored and an ellipsis at either end dropped;
 * when it is not found, the chunk's own pages and articles are returned.
 */
export function quoteLocation(
  chunk: Pick<Chunk, 'text' | 'page_start' | 'page_end' | 'pdf_page_start' | 'page_breaks' | 'articles'>,
  quote: string,
): { page_start: string; page_end: string; articles: string[] } {
  const whole = { page_start: chunk.page_start, page_end: chunk.page_end, articles: chunk.articles };
  const span = quoteSpan(chunk.text, quote);
  if (!span) return whole;
  const [start, end] = span;
  // The article running at the chunk's start has its heading before the chunk: it is the chunk's first article.
  const starts = articleStarts(chunk.text);
  const running = chunk.articles[0];
  const withRunning = running !== undefined && starts[0]?.offset !== 0 ? [{ offset: 0, article: running }, ...starts] : starts;
  return {
    page_start: pageAtOffset(chunk, start).page,
    page_end: pageAtOffset(chunk, end).page,
    articles: articlesInSpan(withRunning, start, end + 1),
  };
}

/**
 * Where the parts of a quote split at its inner ellipses stand in `text`: each part found after the one before, one
 * `[start, end)` per part; null when a part is missing. What an ellipsis leaves out lies between two spans.
 */
export function quotePartSpans(text: string, parts: readonly string[]): Array<[number, number]> | null {
  const spans: Array<[number, number]> = [];
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    if (at < 0) return null;
    from = at + part.length;
    spans.push([at, from]);
  }
  return spans;
}

/**
 * The offsets of a quote's first and last character in `text`, found with whitespace ignored and a leading or trailing
 * ellipsis (a cut quote) dropped; null when the quote is not in the text. A quote with an inner ellipsis (a list item
 * with its lead, a table row under its header) runs from its first part to its last, each part found after the one
 * before.
 */
function quoteSpan(text: string, quote: string): [number, number] | null {
  const parts = quoteParts(quote);
  const { flat, positions } = squeezeText(text);
  const spans = parts.length > 0 ? quotePartSpans(flat, parts) : null;
  const first = spans?.[0];
  const last = spans?.at(-1);
  if (!first || !last) return null;
  const start = positions[first[0]] ?? 0;
  return [start, positions[last[1] - 1] ?? start];
}

/**
 * The parts of a quote between its inner ellipses (a list item with its lead, a table row under its header), each in
 * the form `form` gives (whitespace dropped by default), with an ellipsis at either end (a cut quote) dropped and empty
 * parts left out.
 */
export function quoteParts(quote: string, form: (part: string) => string = (part) => part.replace(/\s+/gu, '')): string[] {
  return quote
    .replace(/^…|…$/gu, '')
    .split('…')
    .map(form)
    .filter((part) => part !== '');
}

/** `text` without its whitespace, and for each character kept its offset in `text`: a match in one maps to the other. */
export function squeezeText(text: string): { flat: string; positions: number[] } {
  const positions: number[] = [];
  let flat = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (/\s/u.test(ch)) continue;
    positions.push(i);
    flat += ch;
  }
  return { flat, positions };
}

/**
 * The physical PDF page a quote from a chunk starts on, which the viewer opens (a chunk may span pages: its first page
 * is not the quote's); the chunk's first page when the quote is not found in it, null for sources without pages.
 */
export function quotePdfPage(chunk: Pick<Chunk, 'text' | 'page_start' | 'pdf_page_start' | 'page_breaks'>, quote: string): number | null {
  const span = quoteSpan(chunk.text, quote);
  return span ? pageAtOffset(chunk, span[0]).pdf_page : chunk.pdf_page_start;
}

/** The printed pages a quote from a chunk lies on; see `quoteLocation`. */
export function quotePages(
  chunk: Pick<Chunk, 'text' | 'page_start' | 'page_end' | 'pdf_page_start' | 'page_breaks'>,
  quote: string,
): { page_start: string; page_end: string } {
  const { page_start, page_end } = quoteLocation({ ...chunk, articles: [] }, quote);
  return { page_start, page_end };
}

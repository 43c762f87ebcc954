import { formatCitation, quoteLocation, type CitationParts } from '../text/citation.js';
import { normalizeText, normalizeWithSpans } from '../text/analyzer.js';
import { isMarkdownSource, markdownPlain, plainSpan } from '../text/markdown-plain.js';
import { findInstruction } from '../text/instruction-like.js';
import type { Chunk } from '../types.js';
import type { EvidenceItem } from './answer-types.js';

/** Shortest quote worth showing: a clause shorter than this rarely shows why an option is supported. */
export const MIN_QUOTE_CHARS = 30;
/** Longest quote shown per evidence item: a long sentence, short enough for a terminal. */
export const MAX_QUOTE_CHARS = 200;

/** Collapses whitespace and shortens to `max` characters with an ellipsis. */
export function shortQuote(text: string, max = MAX_QUOTE_CHARS): string {
  const flat = flattenText(text);
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A quote with the character ranges `[start, end)` of the matched option terms. */
export interface Quote {
  text: string;
  highlights: Array<[number, number]>;
}

const CJK = '\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef';
const CJK_BREAK = new RegExp(`(?<=[${CJK}])\\s*\\n\\s*(?=[${CJK}])`, 'gu');

/** PDF text as one line: a line break between two CJK characters is a wrap (removed), other whitespace one space. */
export function flattenText(text: string): string {
  return text.replace(CJK_BREAK, '').replace(/\s+/g, ' ').trim();
}

/** Sentence spans `[start, end)` of flat text, each ending after its terminator. */
function sentenceSpans(flat: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let start = 0;
  for (const m of flat.matchAll(/[。；;！？!?]+/g)) {
    const end = m.index + m[0].length;
    if (end > start) spans.push([start, end]);
    start = end;
  }
  if (start < flat.length) spans.push([start, flat.length]);
  return spans.filter(([a, b]) => flat.slice(a, b).trim() !== '');
}

/**
 * Where each term occurs in the text, merged into sorted, non-overlapping ranges. Terms of one character are ignored
 * (a query's 的 or 高 would light up everywhere), unless `lone` is set and the character occurs once in the text: a
 * verdict's value 高 in a table row 股票基金 股票 高 is the one place it can mean. Text and terms are compared in the
 * analyzer's normal form (width, case, numerals), so a term 3个月 marks the 三个月 the book wrote, and ＡＢＣ marks abc.
 */
export function termRanges(text: string, terms: readonly string[], options: { lone?: boolean } = {}): Array<[number, number]> {
  const normal = normalizeWithSpans(text);
  const haystack = normal ? normal.text : text.toLowerCase();
  // Without the spans (rare combining marks), terms are matched as written, case aside.
  const toText = (from: number, to: number): [number, number] =>
    normal ? [normal.spans[from]?.[0] ?? from, normal.spans[to - 1]?.[1] ?? to] : [from, to];
  const raw: Array<[number, number]> = [];
  for (const term of new Set(terms.map((t) => (normal ? normalizeText(t) : t.toLowerCase()).trim()))) {
    if ([...term].length < 2 && !(options.lone && term !== '' && haystack.indexOf(term) === haystack.lastIndexOf(term))) continue;
    for (let i = haystack.indexOf(term); i !== -1; i = haystack.indexOf(term, i + 1)) raw.push(toText(i, i + term.length));
  }
  raw.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: Array<[number, number]> = [];
  for (const r of raw) {
    const last = out.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/**
 * The quote that shows the support: the whole sentence(s) of `text` holding `anchor` (the passage window the
 * answerer matched; without it, the sentence with the most matched terms), widened by neighbouring sentences to
 * at least `min` characters and cut at clause boundaries to at most `max`, with the `terms` marked.
 */
export function extractQuote(text: string, anchor: string, terms: readonly string[], limits: { min?: number; max?: number } = {}): Quote {
  const min = limits.min ?? MIN_QUOTE_CHARS;
  const max = limits.max ?? MAX_QUOTE_CHARS;
  const flat = flattenText(text);
  if (flat === '') return { text: '', highlights: [] };
  const spans = sentenceSpans(flat);
  const flatAnchor = flattenText(anchor);
  let a = flatAnchor === '' ? -1 : flat.indexOf(flatAnchor);
  let aEnd = a === -1 ? -1 : a + flatAnchor.length;
  if (a === -1) {
    // No anchor: the sentence with the most matched term characters.
    let bestScore = -1;
    for (const [s, e] of spans) {
      const score = termRanges(flat.slice(s, e), terms).reduce((n, [x, y]) => n + y - x, 0);
      if (score > bestScore) [bestScore, a, aEnd] = [score, s, e];
    }
  }
  let first = spans.findIndex(([, e]) => e > a);
  let last = spans.findIndex(([, e]) => e >= aEnd);
  if (first === -1) first = 0;
  if (last === -1) last = spans.length - 1;
  let start = spans[first]?.[0] ?? 0;
  let end = spans[last]?.[1] ?? flat.length;
  // Too short to show why: add the next sentence, else the previous one, while they fit.
  while (end - start < min) {
    const next = spans[last + 1];
    const prev = spans[first - 1];
    if (next && next[1] - start <= max) [last, end] = [last + 1, next[1]];
    else if (prev && end - prev[0] <= max) [first, start] = [first - 1, prev[0]];
    else break;
  }
  let prefix = '';
  let suffix = '';
  if (end - start > max) {
    // Too long: a window of `max` around the anchor's first marked term, snapped to clause boundaries.
    const focusRange = termRanges(flat.slice(a, aEnd), terms)[0];
    const focus = a + (focusRange ? focusRange[0] : 0);
    let ws = Math.max(start, Math.min(focus - Math.floor(max / 3), end - max));
    let we = Math.min(end, ws + max);
    const clause = /[，,、：:]/g;
    if (ws > start) {
      const head = flat.slice(ws, Math.min(we, ws + 40));
      clause.lastIndex = 0;
      const m = clause.exec(head);
      if (m && ws + m.index + 1 <= focus) ws += m.index + 1;
      prefix = '…';
    }
    if (we < end) {
      const tail = flat.slice(Math.max(ws, we - 40), we);
      const cut = Math.max(...[...tail.matchAll(clause)].map((m) => m.index + 1), -1);
      if (cut > 0 && Math.max(ws, we - 40) + cut > focus) we = Math.max(ws, we - 40) + cut;
      suffix = '…';
    }
    [start, end] = [ws, we];
  }
  const body = flat.slice(start, end).trim();
  const offset = prefix.length;
  return { text: `${prefix}${body}${suffix}`, highlights: termRanges(body, terms).map(([x, y]) => [x + offset, y + offset]) };
}

/** The quote split into plain and marked pieces, for any renderer (`**…**` in text, `<mark>` in HTML). */
export function quoteSegments(
  quote: string,
  highlights: ReadonlyArray<readonly [number, number]> = [],
): Array<{ text: string; marked: boolean }> {
  const out: Array<{ text: string; marked: boolean }> = [];
  let at = 0;
  for (const [s, e] of highlights) {
    if (s < at || e > quote.length || e <= s) continue;
    if (s > at) out.push({ text: quote.slice(at, s), marked: false });
    out.push({ text: quote.slice(s, e), marked: true });
    at = e;
  }
  if (at < quote.length) out.push({ text: quote.slice(at), marked: false });
  return out;
}

/** The quote with its matched terms wrapped in `**…**`, as text output shows it. */
export function markedQuote(item: Pick<EvidenceItem, 'quote' | 'highlights'>): string {
  return quoteSegments(item.quote, item.highlights)
    .map((s) => (s.marked ? `**${s.text}**` : s.text))
    .join('');
}

/** Whether a chunk is a Markdown note, quoted as its reader sees it (`markdownPlain`). */
export function isMarkdownNote(chunk: Pick<Chunk, 'chunk_type' | 'source'>): boolean {
  return chunk.chunk_type === 'note' && isMarkdownSource(chunk.source);
}

/** A run of a chunk's text as its reader sees it: without a Markdown note's markup, as every quote shows it. */
export function readerForm(chunk: Pick<Chunk, 'chunk_type' | 'source'>, text: string): string {
  return isMarkdownNote(chunk) ? markdownPlain(text).text : text;
}

/**
 * The text a quote is taken from: a Markdown note's text as its reader sees it (emphasis, container fences, table pipes
 * and heading hashes dropped, so a quote never tangles the note's `**` with the highlight marks), with the anchor
 * carried over to that text; any other chunk's text as it is.
 */
function readerText(chunk: Chunk, anchor: string | undefined): { text: string; anchor: string | undefined } {
  if (!isMarkdownNote(chunk)) return { text: chunk.text, anchor };
  const plain = markdownPlain(chunk.text);
  if (anchor === undefined) return { text: plain.text, anchor };
  // The anchor is a run of the chunk's own text: its span there is its span in the plain text. An anchor not found
  // as it stands (a window joined across a list) is made plain on its own.
  const at = chunk.text.indexOf(anchor);
  if (at < 0) return { text: plain.text, anchor: markdownPlain(anchor).text };
  const [start, end] = plainSpan(plain, at, at + anchor.length);
  return { text: plain.text, anchor: plain.text.slice(start, end) };
}

/**
 * The cited form of a chunk: where it is (book | heading path | figure | articles | pages) and a quote. With an
 * `anchor` (the matched window or sentence) the quote is its whole sentence with `terms` marked; without, the chunk's
 * start. The pages and articles are those of the quote itself, so a student opens the right page at the right article.
 * A Markdown note is quoted as its reader sees it, without the note's markup.
 */
export function toEvidence(chunk: Chunk, anchor?: string, terms: readonly string[] = []): EvidenceItem {
  const source = readerText(chunk, anchor);
  const quote =
    source.anchor === undefined ? { text: shortQuote(source.text), highlights: [] } : extractQuote(source.text, source.anchor, terms);
  return quotedItem(chunk, quote, source.text);
}

/**
 * The evidence item of `quote` taken from `text` (the chunk's text as its reader sees it): its location, the quote's
 * own pages, and a flag on planted text.
 */
function quotedItem(chunk: Chunk, quote: Quote, text: string = chunk.text): EvidenceItem {
  // Ellipses mark a cut quote; the rest is located in the chunk to find its page and article.
  const at = quoteLocation({ ...chunk, text }, quote.text.replace(/^…|…$/gu, ''));
  return evidenceItem(chunk, quote.text, quote.highlights, at);
}

/** Where a quote lies in its chunk: its printed pages and articles (`quoteLocation`). */
export type QuotePlace = ReturnType<typeof quoteLocation>;

/**
 * Every evidence item is made here, for the answer's evidence and the per-option verdicts alike: the chunk's citation
 * parts, the quote's own pages from `at` (its first part) to `end` (its last, for a quote in two parts, a list lead …
 * its item), the marked ranges, and the flag on text that addresses the reader as instructions.
 */
export function evidenceItem(
  chunk: Chunk,
  quote: string,
  highlights: ReadonlyArray<[number, number]>,
  at: QuotePlace,
  end: QuotePlace = at,
): EvidenceItem {
  const planted = findInstruction(chunk.text);
  return {
    chunk_id: chunk.chunk_id,
    book: chunk.book,
    headings: chunk.headings,
    chapter: chunk.chapter,
    section: chunk.section,
    articles: end === at ? at.articles : [...new Set([...at.articles, ...end.articles])],
    figure_ref: chunk.figure_ref,
    page_start: at.page_start,
    page_end: end.page_end,
    quote,
    ...(highlights.length > 0 ? { highlights: [...highlights] } : {}),
    ...(planted ? { suspicious: planted.reason } : {}),
  };
}

/** Fewest characters (after normalisation) a quote must have to show anything: shorter ones match by chance. */
export const MIN_VERBATIM_CHARS = 4;

/** Text as compared for verbatim quotes: NFKC, no whitespace, one entry per kept character with its index in `text`. */
function comparable(text: string): { text: string; at: number[] } {
  let out = '';
  const at: number[] = [];
  let i = 0;
  for (const ch of text) {
    for (const c of ch.normalize('NFKC')) {
      if (/\s/u.test(c)) continue;
      out += c;
      at.push(i);
    }
    i += ch.length;
  }
  return { text: out, at };
}

/** A quote as a model writes it, without the quotation marks or ellipses around it. */
function bareQuote(quote: string): string {
  return quote
    .trim()
    .replace(/^[“"「『'‘…\s]+|[”"」』'’…\s]+$/gu, '')
    .replace(/^\.{3}|\.{3}$/g, '');
}

/**
 * The evidence item for a quote that must be verbatim in `chunk` (an LLM's verdict): null when the quote, compared
 * after NFKC and without whitespace, is not in the chunk's text or is shorter than `MIN_VERBATIM_CHARS`. A paraphrase
 * is not verbatim. The item quotes the whole sentence(s) holding the quote, as the book prints them, with the quoted
 * part marked, and carries the quote's own pages.
 */
export function verbatimEvidence(chunk: Chunk, quote: string): EvidenceItem | null {
  const want = comparable(bareQuote(quote)).text;
  if ([...want].length < MIN_VERBATIM_CHARS) return null;
  const flat = flattenText(chunk.text);
  const have = comparable(flat);
  const start = have.text.indexOf(want);
  if (start === -1) return null;
  const from = have.at[start] ?? 0;
  const last = have.at[start + want.length - 1] ?? from;
  const to = last + ([...flat.slice(last)][0]?.length ?? 1);
  const anchor = flat.slice(from, to);
  return quotedItem(chunk, extractQuote(flat, anchor, [anchor]));
}

/** `上册 | 第二章 … | 第一节 … | 表2-1 | p.35` (empty parts left out), as shown to users and to the LLM: `formatCitation`. */
export function citation(item: CitationParts): string {
  return formatCitation(item);
}

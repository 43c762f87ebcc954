import { readFile } from 'node:fs/promises';
import { formatCitation, quoteLocation, quoteParts, quotePartSpans, quotePdfPage, squeezeText } from '../text/citation.js';
import type { Chunk } from '../types.js';
import { escapeHtml, layout, query } from './html-pages.js';
import { renderNote } from './render-note.js';
import type { ServedSource } from './served-files.js';

/**
 * The link that opens a chunk's source at the quote's page with the quote highlighted, when the source may be shown.
 * A note opens scrolled to the marked passage (its `#hl` anchor); a PDF page is scrolled by the viewer script.
 */
export function viewHref(chunk: Chunk | undefined, sources: readonly ServedSource[], quote: string): string | null {
  const doc = chunk ? sources.find((s) => s.source === chunk.source) : undefined;
  if (!chunk || !doc) return null;
  return `/view${query({ chunk: chunk.chunk_id, quote })}${doc.kind === 'pdf' ? '' : '#hl'}`;
}

/** A `/view` link to one physical page of a PDF, keeping the quote to look for there. */
function pageHref(docId: string, page: number, quote: string): string {
  return `/view${query({ doc: docId, page, quote })}`;
}

/**
 * `/view` for a PDF: pdf.js renders the physical page and highlights the quote, with links to the pages before and
 * after (a quote may run onto the next page); without JavaScript the links still work and the passage text stays readable.
 */
export function pdfViewPage(options: {
  title: string;
  docId: string;
  pdfPage: number;
  quote: string;
  passage: string;
  where: string;
}): string {
  const { docId, pdfPage, quote } = options;
  const fileUrl = `/files/${docId}`;
  const pager = `<nav class="pager" aria-label="翻页 Pages">
<a id="prev-page" href="${escapeHtml(pageHref(docId, Math.max(pdfPage - 1, 1), quote))}"${pdfPage <= 1 ? ' hidden' : ''}>‹ 上一页 Previous</a>
<span id="page-number">第 ${pdfPage} 页 (PDF page)</span>
<a id="next-page" href="${escapeHtml(pageHref(docId, pdfPage + 1, quote))}">下一页 Next ›</a>
</nav>`;
  const passage = options.passage
    ? `<section class="passage"><h2>原文 Passage</h2><p>${markQuote(options.passage, quote)}</p></section>\n`
    : '';
  return layout(
    options.title,
    `<h1>${escapeHtml(options.title)}</h1>
<p class="where">${escapeHtml(options.where)}</p>
${pager}
<div id="viewer" class="viewer" data-url="${escapeHtml(fileUrl)}" data-doc="${escapeHtml(docId)}" data-page="${pdfPage}" data-quote="${escapeHtml(quote)}">
<div class="page-box"><canvas id="page-canvas"></canvas><div id="highlights" class="highlights"></div></div>
<p id="viewer-status" class="status">正在加载 Loading the page…</p>
</div>
${passage}<p><a id="open-pdf" href="${escapeHtml(fileUrl)}#page=${pdfPage}">打开 PDF Open the PDF</a></p>`,
    { script: '/assets/viewer.js' },
  );
}

/** `/view` for a Markdown note: the note rendered as a reader sees it, the passage marked and scrolled into view with its heading. */
export function noteViewPage(options: { title: string; where: string; html: string; marked: boolean }): string {
  const status = options.marked ? '' : '<p class="status">本文未找到引文 (quote not found in this note)</p>\n';
  return layout(
    options.title,
    `<h1>${escapeHtml(options.title)}</h1>
<p class="where">${escapeHtml(options.where)}</p>
${status}<article class="note-body">
${options.html}
</article>`,
    { script: '/assets/note.js' },
  );
}

/** `/view` for plain-text notes: the file's text with the passage marked, scrolled to by its anchor. */
export function textViewPage(options: { title: string; text: string; quote: string }): string {
  return layout(
    options.title,
    `<h1>${escapeHtml(options.title)}</h1>\n<pre class="note-text">${markQuote(options.text, options.quote, 'hl')}</pre>`,
  );
}

/**
 * Escapes `text` and wraps the first occurrence of `quote` (compared without whitespace) in `<mark>`: each part of a
 * quote with an inner ellipsis in its own mark, the first carrying `id`.
 */
export function markQuote(text: string, quote: string, id?: string): string {
  const parts = quoteParts(quote);
  // Found in the whitespace-free text, marked at the original's characters.
  const { flat, positions } = squeezeText(text);
  const spans = parts.length > 0 ? quotePartSpans(flat, parts) : null;
  if (!spans) return escapeHtml(text);
  let html = '';
  let at = 0;
  spans.forEach(([from, to], i) => {
    const start = positions[from] ?? 0;
    const end = (positions[to - 1] ?? start) + 1;
    const idAttr = id && i === 0 ? ` id="${id}"` : '';
    html += `${escapeHtml(text.slice(at, start))}<mark${idAttr}>${escapeHtml(text.slice(start, end))}</mark>`;
    at = end;
  });
  return html + escapeHtml(text.slice(at));
}

/**
 * `/view?chunk=…&quote=…`: a passage in its source. A PDF opens at the page the quote starts on (a chunk may span
 * pages), a Markdown note rendered with the quote marked, a text note as text. Without a quote, the passage's start.
 */
export async function chunkViewPage(chunk: Chunk, doc: ServedSource, rawQuote: string): Promise<string> {
  const quote = rawQuote || chunk.text.slice(0, 60);
  const at = quoteLocation(chunk, quote);
  const where = formatCitation({ ...chunk, ...at });
  if (doc.kind === 'pdf' && chunk.pdf_page_start !== null) {
    const pdfPage = quotePdfPage(chunk, quote) ?? chunk.pdf_page_start;
    return pdfViewPage({ title: chunk.book, docId: doc.id, pdfPage, quote, passage: chunk.text, where });
  }
  // The note's name heads the page, the citation (which opens with that name) under it, as for a PDF.
  return noteView(doc, chunk.book, where, quote);
}

/** `/view?doc=…&page=…&quote=…`: a document at a physical page (a PDF) or whole (a note), the quote marked if given. */
export async function docViewPage(doc: ServedSource, page: number, quote: string): Promise<string> {
  if (doc.kind === 'pdf') return pdfViewPage({ title: doc.book, docId: doc.id, pdfPage: page, quote, passage: '', where: doc.source });
  return noteView(doc, doc.book, doc.source, quote);
}

async function noteView(doc: ServedSource, title: string, where: string, quote: string): Promise<string> {
  const text = await readFile(doc.file, 'utf8');
  if (doc.kind !== 'md') return textViewPage({ title, text, quote });
  const note = renderNote(text, quote);
  return noteViewPage({ title, where, html: note.html, marked: note.marked || quote === '' });
}

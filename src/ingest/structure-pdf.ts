import type { OutlineEntry, Warning } from '../types.js';
import { kindLevelsFromOutline, numberingKind, titleKey } from './headings.js';
import { mapPageLabels } from './page-labels.js';
import { parseToc } from './parse-toc.js';
import type { PdfLine, RawPdf } from './pdf-types.js';
import { isCjkChar } from './rebuild-lines.js';
import { findRunningLines } from './running-lines.js';
import type { Segment } from './segment.js';

/** A PDF turned into section-bounded body text, its outline and its page labels. */
export interface StructuredSource {
  segments: Segment[];
  outline: OutlineEntry[];
  /** Printed label per physical page (index 0 = page 1). */
  labels: string[];
  tocPages: number[];
  /** Texts removed as running heads/footers. */
  runningTexts: string[];
  warnings: Warning[];
  /** Pages whose text layer is empty. */
  noTextPages: number;
}

const SENTENCE_END = /[。！？；!?;：:]$/u;

/** The body font size: the size carrying the most characters. */
export function modalSize(lines: readonly PdfLine[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) weight.set(l.size, (weight.get(l.size) ?? 0) + l.text.length);
  let best = 0;
  let size = 10;
  for (const [s, w] of weight) if (w > best) [best, size] = [w, s];
  return size;
}

interface OutlineTarget {
  title: string;
  key: string;
  level: number;
  page: string | null;
  pdfPage: number | null;
}

/**
 * Builds the structure of a parsed PDF: drops running heads/footers and TOC pages, maps printed page labels,
 * recovers the outline (PDF bookmarks, else the printed TOC), detects headings by numbering, font size, bold and
 * TOC match, and cuts the body into segments that never cross a heading.
 */
export function structurePdf(raw: RawPdf, meta: { book: string; source: string }): StructuredSource {
  const warnings: Warning[] = raw.warnings.map((message) => ({ where: meta.source, message }));
  const allLines = raw.pages.flatMap((p) => p.lines);
  const bodySize = modalSize(allLines);
  const running = findRunningLines(raw.pages, bodySize);
  const dropped = (page: number, line: number): boolean => running.drop.get(page)?.has(line) === true;
  const labels = mapPageLabels(raw.numPages, raw.pageLabels, running.numbers);
  const labelOf = (pdfPage: number | null): string | null => (pdfPage === null ? null : (labels[pdfPage - 1] ?? null) || null);
  const toc = parseToc(raw.pages, dropped);
  const tocSet = new Set(toc.tocPages);

  // The outline the headings are reconciled with: bookmarks when the PDF has them, else the printed TOC.
  const targets: OutlineTarget[] =
    raw.bookmarks.length > 0
      ? raw.bookmarks.map((b) => ({ title: b.title, key: titleKey(b.title), level: Math.min(b.level, 3), page: labelOf(b.pdfPage), pdfPage: b.pdfPage }))
      : toc.entries.map((e) => ({ title: e.title, key: titleKey(e.title), level: e.level, page: e.page, pdfPage: null }));
  const kindLevels = kindLevelsFromOutline(targets);
  const hasOutline = targets.length > 0;

  // Without an outline, unnumbered large-font lines are headings only in documents that use no numbering at all.
  const bodyLines = raw.pages.filter((p) => !tocSet.has(p.index)).flatMap((p) => p.lines.filter((_, i) => !dropped(p.index, i)));
  const anyNumbered = bodyLines.some((l) => {
    const k = numberingKind(l.text);
    return (k === 'chapter' || k === 'section') && l.text.length <= 40;
  });
  const largeSizes = [...new Set(bodyLines.filter((l) => l.size >= bodySize * 1.2 && l.text.length <= 30).map((l) => l.size))].sort((a, b) => b - a);

  let cursor = 0;
  const matchTarget = (key: string): OutlineTarget | undefined => {
    for (let i = cursor; i < targets.length; i++) {
      if (targets[i]?.key === key) {
        cursor = i + 1;
        return targets[i];
      }
    }
    return targets.find((t) => t.key === key);
  };

  const headingLevel = (line: PdfLine): { level: number; target?: OutlineTarget } | null => {
    const text = line.text.trim();
    if (text.length === 0 || text.length > 40 || /[。；;]$|[，,。]/u.test(text)) return null;
    const kind = numberingKind(text);
    if (kind === 'article') return null;
    const larger = line.size >= bodySize * 1.1 || line.bold;
    if (hasOutline) {
      const key = titleKey(text);
      if (targets.some((t) => t.key === key) && (kind !== null ? line.size >= bodySize - 0.3 : larger)) {
        const target = matchTarget(key);
        if (target) return { level: target.level, target };
      }
    }
    if (kind !== null) {
      const level = kindLevels[kind];
      if (level > 3 || line.size < bodySize - 0.3) return null;
      if ((kind === 'cn-item' || kind === 'cn-paren' || kind === 'dec2' || kind === 'dec3') && !larger && (text.length > 25 || /[：:、，]/u.test(text.slice(2)))) return null;
      return { level };
    }
    if (!hasOutline && !anyNumbered && line.size >= bodySize * 1.2 && text.length <= 30) {
      const rank = largeSizes.indexOf(line.size);
      if (rank >= 0 && rank < 3) return { level: rank + 1 };
    }
    return null;
  };

  const segments: Segment[] = [];
  const found = new Map<OutlineTarget, number>();
  const foundHeadings: { title: string; level: number; pdfPage: number }[] = [];
  let chapter = '';
  let section = '';
  let subsection = '';
  let current: Segment | null = null;
  let offset = 0;
  let prev: PdfLine | null = null;
  let prevRight = 0;
  let noTextPages = 0;
  const startSegment = (): void => {
    if (current && current.text.trim() !== '') {
      segments.push(current);
      offset = current.start + current.text.length + 2;
    }
    current = null;
    prev = null;
  };

  for (const page of raw.pages) {
    if (page.itemCount === 0 && !page.error) noTextPages++;
    if (tocSet.has(page.index)) continue;
    const lines = page.lines.filter((_, i) => !dropped(page.index, i));
    // The right margin of full lines, per column, tells a wrapped line from a paragraph end.
    const rightByColumn = new Map<number, number>();
    for (const l of lines) if (Math.abs(l.size - bodySize) < 0.5) rightByColumn.set(l.column, Math.max(rightByColumn.get(l.column) ?? 0, l.right));
    for (const line of lines) {
      const heading = headingLevel(line);
      if (heading) {
        startSegment();
        const title = line.text.trim().replace(/\s+/gu, ' ');
        if (heading.level === 1) [chapter, section, subsection] = [title, '', ''];
        else if (heading.level === 2) [section, subsection] = [title, ''];
        else subsection = title;
        foundHeadings.push({ title, level: heading.level, pdfPage: page.index });
        if (heading.target && !found.has(heading.target)) found.set(heading.target, page.index);
        continue;
      }
      const seg: Segment = current ?? { chapter, section, subsection, text: '', start: offset, pages: [] };
      current = seg;
      const text = line.text.trim();
      const lastPage = seg.pages[seg.pages.length - 1];
      let sep = '';
      if (seg.text.length > 0) {
        const p: PdfLine | null = prev;
        const full = p !== null && prevRight >= (rightByColumn.get(p.column) ?? prevRight) - 1.5 * p.size;
        const lastChar = seg.text[seg.text.length - 1];
        if (full && !SENTENCE_END.test(seg.text)) sep = isCjkChar(lastChar) || isCjkChar(text[0]) ? '' : ' ';
        else sep = '\n';
        if (sep === ' ' && lastChar === '-' && /[a-z]-$/iu.test(seg.text)) {
          seg.text = seg.text.slice(0, -1);
          sep = '';
        }
      }
      if (!lastPage || lastPage.pdfPage !== page.index) seg.pages.push({ offset: seg.text.length + sep.length, pdfPage: page.index });
      seg.text += sep + text;
      prev = line;
      prevRight = line.right;
    }
    // A page break ends the line context but not the segment: sections continue across pages.
    prev = current ? prev : null;
  }
  startSegment();

  if (noTextPages > 0 && noTextPages >= raw.numPages * 0.5) {
    warnings.push({ where: meta.source, message: `no text found on ${noTextPages} of ${raw.numPages} pages (blank, or images where OCR found no text); transcribe key pages into rawdoc/table_explain.csv` });
  }

  let outline: OutlineEntry[];
  if (targets.length > 0) {
    outline = targets.map((t) => {
      const pdfPage = t.pdfPage ?? found.get(t) ?? null;
      return { book: meta.book, source: meta.source, title: t.title, level: t.level, page: t.page ?? labelOf(pdfPage), pdf_page: pdfPage };
    });
  } else {
    outline = foundHeadings.map((h) => ({ book: meta.book, source: meta.source, title: h.title, level: h.level, page: labelOf(h.pdfPage), pdf_page: h.pdfPage }));
  }
  return { segments, outline, labels, tocPages: toc.tocPages, runningTexts: [...running.texts], warnings, noTextPages };
}

import { normalizeText } from '../text/normalize-text.js';
import type { OutlineEntry, Warning } from '../types.js';
import {
  kindLevelsFromOutline,
  legacyHeadingFields,
  numberingKind,
  pushHeading,
  titleKey,
  type HeadingKind,
  type OpenHeading,
} from './headings.js';
import { mapPageLabels } from './page-labels.js';
import { parseToc, type TocEntry } from './parse-toc.js';
import type { PdfBookmark, PdfLine, PdfPage, RawPdf } from './pdf-types.js';
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

/** One entry of the outline the body headings are reconciled with (a bookmark or a printed TOC entry). */
export interface OutlineTarget {
  title: string;
  key: string;
  level: number;
  /** Printed page the bookmark or TOC gives, when it gives one. */
  page: string | null;
  /** Physical page the bookmark points at; TOC entries learn theirs from the body heading they match. */
  pdfPage: number | null;
}

/** A heading found in the body, in reading order. */
export interface FoundHeading {
  title: string;
  level: number;
  pdfPage: number;
  /** The outline entry it matched, if any. */
  target?: OutlineTarget;
}

/** Step 1: every line's text (and bookmark title) normalised: standard ideographs, no zero-width characters. */
export function normalizePages(raw: RawPdf): { pages: PdfPage[]; bookmarks: PdfBookmark[] } {
  const pages = raw.pages.map((p) => ({ ...p, lines: p.lines.map((l) => ({ ...l, text: normalizeText(l.text) })) }));
  const bookmarks = raw.bookmarks.map((b) => ({ ...b, title: normalizeText(b.title) }));
  return { pages, bookmarks };
}

/** What surrounds the body on every page: its font size, the running heads/footers to drop, the printed labels. */
export interface PageFurniture {
  bodySize: number;
  dropped: (page: number, line: number) => boolean;
  labels: string[];
  labelOf: (pdfPage: number | null) => string | null;
  runningTexts: string[];
}

/** Step 2: the body font size, running heads and footers, and printed page labels (footers, else /PageLabels). */
export function findPageFurniture(pages: readonly PdfPage[], numPages: number, pageLabels: readonly string[] | null): PageFurniture {
  const bodySize = modalSize(pages.flatMap((p) => p.lines));
  const running = findRunningLines(pages, bodySize);
  const labels = mapPageLabels(numPages, pageLabels, running.numbers);
  return {
    bodySize,
    dropped: (page, line) => running.drop.get(page)?.has(line) === true,
    labels,
    labelOf: (pdfPage) => (pdfPage === null ? null : (labels[pdfPage - 1] ?? null) || null),
    runningTexts: [...running.texts],
  };
}

/** Step 4: the outline to reconcile headings with: the PDF's bookmarks when it has them, else the printed TOC. */
export function outlineTargets(
  bookmarks: readonly PdfBookmark[],
  toc: readonly TocEntry[],
  labelOf: PageFurniture['labelOf'],
): OutlineTarget[] {
  if (bookmarks.length > 0) {
    return bookmarks.map((b) => ({ title: b.title, key: titleKey(b.title), level: b.level, page: labelOf(b.pdfPage), pdfPage: b.pdfPage }));
  }
  return toc.map((e) => ({ title: e.title, key: titleKey(e.title), level: e.level, page: e.page, pdfPage: null }));
}

/** A body page with its running heads/footers removed. */
export interface BodyPage {
  page: PdfPage;
  lines: PdfLine[];
}

/** Step 5: the pages that carry body text (not the TOC), without running heads and footers. */
export function bodyPages(pages: readonly PdfPage[], tocPages: readonly number[], dropped: PageFurniture['dropped']): BodyPage[] {
  const toc = new Set(tocPages);
  return pages.filter((p) => !toc.has(p.index)).map((page) => ({ page, lines: page.lines.filter((_, i) => !dropped(page.index, i)) }));
}

/** The numbering of a book's structure: a body heading of these kinds always has a place in the outline. */
const STRUCTURAL_KINDS: ReadonlySet<string> = new Set(['part', 'subpart', 'chapter', 'section']);

/** Kinds that are headings whatever the outline says; `（一）` only when the outline lists such headings. */
const ALWAYS_HEADING: ReadonlySet<HeadingKind> = new Set(['part', 'subpart', 'chapter', 'section', 'cn-item', 'dec2', 'dec3']);

/**
 * Step 6: decides which lines are headings and at what level. A line matching an outline entry takes the entry's
 * level (entries are matched in order, never across a coarser entry, so the many `第一章 一般规定` of a code each
 * find their own); a numbered line takes its kind's level as the outline uses it; without any numbering or outline,
 * the three largest font sizes are the levels.
 */
export function headingClassifier(
  targets: readonly OutlineTarget[],
  body: readonly BodyPage[],
  bodySize: number,
): (line: PdfLine) => { level: number; target?: OutlineTarget } | null {
  const kindLevels = kindLevelsFromOutline(targets);
  const outlineKinds = new Set(targets.map((t) => numberingKind(t.title)));
  const hasOutline = targets.length > 0;
  const bodyLines = body.flatMap((b) => b.lines);
  // Without an outline, unnumbered large-font lines are headings only in documents that use no numbering at all.
  const anyNumbered = bodyLines.some((l) => {
    const k = numberingKind(l.text);
    return (k === 'chapter' || k === 'section' || k === 'part') && l.text.length <= 40;
  });
  const largeSizes = [...new Set(bodyLines.filter((l) => l.size >= bodySize * 1.2 && l.text.length <= 30).map((l) => l.size))].sort(
    (a, b) => b - a,
  );
  const keyCount = new Map<string, number>();
  for (const t of targets) keyCount.set(t.key, (keyCount.get(t.key) ?? 0) + 1);
  const matched = new Set<number>();
  const topLevel = Math.min(...targets.map((t) => t.level));
  let cursor = 0;
  const matchTarget = (key: string): OutlineTarget | undefined => {
    let coarsest = Number.POSITIVE_INFINITY;
    for (let i = cursor; i < targets.length; i++) {
      const t = targets[i];
      if (!t) continue;
      if (t.key === key && t.level <= coarsest && !matched.has(i)) {
        matched.add(i);
        cursor = i + 1;
        return t;
      }
      coarsest = Math.min(coarsest, t.level);
    }
    // Out of order, or after a heading the body does not print: a top-level title the outline holds once resynchronises.
    if (keyCount.get(key) !== 1) return undefined;
    const i = targets.findIndex((t) => t.key === key);
    if (i < 0 || matched.has(i) || (targets[i]?.level ?? 0) > topLevel) return undefined;
    matched.add(i);
    cursor = i + 1;
    return targets[i];
  };

  return (line) => {
    const text = line.text.trim();
    if (text.length === 0 || text.length > 40 || /[。；;]$|[，,。]/u.test(text)) return null;
    const kind = numberingKind(text);
    if (kind === 'article') return null;
    const larger = line.size >= bodySize * 1.1 || line.bold;
    if (hasOutline && keyCount.has(titleKey(text)) && (kind !== null ? line.size >= bodySize - 0.3 : larger)) {
      const target = matchTarget(titleKey(text));
      if (target) return { level: target.level, target };
    }
    if (kind !== null) {
      if (!ALWAYS_HEADING.has(kind) && !outlineKinds.has(kind)) return null;
      if (line.size < bodySize - 0.3) return null;
      if (
        (kind === 'cn-item' || kind === 'cn-paren' || kind === 'dec2' || kind === 'dec3') &&
        !larger &&
        (text.length > 25 || /[：:、，]/u.test(text.slice(2)))
      )
        return null;
      return { level: kindLevels[kind] };
    }
    if (!hasOutline && !anyNumbered && line.size >= bodySize * 1.2 && text.length <= 30) {
      const rank = largeSizes.indexOf(line.size);
      if (rank >= 0 && rank < 3) return { level: rank + 1 };
    }
    return null;
  };
}

/**
 * Step 7: the body cut into segments that never cross a heading, each carrying its heading path. Lines are joined
 * without a break when the previous one reaches the right margin of its column (a wrapped line), with one otherwise.
 */
export function cutSegments(
  body: readonly BodyPage[],
  classify: ReturnType<typeof headingClassifier>,
  bodySize: number,
): { segments: Segment[]; headings: FoundHeading[] } {
  const segments: Segment[] = [];
  const headings: FoundHeading[] = [];
  let path: OpenHeading[] = [];
  let current: Segment | null = null;
  let offset = 0;
  let prev: PdfLine | null = null;
  const flush = (): void => {
    if (current && current.text.trim() !== '') {
      segments.push(current);
      offset = current.start + current.text.length + 2;
    }
    current = null;
    prev = null;
  };
  for (const { page, lines } of body) {
    // The right margin of full lines, per column, tells a wrapped line from a paragraph end.
    const rightByColumn = new Map<number, number>();
    for (const l of lines)
      if (Math.abs(l.size - bodySize) < 0.5) rightByColumn.set(l.column, Math.max(rightByColumn.get(l.column) ?? 0, l.right));
    for (const line of lines) {
      const heading = classify(line);
      if (heading) {
        flush();
        const title = line.text.trim().replace(/\s+/gu, ' ');
        path = pushHeading(path, { title, level: heading.level });
        headings.push({ title, level: heading.level, pdfPage: page.index, ...(heading.target ? { target: heading.target } : {}) });
        continue;
      }
      const titles = path.map((h) => h.title);
      const seg: Segment = current ?? { ...legacyHeadingFields(titles), headings: titles, text: '', start: offset, pages: [] };
      current = seg;
      const text = line.text.trim();
      const lastPage = seg.pages[seg.pages.length - 1];
      let sep = '';
      if (seg.text.length > 0) {
        const p: PdfLine | null = prev;
        const full = p !== null && p.right >= (rightByColumn.get(p.column) ?? p.right) - 1.5 * p.size;
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
    }
  }
  flush();
  return { segments, headings };
}

/**
 * Step 8: the outline. Each entry keeps the printed page its bookmark or TOC line gives, and its physical page is
 * where its heading was found in the body; so entries of a 目录 without page numbers get the page where they start,
 * and never the 目录 page itself. Body headings the bookmarks or the 目录 leave out join the outline in reading order,
 * where they stand among the entries found around them: every 编/分编/章/节 (a statute's 目录 that stops at the 分编
 * while the body has its 章 and 节), and finer numbering (一、, 1.1) only of a kind the outline itself lists, since a
 * textbook's 目录 that stops at the 节 leaves its in-text 一、 headings out by design. Without an outline, the
 * headings found become it.
 */
export function buildOutline(
  targets: readonly OutlineTarget[],
  found: readonly FoundHeading[],
  meta: { book: string; source: string },
  labelOf: PageFurniture['labelOf'],
  tocPages: readonly number[],
): OutlineEntry[] {
  const toc = new Set(tocPages);
  const fromBody = (h: FoundHeading): OutlineEntry => ({
    book: meta.book,
    source: meta.source,
    title: h.title,
    level: h.level,
    page: labelOf(h.pdfPage),
    pdf_page: h.pdfPage,
  });
  if (targets.length === 0) return found.map(fromBody);
  const foundAt = new Map<OutlineTarget, number>();
  for (const h of found) if (h.target && !foundAt.has(h.target)) foundAt.set(h.target, h.pdfPage);
  const fromTarget = (t: OutlineTarget): OutlineEntry => {
    const bookmarked = t.pdfPage !== null && !toc.has(t.pdfPage) ? t.pdfPage : null;
    const pdfPage = bookmarked ?? foundAt.get(t) ?? null;
    // The printed page the bookmark or TOC gives is what the book says; the found heading's page fills the gaps.
    const page = t.page ?? labelOf(pdfPage);
    return { book: meta.book, source: meta.source, title: t.title, level: t.level, page, pdf_page: pdfPage };
  };
  const index = new Map(targets.map((t, i) => [t, i]));
  const listedKinds = new Set(targets.map((t) => numberingKind(t.title)));
  const joins = (h: FoundHeading): boolean => {
    const kind = numberingKind(h.title);
    return kind !== null && (STRUCTURAL_KINDS.has(kind) || listedKinds.has(kind));
  };
  const out: OutlineEntry[] = [];
  let next = 0;
  for (const h of found) {
    const i = h.target ? index.get(h.target) : undefined;
    if (i === undefined) {
      // A heading the outline does not list, placed after the entries read so far.
      if (joins(h)) out.push(fromBody(h));
      continue;
    }
    // Entries before it that the body never printed keep their place in the outline's order.
    for (; next <= i; next++) {
      const t = targets[next];
      if (t) out.push(fromTarget(t));
    }
  }
  for (; next < targets.length; next++) {
    const t = targets[next];
    if (t) out.push(fromTarget(t));
  }
  return out;
}

/**
 * Builds the structure of a parsed PDF, step by step: normalise characters; find running heads/footers and printed
 * page labels; read the printed TOC; choose the outline (bookmarks, else the TOC); keep the body pages; classify
 * headings; cut the body into heading-bounded segments; place the outline entries.
 */
export function structurePdf(raw: RawPdf, meta: { book: string; source: string }): StructuredSource {
  const warnings: Warning[] = raw.warnings.map((message) => ({ where: meta.source, message }));
  const { pages, bookmarks } = normalizePages(raw);
  const furniture = findPageFurniture(pages, raw.numPages, raw.pageLabels);
  const toc = parseToc(pages, furniture.dropped);
  const targets = outlineTargets(bookmarks, toc.entries, furniture.labelOf);
  const body = bodyPages(pages, toc.tocPages, furniture.dropped);
  const classify = headingClassifier(targets, body, furniture.bodySize);
  const { segments, headings } = cutSegments(body, classify, furniture.bodySize);
  const outline = buildOutline(targets, headings, meta, furniture.labelOf, toc.tocPages);
  const noTextPages = pages.filter((p) => p.itemCount === 0 && !p.error).length;
  if (noTextPages > 0 && noTextPages >= raw.numPages * 0.5) {
    warnings.push({
      where: meta.source,
      message: `no text found on ${noTextPages} of ${raw.numPages} pages (blank, or images where OCR found no text); transcribe key pages into rawdoc/table_explain.csv`,
    });
  }
  return {
    segments,
    outline,
    labels: furniture.labels,
    tocPages: toc.tocPages,
    runningTexts: furniture.runningTexts,
    warnings,
    noTextPages,
  };
}

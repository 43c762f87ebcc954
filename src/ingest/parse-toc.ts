import { numberingKind, DEFAULT_KIND_LEVELS } from './headings.js';
import type { PdfPage } from './pdf-types.js';
import { parseRoman } from './running-lines.js';

/** One line of a printed table of contents. */
export interface TocEntry {
  title: string;
  level: number;
  /** Printed page the TOC gives. */
  page: string;
  /** 1-based physical page of the TOC page it was read from. */
  tocPage: number;
}

/** `title ....... 12`, `title · · · 12`, `title …… 12`, or `title<wide gap>12` (rebuilt as a space). */
const LEADER_LINE = /^(.+?)\s*(?:[.．·…⋯‥・_]\s*){2,}\s*(\d{1,4}|[ivxlcdm]{1,7})$/iu;
const GAP_LINE = /^(.*\S)\s+(\d{1,4}|[ivxlcdm]{1,7})$/iu;
const TOC_TITLE = /^(?:目\s*录|目\s*次|contents|table of contents)$/iu;

function matchEntry(text: string): { title: string; page: string; leader: boolean } | null {
  const t = text.trim();
  const m = LEADER_LINE.exec(t);
  if (m?.[1] && m[2]) return { title: m[1].trim(), page: m[2], leader: true };
  const g = GAP_LINE.exec(t);
  if (g?.[1] && g[2] && /\p{L}/u.test(g[1])) return { title: g[1].trim(), page: g[2], leader: false };
  return null;
}

/** Whether a page reads as a table of contents: mostly `title … page` lines, or a 目录 title over several such lines. */
export function isTocPage(lines: readonly { text: string }[]): boolean {
  const texts = lines.map((l) => l.text.trim()).filter((t) => t !== '');
  if (texts.length === 0) return false;
  let leader = 0;
  let gap = 0;
  for (const t of texts) {
    const m = matchEntry(t);
    if (m?.leader) leader++;
    else if (m) gap++;
  }
  const titled = texts.some((t) => TOC_TITLE.test(t));
  const ratio = (leader + gap) / texts.length;
  if (leader >= 3 && ratio >= 0.5) return true;
  if (titled && leader + gap >= 3 && ratio >= 0.3) return true;
  return false;
}

/**
 * Finds the table-of-contents pages (in the front of the book: within the first 20 pages or 15%) and parses
 * their entries. Levels come from indentation when entries sit at several indents, else from numbering
 * (第X章 = 1, 第X节 = 2, 一、 = 3). A title that wraps onto a line without a page number is joined to the next.
 */
export function parseToc(pages: readonly PdfPage[], dropped: (page: number, line: number) => boolean): { entries: TocEntry[]; tocPages: number[] } {
  const limit = Math.max(20, Math.ceil(pages.length * 0.15));
  const tocPages: number[] = [];
  for (const page of pages.slice(0, limit)) {
    const lines = page.lines.filter((_, i) => !dropped(page.index, i));
    const continues = tocPages.length > 0 && tocPages[tocPages.length - 1] === page.index - 1;
    if (isTocPage(lines) || (continues && lines.filter((l) => matchEntry(l.text)).length >= Math.max(2, lines.length * 0.4))) tocPages.push(page.index);
  }
  const raw: { title: string; page: string; x: number; tocPage: number }[] = [];
  for (const index of tocPages) {
    const page = pages[index - 1];
    if (!page) continue;
    let pending = '';
    let pendingX = 0;
    page.lines.forEach((line, i) => {
      if (dropped(index, i)) return;
      const text = line.text.trim();
      if (TOC_TITLE.test(text)) return;
      const m = matchEntry(text);
      if (!m) {
        pending = pending === '' ? text : `${pending}${text}`;
        if (pending === text) pendingX = line.x;
        return;
      }
      const title = pending !== '' ? `${pending}${m.title}` : m.title;
      raw.push({ title: title.replace(/\s+/gu, ' '), page: m.page, x: pending !== '' ? pendingX : line.x, tocPage: index });
      pending = '';
    });
  }
  // Cluster indents (4 pt buckets) so entries at the same indent share a level.
  const indents = [...new Set(raw.map((r) => Math.round(r.x / 4)))].sort((a, b) => a - b);
  const merged: number[] = [];
  for (const x of indents) if (merged.length === 0 || x - (merged[merged.length - 1] ?? 0) > 1) merged.push(x);
  const byIndent = merged.length > 1 && merged.length <= 4;
  const entries = raw.map((r): TocEntry => {
    let level: number;
    if (byIndent) {
      const bucket = Math.round(r.x / 4);
      let rank = 0;
      merged.forEach((m, i) => {
        if (bucket >= m - 1) rank = i;
      });
      level = Math.min(3, rank + 1);
    } else {
      const kind = numberingKind(r.title);
      level = kind && kind !== 'article' ? Math.min(3, DEFAULT_KIND_LEVELS[kind]) : 1;
    }
    const page = parseRoman(r.page) !== null ? r.page.toLowerCase() : String(Number(r.page));
    return { title: r.title, level, page, tocPage: r.tocPage };
  });
  return { entries, tocPages };
}

import { numberingKind } from './headings.js';
import type { PdfLine, PdfPage } from './pdf-types.js';

/** A 编/分编/章/节 title. */
function isNumberedTitle(text: string): boolean {
  const kind = numberingKind(text);
  return kind === 'part' || kind === 'subpart' || kind === 'chapter' || kind === 'section';
}

/** A printed page number found in a header or footer. */
export type PageNumber = { kind: 'arabic'; value: number } | { kind: 'roman'; value: number; text: string };

const ROMAN = /^[ivxlcdm]{1,7}$/iu;

/** Parses a roman numeral (i–mmm); null when the text is not one. */
export function parseRoman(text: string): number | null {
  if (!ROMAN.test(text)) return null;
  const values: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };
  let total = 0;
  const s = text.toLowerCase();
  for (let i = 0; i < s.length; i++) {
    const v = values[s[i] ?? ''] ?? 0;
    const next = values[s[i + 1] ?? ''] ?? 0;
    total += v < next ? -v : v;
  }
  return total > 0 ? total : null;
}

/**
 * Recognises a line that is only a page number: `5`, `- 5 -`, `— 5 —`, `– 6 –`, `‒ 7 ‒`, `第 5 页`, `第5页 共9页`,
 * `Page 5`, `5 / 20`, or a roman numeral.
 */
export function parsePageNumberLine(text: string): PageNumber | null {
  const t = text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  const m =
    /^[-—–‒−~·•]?\s*(\d{1,4})\s*[-—–‒−~·•]?$/u.exec(t) ??
    /^第\s*(\d{1,4})\s*页(?:\s*[,，/]?\s*共\s*\d+\s*页)?$/u.exec(t) ??
    /^page\s+(\d{1,4})(?:\s+of\s+\d+)?$/iu.exec(t) ??
    /^(\d{1,4})\s*\/\s*\d{1,4}$/u.exec(t);
  if (m?.[1] !== undefined) return { kind: 'arabic', value: Number(m[1]) };
  const r = /^[-—–‒−~·•]?\s*([ivxlcdm]{1,7})\s*[-—–‒−~·•]?$/iu.exec(t);
  if (r?.[1] !== undefined) {
    const value = parseRoman(r[1]);
    if (value !== null) return { kind: 'roman', value, text: r[1] };
  }
  return null;
}

/** A page number printed at the start or end of a running head (`12  第一章 …`, `… 第一章  13`). */
function embeddedNumber(text: string): PageNumber | null {
  const t = text.normalize('NFKC').trim();
  const m = /^(\d{1,4})\s+\S/u.exec(t) ?? /\S\s+(\d{1,4})$/u.exec(t);
  return m?.[1] !== undefined ? { kind: 'arabic', value: Number(m[1]) } : null;
}

/** Text compared across pages: width-folded, no spaces, digits as `#`, so `— 5 —` and `— 6 —` look alike. */
export function runningKey(text: string): string {
  return text.normalize('NFKC').replace(/\s+/gu, '').replace(/\d+/gu, '#');
}

export interface RunningLines {
  /** `page index → line indices` to drop from the body. */
  drop: Map<number, Set<number>>;
  /** Printed page numbers read from headers and footers, by 1-based physical page. */
  numbers: Map<number, PageNumber>;
  /** Distinct texts removed as running heads/footers (for diagnostics and tests). */
  texts: Set<string>;
}

type Band = 'top' | 'bottom';

interface Candidate {
  page: number;
  line: number;
  band: Band;
  slot: string;
  key: string;
  l: PdfLine;
  /** The line read next below it on the page, if any. */
  below: PdfLine | null;
}

/**
 * A line that opens a list of titles: the line under it is another numbered title of about its size, set close
 * below it (within two of its line heights), as the entries of a 目录 follow each other. A running head is set apart
 * from the body under it, and when a chapter starts at the top of a page the heading under the running head is set
 * much larger (and may repeat its text).
 */
function opensTitleList(l: PdfLine, below: PdfLine | null): boolean {
  return (
    below !== null &&
    isNumberedTitle(below.text) &&
    runningKey(below.text) !== runningKey(l.text) &&
    Math.abs(below.size - l.size) <= 1.5 &&
    l.y - below.y <= 2.2 * Math.max(l.size, below.size)
  );
}

/**
 * Finds running headers and footers: lines in the top or bottom band of the page (the outer two lines,
 * within 12% of the edge) whose digit-normalised text repeats on many pages (>= 30% and >= 3), or that sit
 * at a position shared by many pages and either repeat or are set smaller than the body; plus page-number lines.
 */
export function findRunningLines(pages: readonly PdfPage[], bodySize: number): RunningLines {
  const candidates: Candidate[] = [];
  let pagesWithText = 0;
  for (const page of pages) {
    if (page.lines.length === 0 || page.height <= 0) continue;
    pagesWithText++;
    const order = page.lines.map((l, i) => ({ l, i })).sort((a, b) => b.l.y - a.l.y);
    const take = (list: typeof order, band: Band): void => {
      for (const { l, i } of list) {
        const inBand = band === 'top' ? l.y >= page.height * 0.88 : l.y <= page.height * 0.12;
        if (!inBand) continue;
        const below = order[order.findIndex((o) => o.i === i) + 1]?.l ?? null;
        candidates.push({ page: page.index, line: i, band, slot: `${band}:${Math.round(l.y / 3)}`, key: runningKey(l.text), l, below });
      }
    };
    // Each band takes its own outer two lines: on a page that is nearly empty (the blank verso after the last page
    // of a part) the footer is also among the top two lines, and must still be seen as a footer.
    take(order.slice(0, 2), 'top');
    take(order.slice(-2), 'bottom');
  }
  const threshold = Math.max(3, Math.ceil(pagesWithText * 0.3));
  const textPages = new Map<string, Set<number>>();
  const slotPages = new Map<string, Set<number>>();
  const slotTextPages = new Map<string, Set<number>>();
  const add = (map: Map<string, Set<number>>, key: string, page: number): void => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(page);
  };
  for (const c of candidates) {
    add(textPages, `${c.band}|${c.key}`, c.page);
    add(slotPages, c.slot, c.page);
    add(slotTextPages, `${c.slot}|${c.key}`, c.page);
  }
  const result: RunningLines = { drop: new Map(), numbers: new Map(), texts: new Set() };
  for (const c of candidates) {
    const number = parsePageNumberLine(c.l.text);
    const repeated = (textPages.get(`${c.band}|${c.key}`)?.size ?? 0) >= threshold;
    const slotIsRunning = (slotPages.get(c.slot)?.size ?? 0) >= threshold;
    const repeatsInSlot = (slotTextPages.get(`${c.slot}|${c.key}`)?.size ?? 0) >= 2;
    const smaller = c.l.size < bodySize - 0.3;
    // A smaller line that is itself a numbered title and opens a list of titles (a 目录 line at the top of its page) is
    // not a running head unless it repeats. A running head naming a chapter that fits on two pages is printed once
    // (the law's title on even pages, the chapter on odd ones), so a lone numbered title in the slot is still one
    // when the body follows it.
    const title = smaller && !repeatsInSlot && !repeated && isNumberedTitle(c.l.text) && opensTitleList(c.l, c.below);
    const running = number !== null || repeated || (slotIsRunning && (repeatsInSlot || (smaller && !title)));
    if (!running) continue;
    let set = result.drop.get(c.page);
    if (!set) result.drop.set(c.page, (set = new Set()));
    set.add(c.line);
    if (number === null) result.texts.add(c.l.text);
    const n = number ?? embeddedNumber(c.l.text);
    if (n && !result.numbers.has(c.page)) result.numbers.set(c.page, n);
  }
  return result;
}

import { numberingKind, type HeadingKind } from './headings.js';
import type { PdfPage } from './pdf-types.js';
import { parseRoman } from './running-lines.js';

/** One line of a printed table of contents. */
export interface TocEntry {
  title: string;
  level: number;
  /** Printed page the TOC gives; null for a 目录 that lists titles only. */
  page: string | null;
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

const COARSE_KINDS: ReadonlySet<string> = new Set(['part', 'subpart', 'chapter', 'section']);

/** A line that could be a title in a 目录 without page numbers: short, no sentence punctuation. */
function titleLike(text: string): boolean {
  return text.length > 0 && text.length <= 30 && !/[。；;，,：:]/u.test(text) && numberingKind(text) !== 'article';
}

/**
 * A 目录 that lists titles without page numbers (statute books): under a 目录 title (or continuing such a page),
 * at least `min` title-like lines, almost all of them, and at least half numbered 编/分编/章/节.
 */
function isTitleOnlyTocPage(texts: readonly string[], continues: boolean): boolean {
  const titled = texts.some((t) => TOC_TITLE.test(t));
  if (!titled && !continues) return false;
  const rest = texts.filter((t) => !TOC_TITLE.test(t));
  const min = titled ? 5 : 2;
  if (rest.length < min) return false;
  const like = rest.filter(titleLike).length;
  const numbered = rest.filter((t) => COARSE_KINDS.has(numberingKind(t) ?? '')).length;
  return like >= rest.length * 0.9 && numbered >= rest.length * 0.5;
}

/** Cluster indents (4 pt buckets); returns the rank of each x, or null when indents do not form 2–4 levels. */
function indentRanks(xs: readonly number[]): ((x: number) => number) | null {
  const indents = [...new Set(xs.map((x) => Math.round(x / 4)))].sort((a, b) => a - b);
  const merged: number[] = [];
  for (const x of indents) if (merged.length === 0 || x - (merged[merged.length - 1] ?? 0) > 1) merged.push(x);
  if (merged.length < 2 || merged.length > 4) return null;
  return (x: number): number => {
    const bucket = Math.round(x / 4);
    let rank = 0;
    merged.forEach((m, i) => {
      if (bucket >= m - 1) rank = i;
    });
    return rank;
  };
}

const KIND_RANK: Readonly<Record<HeadingKind, number>> = {
  part: 0,
  subpart: 1,
  chapter: 2,
  section: 3,
  'cn-item': 4,
  'cn-paren': 5,
  dec2: 3,
  dec3: 4,
};

/**
 * Levels of TOC entries: indentation first, then numbering within one indent. Each (indent, numbering kind) pair is a
 * step, ordered by indent then 编 > 分编 > 章 > 节 > 一、; an unnumbered title shares the coarsest step of its indent.
 * So a statute 目录 that lists 分编 and 章 at one indent still nests 章 under 分编, and a book whose chapters are
 * whole laws (law titles unnumbered, the laws' 第X章 indented) puts the laws' chapters at level 2.
 */
export function tocLevels(entries: readonly { title: string; x: number }[]): number[] {
  const rankOf = indentRanks(entries.map((e) => e.x)) ?? ((): number => 0);
  const steps = new Map<number, Set<number>>();
  const keyed = entries.map((e) => {
    const kind = numberingKind(e.title);
    const indent = rankOf(e.x);
    const kindRank = kind && kind !== 'article' ? KIND_RANK[kind] : null;
    let set = steps.get(indent);
    if (!set) steps.set(indent, (set = new Set()));
    if (kindRank !== null) set.add(kindRank);
    return { indent, kindRank };
  });
  const order: string[] = [];
  for (const indent of [...steps.keys()].sort((a, b) => a - b)) {
    const kinds = [...(steps.get(indent) ?? [])].sort((a, b) => a - b);
    if (kinds.length === 0) order.push(`${indent}:u`);
    for (const k of kinds) order.push(`${indent}:${k}`);
  }
  return keyed.map(({ indent, kindRank }) => {
    const coarsest = [...(steps.get(indent) ?? [])].sort((a, b) => a - b)[0];
    const key = kindRank !== null ? `${indent}:${kindRank}` : coarsest !== undefined ? `${indent}:${coarsest}` : `${indent}:u`;
    return order.indexOf(key) + 1;
  });
}

/**
 * Finds the table-of-contents pages (in the front of the book: within the first 20 pages or 15%) and parses
 * their entries (`tocLevels` gives their levels). A title that wraps onto a line without a page number is joined to
 * the next. A 目录 without page numbers (statute books) gives entries with a null page: the body headings they match
 * tell where they start.
 */
export function parseToc(
  pages: readonly PdfPage[],
  dropped: (page: number, line: number) => boolean,
): { entries: TocEntry[]; tocPages: number[] } {
  const limit = Math.max(20, Math.ceil(pages.length * 0.15));
  const tocPages: number[] = [];
  const titleOnly = new Set<number>();
  for (const page of pages.slice(0, limit)) {
    const lines = page.lines.filter((_, i) => !dropped(page.index, i));
    const last = tocPages[tocPages.length - 1];
    const continues = last !== undefined && last === page.index - 1;
    const texts = lines.map((l) => l.text.trim()).filter((t) => t !== '');
    if (
      isTocPage(lines) ||
      (continues && !titleOnly.has(last) && lines.filter((l) => matchEntry(l.text)).length >= Math.max(2, lines.length * 0.4))
    ) {
      tocPages.push(page.index);
    } else if (isTitleOnlyTocPage(texts, continues && titleOnly.has(last))) {
      tocPages.push(page.index);
      titleOnly.add(page.index);
    }
  }
  const raw: { title: string; page: string | null; x: number; tocPage: number }[] = [];
  for (const index of tocPages) {
    const page = pages[index - 1];
    if (!page) continue;
    let pending = '';
    let pendingX = 0;
    page.lines.forEach((line, i) => {
      if (dropped(index, i)) return;
      const text = line.text.trim();
      if (TOC_TITLE.test(text) || text === '') return;
      if (titleOnly.has(index)) {
        raw.push({ title: text.replace(/\s+/gu, ' '), page: null, x: line.x, tocPage: index });
        return;
      }
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
  const levels = tocLevels(raw);
  const entries = raw.map((r, i): TocEntry => {
    const page = r.page === null ? null : parseRoman(r.page) !== null ? r.page.toLowerCase() : String(Number(r.page));
    return { title: r.title, level: levels[i] ?? 1, page, tocPage: r.tocPage };
  });
  return { entries, tocPages };
}

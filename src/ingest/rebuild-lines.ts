import type { PdfLine, TextPiece } from './pdf-types.js';

const CJK = /[\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF\u3000-\u303F]/u;

/** A character that is written without spaces around it (CJK ideographs, kana, full-width forms and punctuation). */
export function isCjkChar(ch: string | undefined): boolean {
  return ch !== undefined && CJK.test(ch);
}

interface Row {
  y: number;
  size: number;
  pieces: TextPiece[];
}

/** Groups pieces into rows by baseline: pieces whose baselines differ by less than half the smaller font size share a row. */
function groupRows(pieces: readonly TextPiece[]): Row[] {
  const sorted = [...pieces].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Row[] = [];
  for (const piece of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(row.y - piece.y) <= 0.5 * Math.min(row.size, piece.size)) {
      row.pieces.push(piece);
      row.size = Math.max(row.size, piece.size);
    } else {
      rows.push({ y: piece.y, size: piece.size, pieces: [piece] });
    }
  }
  return rows;
}

/** Joins a row's pieces left to right: CJK without spaces, Latin words with one space where the gap is wide. */
function joinRow(row: Row, column: number): PdfLine {
  const pieces = [...row.pieces].sort((a, b) => a.x - b.x);
  let text = '';
  let prevEnd = Number.NEGATIVE_INFINITY;
  const sizeWeight = new Map<number, number>();
  let boldChars = 0;
  let chars = 0;
  for (const piece of pieces) {
    const str = piece.str;
    if (text.length > 0) {
      const gap = piece.x - prevEnd;
      const last = text[text.length - 1];
      const first = str[0];
      const bothCjk = isCjkChar(last) && isCjkChar(first);
      // A wide gap (table cell, TOC page number) always becomes a space; a word gap only between Latin letters.
      const wide = gap > 1.5 * piece.size;
      const wordGap = gap > 0.2 * piece.size && !bothCjk;
      if ((wide || wordGap) && last !== ' ' && first !== ' ') text += ' ';
    }
    text += str;
    prevEnd = Math.max(prevEnd, piece.x + piece.width);
    const n = str.replace(/\s/gu, '').length;
    const key = Math.round(piece.size * 10) / 10;
    sizeWeight.set(key, (sizeWeight.get(key) ?? 0) + n);
    chars += n;
    if (piece.bold) boldChars += n;
  }
  let size = row.size;
  let best = -1;
  for (const [s, w] of sizeWeight) {
    if (w > best) {
      best = w;
      size = s;
    }
  }
  const first = pieces[0];
  return {
    text: text.replace(/\s+/gu, ' ').trim(),
    x: first ? first.x : 0,
    y: row.y,
    right: prevEnd,
    size,
    bold: chars > 0 && boldChars * 2 > chars,
    column,
  };
}

/**
 * Finds the gutter of a two-column page: an x-range in the middle third that almost no row crosses while
 * many rows have text on both sides of it. Returns its centre, or null for single-column pages.
 */
export function findGutter(pieces: readonly TextPiece[], pageWidth: number): number | null {
  const rows = groupRows(pieces);
  if (rows.length < 8 || pageWidth <= 0) return null;
  const lo = Math.floor(pageWidth * 0.3);
  const hi = Math.ceil(pageWidth * 0.7);
  const cover = new Array<number>(hi - lo + 1).fill(0);
  for (const row of rows) {
    const seen = new Set<number>();
    for (const p of row.pieces) {
      if (p.str.trim() === '') continue;
      for (let x = Math.max(lo, Math.floor(p.x)); x <= Math.min(hi, Math.ceil(p.x + p.width)); x++) seen.add(x);
    }
    for (const x of seen) cover[x - lo] = (cover[x - lo] ?? 0) + 1;
  }
  // The widest run of x positions crossed by at most 5% of rows.
  const limit = Math.max(1, Math.floor(rows.length * 0.05));
  let bestStart = -1;
  let bestLen = 0;
  let start = -1;
  for (let i = 0; i <= cover.length; i++) {
    const free = i < cover.length && (cover[i] ?? 0) <= limit;
    if (free && start < 0) start = i;
    if (!free && start >= 0) {
      if (i - start > bestLen) {
        bestLen = i - start;
        bestStart = start;
      }
      start = -1;
    }
  }
  if (bestLen < 6) return null;
  const gutter = lo + bestStart + bestLen / 2;
  let both = 0;
  for (const row of rows) {
    const left = row.pieces.some((p) => p.str.trim() !== '' && p.x + p.width <= gutter);
    const right = row.pieces.some((p) => p.str.trim() !== '' && p.x >= gutter);
    if (left && right) both++;
  }
  return both >= Math.max(5, rows.length * 0.3) ? gutter : null;
}

/**
 * Rebuilds reading-order lines from pdf.js text items: rows by baseline, pieces by x, the left column
 * before the right one on two-column pages. Items split mid-word join without a space because their gap is tiny.
 */
export function rebuildLines(pieces: readonly TextPiece[], pageWidth: number): PdfLine[] {
  const visible = pieces.filter((p) => p.str.length > 0 && p.size > 0);
  const gutter = findGutter(visible, pageWidth);
  const columns: TextPiece[][] =
    gutter === null ? [visible] : [visible.filter((p) => p.x + p.width / 2 < gutter), visible.filter((p) => p.x + p.width / 2 >= gutter)];
  const lines: PdfLine[] = [];
  columns.forEach((columnPieces, column) => {
    for (const row of groupRows(columnPieces)) {
      const line = joinRow(row, column);
      if (line.text !== '') lines.push(line);
    }
  });
  return lines;
}

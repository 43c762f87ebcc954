/**
 * Turns OCR output (text boxes in image pixels) into the text pieces the PDF line rebuilder takes, so scanned
 * pages go through the same structure pipeline as text-layer pages: headings by size, running heads and
 * footers by position, printed page numbers from the footer, the 目录 by its leader lines.
 */
import type { PdfLine, PdfPage, TextPiece } from '../pdf-types.js';

/** One recognised text box, in pixels of the rendered page image (y grows downwards). */
export interface OcrBox {
  text: string;
  /** Mean character confidence, 0–1. */
  score: number;
  /** Four corners, clockwise from top-left: `[[x, y], …]`. */
  box: [number, number][];
}

/** The OCR result of one page, as cached: boxes plus the rendering they refer to. */
export interface OcrPageResult {
  /** Rendering resolution: pixels per PDF point is `dpi / 72`. */
  dpi: number;
  /** Rendered image size in pixels. */
  width: number;
  height: number;
  boxes: OcrBox[];
}

/**
 * Box height over font size. PP-OCR's detector grows each text region by an unclip ratio of 1.5 and then
 * fits a rectangle, which for CJK body text comes out close to the em height (measured on 150-dpi scans
 * of 10.5 pt text: 20–23 px boxes for 21.9 px ems).
 */
const BOX_PER_EM = 0.97;

/** Boxes under this confidence are recognition noise (specks, rules, stamps) rather than text. */
const MIN_SCORE = 0.5;

const CJK_PAIR_SPACE =
  /([\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF\u3000-\u303F]) (?=[\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF\u3000-\u303F])/gu;

/**
 * What OCR makes of a 目录 leader (`. . . .` between title and page number): a short run of dots and colons
 * after the title, often as a box of its own. Chinese text never puts a Western dot after an ideograph, so
 * such a run (at the end of the line, or before a final page number) becomes a leader that the
 * table-of-contents parser recognises, instead of ending the chapter title.
 */
const LEADER_RESIDUE = /(?<=[\u3400-\u9FFF\uF900-\uFAFF）)])\s*[.．·•…‥:：]*[.．·•…‥][.．·•…‥:：]*\s*(?=(?:\d{1,4}|[ivxlcdm]{1,7})?$)/iu;

/** Before a final page number, dots, colons and commas after a title are all leader remnants. */
const LEADER_BEFORE_NUMBER = /(?<=[\u3400-\u9FFF\uF900-\uFAFF）)])\s*[.．·•…‥:：,，]+\s*(?=(?:\d{1,4}|[ivxlcdm]{1,7})$)/iu;

/** Cleans one rebuilt line of an OCR'd page (see `LEADER_RESIDUE`). */
export function cleanOcrLine(text: string): string {
  return text.replace(LEADER_RESIDUE, '……').replace(LEADER_BEFORE_NUMBER, '……');
}

const dist = (a: [number, number], b: [number, number]): number => Math.hypot(a[0] - b[0], a[1] - b[1]);

/**
 * The skew of a page: the median angle of the top edges of its wider boxes (radians, positive when the
 * text runs downhill). A scan is rarely level, and a tilt of half a degree moves a line's end by a full
 * line height on an A4 page, which would break rows, margins and running-line positions.
 */
export function pageSkew(boxes: readonly OcrBox[]): number {
  const angles: number[] = [];
  for (const b of boxes) {
    const [p0, p1] = b.box;
    if (!p0 || !p1) continue;
    const w = dist(p0, p1);
    if (w < 100) continue;
    angles.push(Math.atan2(p1[1] - p0[1], p1[0] - p0[0]));
  }
  if (angles.length === 0) return 0;
  angles.sort((a, b) => a - b);
  return angles[Math.floor(angles.length / 2)] ?? 0;
}

/**
 * Converts a page's OCR boxes into text pieces in PDF user space (points, y up), de-skewed about the
 * page centre. Size is the box height converted to an approximate font size.
 */
export function ocrBoxesToPieces(result: OcrPageResult, pageHeightPt: number): TextPiece[] {
  const scale = 72 / result.dpi;
  const skew = pageSkew(result.boxes);
  const cos = Math.cos(-skew);
  const sin = Math.sin(-skew);
  const cx = result.width / 2;
  const cy = result.height / 2;
  const pieces: TextPiece[] = [];
  for (const b of result.boxes) {
    if (b.score < MIN_SCORE || b.box.length !== 4) continue;
    const text = b.text.replace(CJK_PAIR_SPACE, '$1').trim();
    if (text === '') continue;
    const [p0, p1, p2, p3] = b.box as [[number, number], [number, number], [number, number], [number, number]];
    const width = (dist(p0, p1) + dist(p3, p2)) / 2;
    const height = (dist(p0, p3) + dist(p1, p2)) / 2;
    const mx = (p0[0] + p1[0] + p2[0] + p3[0]) / 4 - cx;
    const my = (p0[1] + p1[1] + p2[1] + p3[1]) / 4 - cy;
    const x = mx * cos - my * sin + cx;
    const y = mx * sin + my * cos + cy;
    const size = (height * scale) / BOX_PER_EM;
    pieces.push({
      str: text,
      x: (x - width / 2) * scale,
      // The baseline sits about a tenth of the em above the box bottom.
      y: pageHeightPt - (y + height / 2) * scale + size * 0.1,
      width: width * scale,
      size,
      bold: false,
    });
  }
  return pieces;
}

/**
 * Snaps the sizes of OCR'd lines across a document to a few clusters. Measured box heights wobble by a
 * pixel or two from line to line, while headings, running heads and body text are told apart by equal
 * sizes (the body is the size carrying the most characters). Clusters are grown from the heaviest size
 * outwards, taking every size within 8% of it.
 */
export function snapOcrSizes(pages: readonly PdfPage[]): void {
  const lines: PdfLine[] = pages.filter((p) => p.ocr !== undefined).flatMap((p) => p.lines);
  if (lines.length === 0) return;
  const weight = new Map<number, number>();
  for (const l of lines) {
    const key = Math.round(l.size * 4) / 4;
    weight.set(key, (weight.get(key) ?? 0) + Math.max(1, l.text.length));
  }
  const unassigned = new Set(weight.keys());
  const snapTo = new Map<number, number>();
  while (unassigned.size > 0) {
    let centre = 0;
    let best = -1;
    for (const s of unassigned) {
      const w = weight.get(s) ?? 0;
      if (w > best) [best, centre] = [w, s];
    }
    for (const s of [...unassigned]) {
      if (Math.abs(s - centre) <= centre * 0.08) {
        snapTo.set(s, centre);
        unassigned.delete(s);
      }
    }
  }
  for (const l of lines) l.size = snapTo.get(Math.round(l.size * 4) / 4) ?? l.size;
}

/** Characters that carry meaning: letters (any script, CJK included) and digits. */
const MEANINGFUL = /[\p{L}\p{N}]/u;
/** Private-use, replacement and control characters: what a font without a usable ToUnicode map extracts. */
const GARBAGE = /[\uE000-\uF8FF\uFFFD]|\p{Cc}/u;

/** How many meaningful characters a page's text pieces hold. */
export function meaningfulChars(pieces: readonly { str: string }[]): number {
  let n = 0;
  for (const p of pieces) for (const ch of p.str) if (MEANINGFUL.test(ch) && !GARBAGE.test(ch)) n++;
  return n;
}

/**
 * Whether a page's text layer is usable: it has at least a few meaningful characters, and garbage
 * (private-use glyph codes, U+FFFD, control characters) is not the bulk of it. A scanned page has no text
 * layer at all, or at most a stamped page number; a PDF whose fonts lack Unicode maps yields garbage.
 */
export function usableTextLayer(pieces: readonly { str: string }[]): boolean {
  let garbage = 0;
  let total = 0;
  for (const p of pieces) {
    for (const ch of p.str) {
      if (/\s/u.test(ch)) continue;
      total++;
      if (GARBAGE.test(ch)) garbage++;
    }
  }
  return meaningfulChars(pieces) >= 8 && garbage * 2 < total;
}

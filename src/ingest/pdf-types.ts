/**
 * Shapes that pass between the PDF worker and the ingest pipeline. Plain data only: they cross a
 * `worker_threads` boundary by structured clone.
 */

/** One text item as pdf.js reports it, reduced to what line rebuilding needs (PDF user-space units, y up). */
export interface TextPiece {
  str: string;
  x: number;
  y: number;
  width: number;
  /** Font size (glyph height in user space). */
  size: number;
  bold: boolean;
}

/** A rebuilt text line. */
export interface PdfLine {
  text: string;
  /** Left edge. */
  x: number;
  /** Baseline, PDF coordinates (larger is higher on the page). */
  y: number;
  /** Right edge. */
  right: number;
  /** Dominant font size of the line, weighted by characters. */
  size: number;
  /** Most characters of the line are bold. */
  bold: boolean;
  /** 0 for single-column pages, 0/1 for the left/right column of a 2-column page. */
  column: number;
}

/** One page after line rebuilding. */
export interface PdfPage {
  /** 1-based physical page index. */
  index: number;
  width: number;
  height: number;
  lines: PdfLine[];
  /** Number of non-blank text items (0 means no text layer on this page). */
  itemCount: number;
  /** Why the page yielded no text although it may have some: a time-limit skip or a pdf.js error. */
  error?: string;
  /** The lines come from OCR of the rendered page: run now, or taken from the OCR cache. */
  ocr?: 'recognized' | 'cached';
  /** The page has no usable text layer (none, or only garbage) and was not OCR'd (OCR off or unavailable). */
  needsOcr?: boolean;
}

/** How pages without a usable text layer are treated: OCR'd when the engine is installed, always, or never. */
export type OcrMode = 'auto' | 'always' | 'never';

/** One bookmark of the PDF's own outline, flattened. */
export interface PdfBookmark {
  title: string;
  /** 1 for top-level bookmarks. */
  level: number;
  /** 1-based physical page the bookmark points at, when its destination resolves. */
  pdfPage: number | null;
}

/** Everything the worker extracts from one PDF. */
export interface RawPdf {
  numPages: number;
  pages: PdfPage[];
  /** `getPageLabels()`; null when the PDF defines none. */
  pageLabels: string[] | null;
  bookmarks: PdfBookmark[];
  warnings: string[];
  /** OCR counts: pages read by OCR (of which from the cache), and why OCR could not run when it was needed. */
  ocr?: { pages: number; cached: number; unavailable?: string };
}

/** Why a PDF could not be read; the message is one line meant for the user. */
export type PdfFailureKind = 'password' | 'wrong-password' | 'corrupt' | 'timeout' | 'memory' | 'empty' | 'io' | 'scanned';

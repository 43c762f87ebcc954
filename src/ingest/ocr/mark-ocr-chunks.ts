import type { Chunk } from '../../types.js';
import type { PdfPage } from '../pdf-types.js';

/** Rendering resolution for OCR: what PP-OCR reads best at for book text, and what scans are usually made at. */
export const OCR_DPI = 150;

/** Marks the chunks that hold text from OCR'd pages with `ocr: true` (in place), so quotes can say so. */
export function markOcrChunks(chunks: Chunk[], pages: readonly PdfPage[]): void {
  const ocrPages = new Set(pages.filter((p) => p.ocr !== undefined).map((p) => p.index));
  if (ocrPages.size === 0) return;
  for (const chunk of chunks) {
    const from = chunk.pdf_page_start;
    const to = chunk.pdf_page_end ?? from;
    if (from === null || to === null) continue;
    for (let p = from; p <= to; p++) {
      if (ocrPages.has(p)) {
        chunk.ocr = true;
        break;
      }
    }
  }
}

/** A run of body text under one heading path; chunks never cross segments. */
export interface Segment {
  /** The heading path, outermost first (`["第五编 婚姻家庭编", "第二章 结婚"]`). */
  headings: string[];
  /** Compatibility fields derived from the path (see `legacyHeadingFields`), or the note's `#`/`##`/`###`. */
  chapter: string;
  section: string;
  subsection: string;
  text: string;
  /** Offset of `text` in the source's extracted body text (segments are separated by two characters). */
  start: number;
  /** Where each physical page begins inside `text` (ascending offsets); empty for sources without pages. */
  pages: { offset: number; pdfPage: number }[];
  /** Figure/table reference, for table transcriptions. */
  figureRef?: string;
}

/** The physical page holding character `offset` of a segment, or null when the segment has no pages. */
export function pageAt(segment: Segment, offset: number): number | null {
  let page: number | null = null;
  for (const p of segment.pages) {
    if (p.offset <= offset) page = p.pdfPage;
    else break;
  }
  return page ?? segment.pages[0]?.pdfPage ?? null;
}

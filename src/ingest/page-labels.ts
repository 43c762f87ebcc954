import type { PageNumber } from './running-lines.js';

/**
 * Maps physical pages to printed page labels (index 0 = physical page 1).
 * The page numbers read from footers and headers are used when at least 30% of pages carry one (the PDF's own
 * `/PageLabels` otherwise, when they say more than the physical index); outliers (a number that disagrees with both numbered neighbours)
 * are ignored, and pages without a number are extrapolated from the nearest numbered page. Front-matter pages
 * before the first arabic number get their roman numeral or an empty label.
 */
export function mapPageLabels(numPages: number, pdfLabels: readonly string[] | null, numbers: ReadonlyMap<number, PageNumber>): string[] {
  const arabic: { page: number; offset: number }[] = [];
  for (let p = 1; p <= numPages; p++) {
    const n = numbers.get(p);
    if (n?.kind === 'arabic') arabic.push({ page: p, offset: p - n.value });
  }
  // What is printed on the page is what readers cite: footers win over /PageLabels (which are sometimes wrong)
  // when enough pages carry a number; the labels are used when the pages show none.
  const pdfLabelsUseful =
    pdfLabels !== null && pdfLabels.length === numPages && pdfLabels.some((label, i) => label.trim() !== String(i + 1));
  if (pdfLabelsUseful && arabic.length < Math.max(2, numPages * 0.3)) return pdfLabels.map((l) => l.trim());
  if (arabic.length === 0) {
    return Array.from({ length: numPages }, (_, i) => {
      const n = numbers.get(i + 1);
      return n?.kind === 'roman' ? n.text : String(i + 1);
    });
  }
  // Drop numbers whose offset disagrees with both neighbours that agree with each other (a stray "12" in a footer).
  const trusted = arabic.filter((a, i) => {
    const prev = arabic[i - 1];
    const next = arabic[i + 1];
    if (!prev || !next) return true;
    return !(prev.offset === next.offset && a.offset !== prev.offset);
  });
  const offsetAt = new Map(trusted.map((a) => [a.page, a.offset]));
  const labels: string[] = [];
  let prevOffset: number | null = null;
  const nextOffsets: (number | null)[] = new Array<number | null>(numPages + 2).fill(null);
  for (let p = numPages; p >= 1; p--) nextOffsets[p] = offsetAt.get(p) ?? nextOffsets[p + 1] ?? null;
  for (let p = 1; p <= numPages; p++) {
    const own = offsetAt.get(p);
    if (own !== undefined) prevOffset = own;
    const roman = numbers.get(p);
    if (own === undefined && roman?.kind === 'roman') {
      labels.push(roman.text);
      continue;
    }
    const offset = own ?? prevOffset ?? nextOffsets[p] ?? null;
    const value = offset === null ? 0 : p - offset;
    labels.push(value >= 1 ? String(value) : '');
  }
  return labels;
}

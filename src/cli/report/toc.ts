import type { TocResult } from '../../retrieve/run-toc.js';
import { printable, type Ui } from './ui.js';

/**
 * The outline as a tree (an entry is indented under the nearest earlier entry of a lower level, so a 章 sits under its
 * 编 even when no 分编 comes between), with printed pages right after the title; JSON: `{ books, entries }`.
 */
export function reportToc(ui: Ui, result: TocResult): void {
  if (ui.json) {
    ui.printJson(result);
    return;
  }
  const c = ui.color;
  if (result.entries.length === 0) {
    ui.out('the outline is empty: ingest found no chapter or section headings');
    return;
  }
  for (const book of result.books) {
    const entries = result.entries.filter((e) => e.book === book);
    ui.out(c.bold(`${printable(book)}${entries[0] ? c.dim(`  (${printable(entries[0].source)})`) : ''}`));
    const open: number[] = [];
    for (const e of entries) {
      while (open.length > 0 && (open[open.length - 1] ?? 0) >= e.level) open.pop();
      open.push(e.level);
      const indent = '  '.repeat(open.length);
      const title = printable(e.title);
      // The printed page, else the physical one; none where neither is known (a note has no pages), as on the web page.
      const page = e.page !== null && e.page !== '' ? `p.${e.page}` : e.pdf_page !== null ? c.dim(`pdf p.${e.pdf_page}`) : '';
      ui.out(`${indent}${open.length === 1 ? c.bold(title) : title}${page ? `  ${page}` : ''}`);
    }
  }
}

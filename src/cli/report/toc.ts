import type { TocResult } from '../../retrieve/run-toc.js';
import { printable, type Ui } from './ui.js';

/** The outline, indented by level, with printed pages right after the title; JSON: `{ books, entries }`. */
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
    for (const e of entries) {
      const indent = '  '.repeat(Math.max(1, e.level));
      const page = e.page !== null && e.page !== '' ? `p.${e.page}` : e.pdf_page !== null ? c.dim(`pdf p.${e.pdf_page}`) : c.dim('p.?');
      const title = printable(e.title);
      ui.out(`${indent}${e.level === 1 ? c.bold(title) : title}  ${page}`);
    }
  }
}

import type { TocResult } from '../../retrieve/run-toc.js';
import type { OutlineEntry } from '../../types.js';
import { printable, type Ui } from './ui.js';

/**
 * The outline as a tree (an entry is indented under the nearest earlier entry of a lower level, so a 章 sits under its
 * 编 even when no 分编 comes between), with printed pages right after the title; JSON: `{ books, entries }`.
 */
export function reportToc(ui: Ui, result: TocResult): void {
  const c = ui.color;
  /** The printed page, else the physical one; `p.?` where a PDF's page is unknown, nothing for a note (it has none). */
  const pageOf = (e: OutlineEntry): string => {
    if (e.page !== null && e.page !== '') return `p.${e.page}`;
    if (e.pdf_page !== null) return c.dim(`pdf p.${e.pdf_page}`);
    return /\.pdf$/iu.test(e.source) ? c.dim('p.?') : '';
  };
  if (ui.json) {
    ui.printJson(result);
    return;
  }
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
      const page = pageOf(e);
      ui.out(`${indent}${open.length === 1 ? c.bold(title) : title}${page ? `  ${page}` : ''}`);
    }
  }
}

import { batchReportJson, type BatchSearchReport } from '../../evaluate/run-batch-search.js';
import type { SearchResult } from '../../retrieve/run-search.js';
import { formatCitation } from '../../text/citation.js';
import { printable } from './printable.js';
import type { Colors } from './colors.js';
import type { Ui } from './ui.js';

const SNIPPET_CHARS = 110;

/** Terms of the query worth highlighting: CJK runs of 2+ characters split into 2–4 character pieces, and Latin words/numbers. */
export function highlightTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const m of query.normalize('NFKC').matchAll(/[\p{Script=Han}]{2,}|[A-Za-z0-9]{2,}/gu)) {
    const s = m[0];
    if (!/\p{Script=Han}/u.test(s)) {
      terms.add(s);
      continue;
    }
    // Whole stems rarely occur verbatim in the text; 2-4 character pieces mark where the words are.
    for (let len = Math.min(4, s.length); len >= 2; len--) for (let i = 0; i + len <= s.length; i++) terms.add(s.slice(i, i + len));
  }
  return [...terms].sort((a, b) => b.length - a.length);
}

/** A one-line snippet around the first query term found, with every term highlighted. */
export function snippet(text: string, query: string, color: Colors, width = SNIPPET_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const terms = highlightTerms(query);
  let at = -1;
  for (const t of terms) {
    const i = flat.toLowerCase().indexOf(t.toLowerCase());
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = Math.max(0, Math.min(at < 0 ? 0 : at - 20, flat.length - width));
  let piece = flat.slice(start, start + width);
  const prefix = start > 0 ? '…' : '';
  const suffix = start + width < flat.length ? '…' : '';
  if (terms.length > 0 && color.enabled) {
    const pattern = new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
    piece = piece.replace(pattern, (m) => color.bold(color.yellow(m)));
  }
  return `${prefix}${piece}${suffix}`;
}

/** Ranked hits: rank, score, `book | chapter | section | figure | p.N-M`, type, snippet; or the JSON shape. */
export function reportSearch(ui: Ui, result: SearchResult): void {
  for (const w of result.warnings) ui.warn(`${w.where}: ${w.message}`);
  if (ui.json) {
    ui.printJson({ hits: result.hits });
    return;
  }
  const c = ui.color;
  if (result.hits.length === 0) {
    ui.out(`no chunks found for "${result.query}" (mode ${result.mode}); try other words, --mode hybrid, or fewer filters`);
    return;
  }
  result.hits.forEach((h, i) => {
    // The one citation format `ask` shows: an unknown page (a note has none) is left out, not written as p.?.
    const where = printable(formatCitation(h));
    const type = h.chunk_type === 'text' ? '' : c.magenta(` [${h.chunk_type}]`);
    ui.out(`${c.bold(String(i + 1).padStart(2))}. ${c.cyan(h.score.toFixed(4))}  ${where}${type}`);
    ui.out(`    ${snippet(h.text, result.query, c)}`);
    ui.debug(`    ${h.chunk_id}`);
  });
  ui.debug(`mode ${result.mode}, embedder ${result.embedderId}, vector backend ${result.vectorBackend}, ${result.latencyMs.toFixed(1)} ms`);
}

/** Batch search: the warnings (bad rows with line numbers), one table row per mode, the files written; or the JSON report. */
export function reportBatchSearch(ui: Ui, report: BatchSearchReport): void {
  for (const w of report.warnings) ui.warn(`${w.where}: ${w.message}`);
  if (ui.json) {
    ui.printJson(batchReportJson(report));
    return;
  }
  const skipped = report.skipped > 0 ? `, ${report.skipped} skipped` : '';
  ui.out(
    `${report.dataset}: ${report.total} quer${report.total === 1 ? 'y' : 'ies'} (${report.judged} judged${skipped}), k = ${report.k}, embedder ${report.config.embedder}`,
  );
  const pct = (x: number): string => x.toFixed(3);
  const header = ['mode', 'R@1', 'R@5', 'R@10', 'MRR@10', 'nDCG@10', 'R@4k', 'p50 ms', 'p95 ms'];
  const rows = report.modes.map((m) => {
    const s = m.scores;
    const judged = s
      ? [pct(s.recall['1']), pct(s.recall['5']), pct(s.recall['10']), pct(s.mrr10), pct(s.ndcg10), pct(s.recallBudget)]
      : ['-', '-', '-', '-', '-', '-'];
    return [m.mode, ...judged, m.p50Ms.toFixed(1), m.p95Ms.toFixed(1)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  ui.out(line(header));
  for (const r of rows) ui.out(line(r));
  // Said of the rows, not the header: a `relevant` column left empty judges nothing either.
  if (report.judged === 0)
    ui.out('no query gives gold strings: latency only (fill a `relevant` column, strings separated by ";", for Recall/MRR/nDCG)');
  for (const m of report.modes) if (m.runFile) ui.out(`run file: ${m.runFile}`);
  if (report.reportJson) ui.out(`report: ${report.reportJson}`);
}

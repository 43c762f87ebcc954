import type { IngestProgress, IngestResult } from '../../ingest/ingest-types.js';
import { printable, type Ui } from './ui.js';

/**
 * The page part of the progress line: `page 12/30`, and once a few seconds have passed, the rate and the time
 * left (`, 0.8 pages/s, ETA 23 s`), marked `(OCR)` while pages are being OCR'd. Rates come from the pages of the
 * current file read after its first, since `firstPageMs`, when the first was read: the time before it is the
 * parser's start-up (pdf.js, the file, its first fonts), which a rate counted from the file's start would spread
 * over every page left (`page 2/252, 0.9 pages/s, ETA 5 min` for a book read in 10 s).
 */
export function pageProgressText(
  event: { page: number; pages: number; ocr?: boolean },
  pagesDone: number,
  firstPageMs: number,
  nowMs: number,
): string {
  const elapsed = (nowMs - firstPageMs) / 1000;
  let text = `page ${event.page}/${event.pages}${event.ocr ? ' (OCR)' : ''}`;
  if (elapsed >= 2 && pagesDone > 1) {
    const rate = (pagesDone - 1) / elapsed;
    const left = Math.max(0, event.pages - event.page) / rate;
    text += `, ${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)} pages/s, ETA ${left >= 90 ? `${Math.round(left / 60)} min` : `${Math.round(left)} s`}`;
  }
  return text;
}

/** Seconds as `1m05s` / `42s`. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** A text progress bar of `width` cells. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/**
 * The progress line for one event: a bar, the count, the rate (files/s while parsing, chunks/s while indexing)
 * and the ETA of the current phase, measured from the phase's first event. Pure, so it can be tested.
 */
export function ingestProgressLine(
  event: IngestProgress,
  phase: { name: string; startedMs: number; startDone: number },
  nowMs: number,
  file: string,
  pages: { done: number; firstPageMs: number } = { done: 0, firstPageMs: nowMs },
): string {
  const rate = (done: number): number => (done - phase.startDone) / Math.max((nowMs - phase.startedMs) / 1000, 1e-3);
  const eta = (done: number, total: number): string => {
    const r = rate(done);
    return done > phase.startDone && r > 0 ? ` · ETA ${duration((total - done) / r)}` : '';
  };
  switch (event.kind) {
    case 'file':
      return `ingest ${progressBar(event.index - 1, event.total)} ${event.index}/${event.total} files${event.index > 1 ? ` · ${rate(event.index - 1).toFixed(1)} files/s` : ''}${eta(event.index - 1, event.total)} · ${event.source}`;
    case 'page':
      return `ingest ${file}: ${pageProgressText(event, pages.done, pages.firstPageMs, nowMs)}`;
    case 'stage':
      return `ingest: ${event.stage}${event.detail ? ` (${event.detail})` : ''}`;
    case 'index':
      return `ingest: index ${event.stage} ${progressBar(event.done, event.total)} ${event.done}/${event.total} chunks${event.done > phase.startDone ? ` · ${Math.round(rate(event.done))} chunks/s` : ''}${eta(event.done, event.total)}`;
  }
}

/** A spinner driven by ingest progress events: files with a bar, rate and ETA, then each index stage in chunks/s; nothing off a TTY. */
export function ingestProgress(
  ui: Ui,
  now: () => number = Date.now,
): { onProgress: (event: IngestProgress) => void; done: (result: IngestResult) => void; fail: () => void } {
  const spinner = ui.spinner('ingest: scanning sources');
  let file = '';
  let phase = { name: '', startedMs: now(), startDone: 0 };
  // Pages of the current file, for the page rate (OCR makes a file's pages slow enough to need it).
  let pages = { done: 0, firstPageMs: now() };
  return {
    onProgress: (event) => {
      const name = event.kind === 'index' ? `index:${event.stage}` : event.kind === 'file' ? 'files' : phase.name;
      if (name !== phase.name)
        phase = { name, startedMs: now(), startDone: event.kind === 'index' ? event.done : event.kind === 'file' ? event.index - 1 : 0 };
      if (event.kind === 'file') {
        file = `[${event.index}/${event.total}] ${event.source}`;
        pages = { done: 0, firstPageMs: now() };
      }
      if (event.kind === 'page' && pages.done++ === 0) pages.firstPageMs = now();
      spinner.update(ingestProgressLine(event, phase, now(), file, pages));
    },
    done: (result) => {
      if (result.upToDate) spinner.succeed('ingest: everything is up to date (use --force to rebuild)');
      else if (result.totals.failed > 0)
        spinner.fail(`ingest: ${result.totals.failed} of ${result.totals.files} files failed; the rest is indexed`);
      else
        spinner.succeed(
          `ingest: ${result.totals.chunks} chunks from ${result.totals.files} file${result.totals.files === 1 ? '' : 's'} in ${(result.elapsedMs / 1000).toFixed(1)} s`,
        );
    },
    fail: () => {
      spinner.stop();
    },
  };
}

function pad(text: string, width: number): string {
  // CJK characters take two columns in a terminal.
  const cols = [...text].reduce((n, ch) => n + (/[\u1100-\uFFEF]/u.test(ch) ? 2 : 1), 0);
  return text + ' '.repeat(Math.max(0, width - cols));
}

/** Files listed one per row in full; a larger build lists only the files that need a look (`--verbose`: all). */
const FILES_LISTED = 40;

function needsALook(f: IngestResult['files'][number]): boolean {
  return f.status === 'failed' || f.status === 'skipped' || f.kept === true || f.warnings.length > 0;
}

/** `… 1490 other files not listed (1480 unchanged, 10 ok); --verbose lists every file`. */
function foldedLine(files: IngestResult['files'], listed: number): string {
  const byStatus = new Map<string, number>();
  for (const f of files) if (!needsALook(f)) byStatus.set(f.status, (byStatus.get(f.status) ?? 0) + 1);
  const counts = [...byStatus].map(([status, n]) => `${n} ${status}`).join(', ');
  return `… ${files.length - listed} ${listed > 0 ? 'other ' : ''}files not listed (${counts}); --verbose lists every file`;
}

/** The summary table (file, status, pages, chunks, table rows, warnings), per-file errors and warnings; or JSON. */
export function reportIngest(ui: Ui, result: IngestResult): void {
  if (ui.json) {
    ui.printJson(result);
    return;
  }
  const c = ui.color;
  const header = ['file', 'status', 'pages', 'chunks', 'rows', 'warnings'];
  // A library of a thousand laws would print a thousand rows on every run: past a screenful, only the files that
  // need a look (failed, kept, warned) are listed, the rest counted.
  const listed = ui.verbose || result.files.length <= FILES_LISTED ? result.files : result.files.filter(needsALook);
  const rows = listed.map((f) => [
    printable(f.source),
    f.kept ? 'failed, kept' : f.status,
    String(f.pages),
    String(f.chunks),
    String(f.tableRows),
    String(f.warnings.length),
  ]);
  rows.push([
    'total',
    result.upToDate ? 'up to date' : `${result.totals.failed} failed`,
    String(result.totals.pages),
    String(result.totals.chunks),
    String(result.totals.tableRows),
    String(result.totals.warnings),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].reduce((n, ch) => n + (/[\u1100-\uFFEF]/u.test(ch) ? 2 : 1), 0))),
  );
  const line = (cells: string[]): string => cells.map((cell, i) => pad(cell, widths[i] ?? 0)).join('  ');
  ui.out(c.bold(line(header)));
  for (const [i, r] of rows.entries()) {
    const status = r[1] ?? '';
    const text = line(r);
    if (i === rows.length - 1 && listed.length < result.files.length) ui.out(c.dim(foldedLine(result.files, listed.length)));
    ui.out(status.startsWith('failed') ? c.red(text) : r[0] === 'total' ? c.bold(text) : text);
  }
  for (const f of result.files) if (f.error) ui.error(f.error);
  for (const f of result.files) {
    if (f.ocr)
      ui.info(
        `${f.source}: ${f.ocr.pages} page${f.ocr.pages === 1 ? '' : 's'} read by OCR (${f.ocr.cached} from the cache), ${(f.pages / Math.max(0.001, f.elapsedMs / 1000)).toFixed(2)} pages/s`,
      );
  }
  for (const f of result.files) for (const w of f.warnings) ui.warn(`${w.where}: ${w.message}`);
  for (const w of result.warnings) ui.warn(`${w.where}: ${w.message}`);
  if (result.index)
    ui.info(
      `index: ${result.index.ftsRows} FTS rows, ${result.index.vectors} vectors (${result.index.embedderId}, ${result.index.vectorBackend}; ${result.index.embedded} embedded, ${result.index.cached} cached)`,
    );
}

import { Worker } from 'node:worker_threads';
import type { PdfWorkerInput, PdfWorkerMessage } from './pdf-worker.js';
import type { PdfFailureKind, PdfPage, RawPdf } from './pdf-types.js';

/** A PDF that could not be read at all; `message` is one line without the file name (the caller adds it). */
export class PdfParseError extends Error {
  readonly kind: PdfFailureKind;
  constructor(kind: PdfFailureKind, message: string) {
    super(message);
    this.name = 'PdfParseError';
    this.kind = kind;
  }
}

export interface ParsePdfOptions {
  password?: string | undefined;
  /** A page that takes longer is skipped with a warning. */
  pageTimeoutMs: number;
  /** A file that takes longer fails cleanly. */
  fileTimeoutMs: number;
  /** Heap cap for the worker, so a decompression bomb fails instead of exhausting the machine. */
  maxHeapMb?: number;
  onPage?: (page: number, total: number) => void;
}

const workerUrl = new URL('./pdf-worker.js', import.meta.url);

/**
 * Extracts lines, page labels and bookmarks from a PDF in a worker thread that is terminated on timeout or
 * memory exhaustion. A page over its time limit is skipped (a fresh worker resumes after it); a file over its
 * budget, an encrypted file without the right password, or a corrupt file rejects with a `PdfParseError`.
 */
export async function parsePdf(file: string, options: ParsePdfOptions): Promise<RawPdf> {
  const started = Date.now();
  const pages = new Map<number, PdfPage>();
  const warnings: string[] = [];
  let numPages = 0;
  let pageLabels: string[] | null = null;
  let bookmarks: RawPdf['bookmarks'] = [];
  let startPage = 1;
  for (;;) {
    const outcome = await runWorker({ file, password: options.password, startPage }, options, started, {
      onOpen(msg) {
        numPages = msg.numPages;
        pageLabels = msg.pageLabels;
        bookmarks = msg.bookmarks;
      },
      onPage(page) {
        pages.set(page.index, page);
        if (page.error) warnings.push(`page ${page.index}: ${page.error}`);
        options.onPage?.(page.index, numPages);
      },
    });
    if (outcome.kind === 'done') break;
    if (outcome.kind === 'page-timeout') {
      warnings.push(`page ${outcome.page} skipped: it took longer than ${options.pageTimeoutMs} ms`);
      pages.set(outcome.page, { index: outcome.page, width: 0, height: 0, lines: [], itemCount: 0, error: 'time limit' });
      startPage = outcome.page + 1;
      if (startPage > numPages) break;
      continue;
    }
    throw new PdfParseError(outcome.error.kind, outcome.error.message);
  }
  const ordered: PdfPage[] = [];
  for (let i = 1; i <= numPages; i++) ordered.push(pages.get(i) ?? { index: i, width: 0, height: 0, lines: [], itemCount: 0, error: 'not read' });
  return { numPages, pages: ordered, pageLabels, bookmarks, warnings };
}

type WorkerOutcome = { kind: 'done' } | { kind: 'page-timeout'; page: number } | { kind: 'failed'; error: { kind: PdfFailureKind; message: string } };

function runWorker(
  input: PdfWorkerInput,
  options: ParsePdfOptions,
  started: number,
  handlers: { onOpen(msg: Extract<PdfWorkerMessage, { type: 'open' }>): void; onPage(page: PdfPage): void },
): Promise<WorkerOutcome> {
  return new Promise((resolve) => {
    const heap = options.maxHeapMb ?? 1024;
    const worker = new Worker(workerUrl, { workerData: input, resourceLimits: { maxOldGenerationSizeMb: heap, maxYoungGenerationSizeMb: 64 }, stdout: true, stderr: true });
    // pdf.js may still print; the user's terminal must stay clean.
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    let currentPage = 0;
    let pageTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: WorkerOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(pageTimer);
      clearTimeout(fileTimer);
      void worker.terminate();
      resolve(outcome);
    };
    const remaining = Math.max(1, options.fileTimeoutMs - (Date.now() - started));
    const fileTimer = setTimeout(() => finish({ kind: 'failed', error: { kind: 'timeout', message: `took longer than the ${options.fileTimeoutMs} ms limit (pdf.fileTimeoutMs)` } }), remaining);
    // Opening the document counts against the first page's budget.
    const armPage = (): void => {
      clearTimeout(pageTimer);
      pageTimer = setTimeout(() => {
        if (currentPage === 0) finish({ kind: 'failed', error: { kind: 'timeout', message: `opening took longer than the ${options.pageTimeoutMs} ms limit (pdf.pageTimeoutMs)` } });
        else finish({ kind: 'page-timeout', page: currentPage });
      }, options.pageTimeoutMs);
    };
    armPage();
    worker.on('message', (msg: PdfWorkerMessage) => {
      if (settled) return;
      switch (msg.type) {
        case 'open':
          handlers.onOpen(msg);
          break;
        case 'page-start':
          currentPage = msg.index;
          armPage();
          break;
        case 'page':
          handlers.onPage(msg.page);
          break;
        case 'done':
          finish({ kind: 'done' });
          break;
        case 'error':
          finish({ kind: 'failed', error: { kind: msg.kind, message: msg.message } });
          break;
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') finish({ kind: 'failed', error: { kind: 'memory', message: `needs more than the ${heap} MB memory limit (a decompression bomb?)` } });
      else finish({ kind: 'failed', error: { kind: 'corrupt', message: error.message.split('\n')[0] ?? 'unreadable' } });
    });
    worker.on('exit', (code) => {
      finish({ kind: 'failed', error: { kind: 'corrupt', message: `the PDF reader stopped unexpectedly (exit ${code})` } });
    });
  });
}

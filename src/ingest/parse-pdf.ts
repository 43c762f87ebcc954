import { Worker } from 'node:worker_threads';
import { createOcrClient, type OcrClient } from './ocr/ocr-client.js';
import type { PdfWorkerInput, PdfWorkerMessage, PdfWorkerReply } from './pdf-worker.js';
import { OCR_INSTALL_HINT } from './ocr/ocr-engine.js';
import { snapOcrSizes } from './ocr/ocr-lines.js';
import type { OcrMode, PdfFailureKind, PdfPage, RawPdf } from './pdf-types.js';

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
  /** Called after each page; `ocr` when the page was read by OCR (now or from the cache). */
  onPage?: (page: number, total: number, ocr: boolean) => void;
  /**
   * OCR of pages without a usable text layer. `pageTimeoutMs` replaces the page limit while a page is
   * OCR'd, and OCR time does not count against the file limit (a scanned book takes seconds per page).
   */
  ocr?: { mode: OcrMode; cacheDir: string; sha256: string; dpi: number; pageTimeoutMs: number } | undefined;
}

/** The one-line reason a scanned PDF could not be read, or null when it could. */
export function scannedFailure(raw: RawPdf, mode: OcrMode): string | null {
  const missing = raw.pages.filter((p) => p.needsOcr).length;
  if (missing === 0 || missing < raw.numPages * 0.5) return null;
  const what = `is a scanned PDF (no usable text layer on ${missing} of ${raw.numPages} pages)`;
  if (mode === 'never') return `${what} and OCR is off (--ocr never / ingest.ocr); run ingest with --ocr auto`;
  const why = raw.ocr?.unavailable ?? 'OCR is not available';
  return `${what} and ${why}; ${why.startsWith('OCR is not installed') ? `run ${OCR_INSTALL_HINT}` : 'run exam-copilot doctor'}, or transcribe key pages into rawdoc/table_explain.csv`;
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
  const ocr = { pages: 0, cached: 0, unavailable: undefined as string | undefined, busyMs: 0 };
  const ocrClient = createOcrClient();
  try {
    return await parseWith(file, options, ocrClient, { started, pages, warnings, ocr });
  } finally {
    ocrClient.kill();
  }
}

async function parseWith(
  file: string,
  options: ParsePdfOptions,
  ocrClient: OcrClient,
  state: {
    started: number;
    pages: Map<number, PdfPage>;
    warnings: string[];
    ocr: { pages: number; cached: number; unavailable: string | undefined; busyMs: number };
  },
): Promise<RawPdf> {
  const { started, pages, warnings, ocr } = state;
  let numPages = 0;
  let pageLabels: string[] | null = null;
  let bookmarks: RawPdf['bookmarks'] = [];
  let startPage = 1;
  for (;;) {
    const workerOcr = options.ocr
      ? { mode: options.ocr.mode, cacheDir: options.ocr.cacheDir, sha256: options.ocr.sha256, dpi: options.ocr.dpi }
      : undefined;
    const outcome = await runWorker({ file, password: options.password, startPage, ocr: workerOcr }, options, started, ocr, ocrClient, {
      onOpen(msg) {
        numPages = msg.numPages;
        pageLabels = msg.pageLabels;
        bookmarks = msg.bookmarks;
      },
      onPage(page) {
        pages.set(page.index, page);
        if (page.error) warnings.push(`page ${page.index}: ${page.error}`);
        if (page.ocr) ocr.pages++;
        if (page.ocr === 'cached') ocr.cached++;
        options.onPage?.(page.index, numPages, page.ocr !== undefined);
      },
      onOcrUnavailable(reason) {
        ocr.unavailable = reason;
      },
    });
    if (outcome.kind === 'done') break;
    if (outcome.kind === 'page-timeout') {
      const limit = outcome.ocr
        ? `${options.ocr?.pageTimeoutMs ?? 0} ms OCR limit (ingest.ocrPageTimeoutMs)`
        : `${options.pageTimeoutMs} ms`;
      warnings.push(`page ${outcome.page} skipped: it took longer than ${limit}`);
      pages.set(outcome.page, { index: outcome.page, width: 0, height: 0, lines: [], itemCount: 0, error: 'time limit' });
      startPage = outcome.page + 1;
      if (startPage > numPages) break;
      continue;
    }
    throw new PdfParseError(outcome.error.kind, outcome.error.message);
  }
  const ordered: PdfPage[] = [];
  for (let i = 1; i <= numPages; i++)
    ordered.push(pages.get(i) ?? { index: i, width: 0, height: 0, lines: [], itemCount: 0, error: 'not read' });
  snapOcrSizes(ordered);
  return {
    numPages,
    pages: ordered,
    pageLabels,
    bookmarks,
    warnings,
    ocr: { pages: ocr.pages, cached: ocr.cached, ...(ocr.unavailable ? { unavailable: ocr.unavailable } : {}) },
  };
}

type WorkerOutcome =
  | { kind: 'done' }
  | { kind: 'page-timeout'; page: number; ocr: boolean }
  | { kind: 'failed'; error: { kind: PdfFailureKind; message: string } };

function runWorker(
  input: PdfWorkerInput,
  options: ParsePdfOptions,
  started: number,
  ocrTime: { busyMs: number },
  ocrClient: OcrClient,
  handlers: {
    onOpen(msg: Extract<PdfWorkerMessage, { type: 'open' }>): void;
    onPage(page: PdfPage): void;
    onOcrUnavailable(reason: string): void;
  },
): Promise<WorkerOutcome> {
  return new Promise((resolve) => {
    const heap = options.maxHeapMb ?? 1024;
    const worker = new Worker(workerUrl, {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: heap, maxYoungGenerationSizeMb: 64 },
      stdout: true,
      stderr: true,
    });
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
      if (ocrSince !== null) {
        ocrTime.busyMs += Date.now() - ocrSince;
        // The OCR process may be busy with the page that ran out of time: stop it too.
        if (outcome.kind !== 'done') ocrClient.kill();
      }
      void worker.terminate();
      resolve(outcome);
    };
    // OCR time is not charged to the file budget: each OCR'd page has its own limit instead.
    let fileTimer: NodeJS.Timeout | undefined;
    const armFile = (): void => {
      clearTimeout(fileTimer);
      const remaining = Math.max(1, options.fileTimeoutMs - (Date.now() - started - ocrTime.busyMs));
      fileTimer = setTimeout(
        () =>
          finish({
            kind: 'failed',
            error: { kind: 'timeout', message: `took longer than the ${options.fileTimeoutMs} ms limit (pdf.fileTimeoutMs)` },
          }),
        remaining,
      );
    };
    armFile();
    let ocrSince: number | null = null;
    // Opening the document counts against the first page's budget.
    const armPage = (limitMs = options.pageTimeoutMs): void => {
      clearTimeout(pageTimer);
      pageTimer = setTimeout(() => {
        if (currentPage === 0)
          finish({
            kind: 'failed',
            error: { kind: 'timeout', message: `opening took longer than the ${options.pageTimeoutMs} ms limit (pdf.pageTimeoutMs)` },
          });
        else finish({ kind: 'page-timeout', page: currentPage, ocr: ocrSince !== null });
      }, limitMs);
    };
    const endOcr = (): void => {
      if (ocrSince === null) return;
      ocrTime.busyMs += Date.now() - ocrSince;
      ocrSince = null;
      armFile();
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
        case 'ocr-start':
          ocrSince = Date.now();
          clearTimeout(fileTimer);
          armPage(options.ocr?.pageTimeoutMs ?? options.pageTimeoutMs);
          break;
        case 'ocr-request':
          void ocrClient.recognize(msg.image).then((outcome) => {
            if (!settled) worker.postMessage({ type: 'ocr-result', index: msg.index, outcome } satisfies PdfWorkerReply);
          });
          break;
        case 'ocr-unavailable':
          endOcr();
          armPage();
          handlers.onOcrUnavailable(msg.reason);
          break;
        case 'page':
          endOcr();
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
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
        finish({
          kind: 'failed',
          error: { kind: 'memory', message: `needs more than the ${heap} MB memory limit (a decompression bomb?)` },
        });
      else finish({ kind: 'failed', error: { kind: 'corrupt', message: error.message.split('\n')[0] ?? 'unreadable' } });
    });
    worker.on('exit', (code) => {
      finish({ kind: 'failed', error: { kind: 'corrupt', message: `the PDF reader stopped unexpectedly (exit ${code})` } });
    });
  });
}

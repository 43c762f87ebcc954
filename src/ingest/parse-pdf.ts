import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { createOcrClient, type OcrClient, type OcrOutcome } from './ocr/ocr-client.js';
import type { PdfWorkerInput, PdfWorkerMessage, PdfWorkerReply } from './pdf-worker.js';
import { OCR_INSTALL_HINT } from './ocr/ocr-engine.js';
import { snapOcrSizes } from './ocr/ocr-lines.js';
import type { OcrMode, PdfFailureKind, PdfPage, RawPdf } from './pdf-types.js';
import { startWorker } from '../start-worker.js';

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
  /** Heap cap for each worker, so a decompression bomb fails instead of exhausting the machine. */
  maxHeapMb?: number;
  /**
   * Worker threads that read the pages at once (default 1). The first opens the file; the others start once it has
   * the page count, and only for a document of at least `pagesPerThread` pages per thread, since each opens the
   * file again and pays pdf.js's start-up and the fonts of its first pages.
   */
  threads?: number;
  /** See `threads`; default `PAGES_PER_THREAD`. */
  pagesPerThread?: number;
  /** Called after each page with the number of pages read so far; `ocr` when the page was read by OCR (now or from the cache). */
  onPage?: (pagesRead: number, total: number, ocr: boolean) => void;
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

/** At most this many worker threads read one PDF: beyond it, each one's start-up outweighs its share of the pages. */
const MAX_PDF_THREADS = 4;

/**
 * Pages each worker must have for one more to start. A worker's start-up (pdf.js, opening the file, the fonts of its
 * first pages) costs about what reading 100 pages does (about a second, against about 10 ms a page on the 252-page
 * fund-law book), and a page the new worker takes waits for that start-up: a second worker made a 141-page book's
 * parse slower (1.4 -> 2.0 s) and the 252-page book's a little faster (3.8 -> 3.6 s).
 */
const PAGES_PER_THREAD = 100;

/** The `threads` ingest gives a PDF: one per core, up to `MAX_PDF_THREADS`. */
export function pdfParseThreads(): number {
  return Math.min(availableParallelism(), MAX_PDF_THREADS);
}

/**
 * Extracts lines, page labels and bookmarks from a PDF in worker threads that are terminated on timeout or
 * memory exhaustion. A page over its time limit is skipped (a fresh worker takes the pages after it); a file over
 * its budget, an encrypted file without the right password, or a corrupt file rejects with a `PdfParseError`.
 * With `threads` above 1, a long document's pages are read by several workers at once; the pages, and so
 * everything built from them, are the same as one worker reads.
 */
export async function parsePdf(file: string, options: ParsePdfOptions): Promise<RawPdf> {
  const ocrClient = createOcrClient();
  const reading = new PdfReading(file, options, ocrClient);
  try {
    await reading.pass(undefined, Math.max(1, Math.floor(options.threads ?? 1)));
    // A worker stopped for another page may have taken a page it had not yet announced: read those once more.
    const missing = reading.unreadPages();
    if (missing.length > 0) await reading.pass(missing, 1);
    return reading.result();
  } finally {
    reading.stopAll();
    ocrClient.kill();
  }
}

/** One worker of a pass: the page it is on and whether that page is being OCR'd. */
interface WorkerSlot {
  worker: Worker;
  primary: boolean;
  currentPage: number;
  ocrSince: number | null;
  pageTimer: NodeJS.Timeout | undefined;
  stopped: boolean;
}

/**
 * The state of one PDF's reading across its workers: pages read, warnings, the OCR time that the file budget
 * leaves out (any worker OCR'ing pauses it), and the file timer.
 */
class PdfReading {
  private readonly started = Date.now();
  private readonly pages = new Map<number, PdfPage>();
  private readonly warnings: string[] = [];
  private readonly ocr = { pages: 0, cached: 0, unavailable: undefined as string | undefined };
  private numPages = 0;
  private opened = false;
  private pageLabels: string[] | null = null;
  private bookmarks: RawPdf['bookmarks'] = [];
  /** OCR time so far (while at least one worker OCRs), and since when the workers OCR'ing now began. */
  private ocrMs = 0;
  private ocrSince: number | null = null;
  /** Deliberate stops of the OCR process: a request that failed because of another page's stop is sent again. */
  private ocrKills = 0;
  private fileTimer: NodeJS.Timeout | undefined;
  private readonly slots = new Set<WorkerSlot>();
  private current: {
    claim: SharedArrayBuffer;
    pages: number[] | undefined;
    /** Workers wanted, and whether the extra ones were started (when the first opened the file). */
    threads: number;
    extras: boolean;
    resolve: () => void;
    reject: (error: PdfParseError) => void;
    settled: boolean;
  } | null = null;

  constructor(
    private readonly file: string,
    private readonly options: ParsePdfOptions,
    private readonly ocrClient: OcrClient,
  ) {}

  /** Reads `pages` (all, when undefined) with up to `threads` workers; settles when none is left, or on a failure. */
  pass(pages: number[] | undefined, threads: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.current = { claim: new SharedArrayBuffer(4), pages, threads, extras: false, resolve, reject, settled: false };
      this.armFile();
      this.startWorker(!this.opened);
    });
  }

  /** Starts the pass's extra workers once the page count is known: one per `pagesPerThread` pages, up to `threads`. */
  private startExtras(): void {
    const pass = this.current;
    if (!pass || pass.extras) return;
    pass.extras = true;
    const pages = pass.pages?.length ?? this.numPages;
    const wanted = Math.min(pass.threads, Math.floor(pages / (this.options.pagesPerThread ?? PAGES_PER_THREAD)));
    for (let i = 1; i < wanted; i++) this.startWorker(false);
  }

  /** Pages no worker delivered or skipped (possible only when a worker was stopped). */
  unreadPages(): number[] {
    const missing: number[] = [];
    for (let i = 1; i <= this.numPages; i++) if (!this.pages.has(i)) missing.push(i);
    return missing;
  }

  result(): RawPdf {
    const ordered: PdfPage[] = [];
    for (let i = 1; i <= this.numPages; i++)
      ordered.push(this.pages.get(i) ?? { index: i, width: 0, height: 0, lines: [], itemCount: 0, error: 'not read' });
    snapOcrSizes(ordered);
    return {
      numPages: this.numPages,
      pages: ordered,
      pageLabels: this.pageLabels,
      bookmarks: this.bookmarks,
      warnings: this.warnings,
      ocr: { pages: this.ocr.pages, cached: this.ocr.cached, ...(this.ocr.unavailable ? { unavailable: this.ocr.unavailable } : {}) },
    };
  }

  stopAll(): void {
    clearTimeout(this.fileTimer);
    for (const slot of [...this.slots]) this.stop(slot);
  }

  private startWorker(primary: boolean): void {
    const pass = this.current;
    if (!pass) return;
    const options = this.options;
    const ocr = options.ocr
      ? { mode: options.ocr.mode, cacheDir: options.ocr.cacheDir, sha256: options.ocr.sha256, dpi: options.ocr.dpi }
      : undefined;
    const input: PdfWorkerInput = { file: this.file, password: options.password, claim: pass.claim, pages: pass.pages, primary, ocr };
    const heap = options.maxHeapMb ?? 1024;
    const worker = startWorker(workerUrl, {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: heap, maxYoungGenerationSizeMb: 64 },
      stdout: true,
      stderr: true,
    });
    // pdf.js may still print; the user's terminal must stay clean.
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: WorkerSlot = { worker, primary, currentPage: 0, ocrSince: null, pageTimer: undefined, stopped: false };
    this.slots.add(slot);
    // Opening the document counts against the first page's budget.
    this.armPage(slot);
    worker.on('message', (msg: PdfWorkerMessage) => {
      if (!slot.stopped) this.onMessage(slot, msg);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.stopped) return;
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY')
        this.fail('memory', `needs more than the ${heap} MB memory limit (a decompression bomb?)`);
      else this.fail('corrupt', error.message.split('\n')[0] ?? 'unreadable');
    });
    worker.on('exit', (code) => {
      if (!slot.stopped) this.fail('corrupt', `the PDF reader stopped unexpectedly (exit ${code})`);
    });
  }

  private onMessage(slot: WorkerSlot, msg: PdfWorkerMessage): void {
    switch (msg.type) {
      case 'open':
        this.numPages = msg.numPages;
        if (slot.primary) {
          this.pageLabels = msg.pageLabels;
          this.bookmarks = msg.bookmarks;
        }
        this.opened = true;
        this.startExtras();
        break;
      case 'page-start':
        slot.currentPage = msg.index;
        this.armPage(slot);
        break;
      case 'ocr-start':
        this.beginOcr(slot);
        this.armPage(slot, this.options.ocr?.pageTimeoutMs ?? this.options.pageTimeoutMs);
        break;
      case 'ocr-request':
        void this.recognize(slot, msg.image).then((outcome) => {
          if (!slot.stopped) slot.worker.postMessage({ type: 'ocr-result', index: msg.index, outcome } satisfies PdfWorkerReply);
        });
        break;
      case 'ocr-unavailable':
        this.endOcr(slot);
        this.armPage(slot);
        this.ocr.unavailable = msg.reason;
        break;
      case 'page': {
        this.endOcr(slot);
        const page = msg.page;
        this.pages.set(page.index, page);
        if (page.error) this.warnings.push(`page ${page.index}: ${page.error}`);
        if (page.ocr) this.ocr.pages++;
        if (page.ocr === 'cached') this.ocr.cached++;
        this.options.onPage?.(this.pages.size, this.numPages, page.ocr !== undefined);
        break;
      }
      case 'done':
        this.stop(slot);
        this.dropIdleWorkers();
        this.settleIfIdle();
        break;
      case 'error':
        this.fail(msg.kind, msg.message);
        break;
    }
  }

  /** OCRs a page image; a request that failed because the process was stopped for another page's limit is sent again. */
  private async recognize(slot: WorkerSlot, image: Uint8Array): Promise<OcrOutcome> {
    for (;;) {
      const kills = this.ocrKills;
      const outcome = await this.ocrClient.recognize(image);
      if ('error' in outcome && this.ocrKills !== kills && !slot.stopped) continue;
      return outcome;
    }
  }

  /** Arms the page limit; opening the document counts against the first page's. */
  private armPage(slot: WorkerSlot, limitMs = this.options.pageTimeoutMs): void {
    clearTimeout(slot.pageTimer);
    slot.pageTimer = setTimeout(() => {
      if (slot.stopped) return;
      if (slot.currentPage === 0) {
        // A worker started after the file opened can be dropped: the others read on, and pages none delivered are
        // read again after the pass. The first worker's open fails the file, as its labels and outline are needed.
        if (slot.primary || !this.opened)
          this.fail('timeout', `opening took longer than the ${this.options.pageTimeoutMs} ms limit (pdf.pageTimeoutMs)`);
        else {
          this.stop(slot);
          this.settleIfIdle();
        }
        return;
      }
      this.pageTimedOut(slot);
    }, limitMs);
  }

  /** Skips the page a worker is stuck on and puts a fresh worker in its place while pages are left. */
  private pageTimedOut(slot: WorkerSlot): void {
    const page = slot.currentPage;
    const ocr = slot.ocrSince !== null;
    const limit = ocr
      ? `${this.options.ocr?.pageTimeoutMs ?? 0} ms OCR limit (ingest.ocrPageTimeoutMs)`
      : `${this.options.pageTimeoutMs} ms`;
    this.warnings.push(`page ${page} skipped: it took longer than ${limit}`);
    this.pages.set(page, { index: page, width: 0, height: 0, lines: [], itemCount: 0, error: 'time limit' });
    this.stop(slot);
    if (ocr) {
      // The OCR process may be busy with this page: stop it too (other workers' requests are sent again).
      this.ocrKills++;
      this.ocrClient.kill();
    }
    const pass = this.current;
    const total = pass?.pages?.length ?? this.numPages;
    if (pass && Atomics.load(new Int32Array(pass.claim), 0) < total) this.startWorker(false);
    else this.settleIfIdle();
  }

  private beginOcr(slot: WorkerSlot): void {
    if (slot.ocrSince !== null) return;
    slot.ocrSince = Date.now();
    if (this.ocrSince === null) {
      this.ocrSince = slot.ocrSince;
      clearTimeout(this.fileTimer);
    }
  }

  private endOcr(slot: WorkerSlot): void {
    if (slot.ocrSince === null) return;
    slot.ocrSince = null;
    if (this.ocrSince !== null && ![...this.slots].some((s) => s.ocrSince !== null)) {
      this.ocrMs += Date.now() - this.ocrSince;
      this.ocrSince = null;
      this.armFile();
    }
  }

  /** The file budget, less OCR time: OCR pages have their own limit instead. */
  private armFile(): void {
    clearTimeout(this.fileTimer);
    if (this.ocrSince !== null) return;
    const limit = this.options.fileTimeoutMs;
    const remaining = Math.max(1, limit - (Date.now() - this.started - this.ocrMs));
    this.fileTimer = setTimeout(() => this.fail('timeout', `took longer than the ${limit} ms limit (pdf.fileTimeoutMs)`), remaining);
  }

  private stop(slot: WorkerSlot): void {
    if (slot.stopped) return;
    this.endOcr(slot);
    slot.stopped = true;
    clearTimeout(slot.pageTimer);
    this.slots.delete(slot);
    void slot.worker.terminate();
  }

  /**
   * Once every page is taken, a worker that has not begun one (still opening the file) has nothing left to read:
   * stopped rather than waited for.
   */
  private dropIdleWorkers(): void {
    const pass = this.current;
    if (!pass || Atomics.load(new Int32Array(pass.claim), 0) < (pass.pages?.length ?? this.numPages)) return;
    for (const slot of [...this.slots]) if (slot.currentPage === 0) this.stop(slot);
  }

  private settleIfIdle(): void {
    const pass = this.current;
    if (!pass || pass.settled || this.slots.size > 0) return;
    pass.settled = true;
    clearTimeout(this.fileTimer);
    pass.resolve();
  }

  private fail(kind: PdfFailureKind, message: string): void {
    const pass = this.current;
    if (!pass || pass.settled) return;
    pass.settled = true;
    if (this.ocrSince !== null) {
      // The OCR process may be busy with a page of this file.
      this.ocrKills++;
      this.ocrClient.kill();
    }
    this.stopAll();
    pass.reject(new PdfParseError(kind, message));
  }
}

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorMessage, UserError } from '../errors.js';
import { projectPaths, type ProjectPaths } from '../paths.js';
import type { Chunk, IndexDoc, OutlineEntry, Warning } from '../types.js';
import { markStagingComplete, prepareStaging, recoverInterruptedSwap, swapIntoPlace } from './atomic-swap.js';
import { bookName } from './book-name.js';
import type { IngestFileResult, IngestOptions, IngestResult } from './ingest-types.js';
import { loadTableCsv, TableCsvError } from './load-table-csv.js';
import { noteSegments } from './load-notes.js';
import { acquireLock, type HeldLock } from './lock.js';
import { indexDocFor, segmentsToChunks } from './make-chunks.js';
import { configFingerprint, PARSER_VERSION, readManifest, type Manifest, type ManifestSource } from './manifest.js';
import { markOcrChunks, OCR_DPI } from './ocr/mark-ocr-chunks.js';
import { parsePdf, PdfParseError, scannedFailure } from './parse-pdf.js';
import { scanSources, type SourceFile } from './scan-sources.js';
import { structurePdf } from './structure-pdf.js';
import { tableRowChunks } from './table-chunks.js';

/** The state the ingest steps share. */
export interface IngestContext {
  options: IngestOptions;
  paths: ProjectPaths;
  started: number;
  lock: HeldLock | null;
  previous: { manifest: Manifest | null; chunks: Chunk[]; outline: OutlineEntry[] };
  sources: SourceFile[];
  /** Per source, in source order. */
  built: Map<string, { record: ManifestSource; chunks: Chunk[]; outline: OutlineEntry[] }>;
  files: IngestFileResult[];
  chunks: Chunk[];
  docs: IndexDoc[];
  outline: OutlineEntry[];
  staging: { data: string; index: string } | null;
  /** Set by a step to end the run early (nothing changed). */
  upToDate: boolean;
  index: IngestResult['index'];
  warnings: Warning[];
}

/** One ingest step; the pipeline is the list below, run in order (unbuild's buildTasks). */
export type IngestStep = (ctx: IngestContext) => Promise<void>;

const password = (ctx: IngestContext): string | undefined => ctx.options.password ?? ctx.options.config.pdf.password;

/** Repairs an interrupted previous run, then takes the lock. */
const recoverAndLock: IngestStep = (ctx) => {
  ctx.lock = acquireLock(ctx.paths.lock, `exam-copilot ingest${ctx.options.force ? ' --force' : ''}`);
  ctx.warnings.push(...ctx.lock.warnings);
  recoverInterruptedSwap(ctx.options.root);
  return Promise.resolve();
};

function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Lists the sources and loads the previous build (manifest, chunks, outline). */
const scanInputs: IngestStep = (ctx) => {
  ctx.options.onProgress?.({ kind: 'stage', stage: 'scan' });
  const { root, config } = ctx.options;
  const inputs = ctx.options.paths && ctx.options.paths.length > 0 ? ctx.options.paths.map((p) => ({ path: path.resolve(root, p), explicit: true })) : [{ path: ctx.paths.rawdoc, explicit: false }];
  if (!ctx.options.paths?.length && !existsSync(ctx.paths.rawdoc)) {
    throw new UserError(`${ctx.paths.rawdoc} does not exist; put your textbook PDFs (and table_explain.csv) there, or pass files to ingest`);
  }
  const exclude = new Set(config.userDict.map((f) => path.resolve(root, f)));
  ctx.sources = scanSources(root, inputs, exclude);
  if (ctx.sources.length === 0) throw new UserError(`no sources to ingest in ${inputs.map((i) => i.path).join(', ')}; add .pdf, .md, .txt files or table_explain.csv`);
  const manifest = ctx.options.force ? null : readManifest(ctx.paths.manifest);
  if (manifest && manifest.configFingerprint === configFingerprint(config)) {
    try {
      ctx.previous = { manifest, chunks: readJsonLines<Chunk>(ctx.paths.chunks), outline: existsSync(ctx.paths.outline) ? (JSON.parse(readFileSync(ctx.paths.outline, 'utf8')) as OutlineEntry[]) : [] };
    } catch {
      ctx.previous = { manifest: null, chunks: [], outline: [] };
    }
  }
  return Promise.resolve();
};

/** Ends the run when every source is unchanged, nothing was removed, nothing failed before, and the index exists. */
const stopIfUpToDate: IngestStep = (ctx) => {
  const manifest = ctx.previous.manifest;
  if (!manifest || ctx.options.force) return Promise.resolve();
  const usable = ctx.sources.filter((s) => !s.skipped);
  const same =
    usable.length === manifest.sources.length &&
    usable.every((s) => {
      const m = manifest.sources.find((x) => x.source === s.source);
      return m !== undefined && m.status === 'ok' && !s.error && m.sha256 === s.sha256 && m.size === s.size;
    });
  if (same && existsSync(ctx.paths.chunks) && existsSync(ctx.paths.ftsDb)) {
    ctx.upToDate = true;
    ctx.files = manifest.sources.map((m) => ({ source: m.source, kind: m.kind, book: m.book, status: 'unchanged', pages: m.pages, chunks: m.chunks, tableRows: m.tableRows, warnings: m.warnings, elapsedMs: 0 }));
  }
  return Promise.resolve();
};

function fail(ctx: IngestContext, file: SourceFile, book: string, message: string, started: number): void {
  const error = `${file.source}: ${message}`;
  ctx.files.push({ source: file.source, kind: file.kind, book, status: 'failed', pages: 0, chunks: 0, tableRows: 0, warnings: [], error, elapsedMs: Date.now() - started });
  ctx.built.set(file.source, { record: { source: file.source, kind: file.kind ?? 'txt', sha256: file.sha256, size: file.size, book, pages: 0, chunks: 0, tableRows: 0, status: 'failed', error, warnings: [] }, chunks: [], outline: [] });
  if (ctx.options.strict) throw new UserError(`${error} (stopped by --strict)`);
}

function pdfFailureMessage(error: PdfParseError): string {
  switch (error.kind) {
    case 'password':
      return 'is password-protected; pass --password or set pdf.password';
    case 'wrong-password':
      return 'wrong password (from --password or pdf.password); check it';
    case 'timeout':
      return `parsing ${error.message}; raise pdf.fileTimeoutMs or split the file`;
    case 'memory':
      return `is not a readable PDF: it ${error.message}`;
    default:
      return `is not a readable PDF (${error.message}); re-export or re-download it`;
  }
}

/** Parses new and changed PDFs and notes (unchanged ones are taken from the previous build). CSVs wait for the PDFs. */
const parseChangedSources: IngestStep = async (ctx) => {
  const { config } = ctx.options;
  const manifest = ctx.previous.manifest;
  const todo = ctx.sources.filter((s) => !s.skipped && s.kind !== 'csv');
  let i = 0;
  for (const file of todo) {
    i++;
    const started = Date.now();
    const book = bookName(file.file, config.books);
    ctx.options.onProgress?.({ kind: 'file', index: i, total: todo.length, source: file.source });
    if (file.error) {
      fail(ctx, file, book, file.error, started);
      continue;
    }
    const prev = manifest?.sources.find((m) => m.source === file.source && m.status === 'ok' && m.sha256 === file.sha256);
    if (prev) {
      const chunks = ctx.previous.chunks.filter((c) => c.source === file.source);
      const outline = ctx.previous.outline.filter((o) => o.source === file.source);
      ctx.built.set(file.source, { record: prev, chunks, outline });
      ctx.files.push({ source: file.source, kind: file.kind, book: prev.book, status: 'unchanged', pages: prev.pages, chunks: chunks.length, tableRows: 0, warnings: prev.warnings, elapsedMs: Date.now() - started });
      continue;
    }
    const meta = { book, source: file.source };
    try {
      let record: ManifestSource;
      let chunks: Chunk[];
      let outline: OutlineEntry[] = [];
      let ocrCounts: IngestFileResult['ocr'];
      if (file.kind === 'pdf') {
        const ocrMode = ctx.options.ocr ?? config.ingest?.ocr ?? 'auto';
        const raw = await parsePdf(file.file, {
          password: password(ctx),
          pageTimeoutMs: config.pdf.pageTimeoutMs,
          fileTimeoutMs: config.pdf.fileTimeoutMs,
          onPage: (page, pages, ocr) => ctx.options.onProgress?.({ kind: 'page', source: file.source, page, pages, ocr }),
          ocr: { mode: ocrMode, cacheDir: ctx.paths.ocrCache, sha256: file.sha256, dpi: OCR_DPI, pageTimeoutMs: config.ingest?.ocrPageTimeoutMs ?? 120_000 },
        });
        const scanned = scannedFailure(raw, ocrMode);
        if (scanned !== null) {
          fail(ctx, file, book, scanned, started);
          continue;
        }
        const structured = structurePdf(raw, meta);
        chunks = segmentsToChunks(structured.segments, { ...meta, chunkType: 'text', labels: structured.labels }, config.chunking);
        markOcrChunks(chunks, raw.pages);
        if (raw.ocr && raw.ocr.pages > 0) ocrCounts = { pages: raw.ocr.pages, cached: raw.ocr.cached };
        outline = structured.outline;
        if (chunks.length === 0 && structured.warnings.length === 0) structured.warnings.push({ where: file.source, message: 'no body text found' });
        record = { source: file.source, kind: 'pdf', sha256: file.sha256, size: file.size, book, pages: raw.numPages, chunks: chunks.length, tableRows: 0, status: 'ok', warnings: structured.warnings, labels: structured.labels };
      } else {
        const text = readFileSync(file.file, 'utf8');
        const segments = noteSegments(text, file.kind === 'md');
        chunks = segmentsToChunks(segments, { ...meta, chunkType: 'note', labels: [] }, config.chunking);
        record = { source: file.source, kind: file.kind ?? 'txt', sha256: file.sha256, size: file.size, book, pages: 0, chunks: chunks.length, tableRows: 0, status: 'ok', warnings: [] };
      }
      ctx.built.set(file.source, { record, chunks, outline });
      ctx.files.push({ source: file.source, kind: file.kind, book, status: 'ok', pages: record.pages, chunks: chunks.length, tableRows: 0, warnings: record.warnings, elapsedMs: Date.now() - started, ...(ocrCounts ? { ocr: ocrCounts } : {}) });
    } catch (error) {
      if (error instanceof UserError) throw error;
      if (error instanceof PdfParseError) fail(ctx, file, book, pdfFailureMessage(error), started);
      else fail(ctx, file, book, `could not be read (${errorMessage(error).split('\n')[0] ?? ''})`, started);
    }
  }
};

/** Turns table_explain.csv rows into their own high-priority chunks, placed in the PDFs parsed above. */
const mergeTableTranscriptions: IngestStep = (ctx) => {
  const labelsByBook = new Map<string, string[]>();
  for (const { record } of ctx.built.values()) if (record.labels && !labelsByBook.has(record.book)) labelsByBook.set(record.book, record.labels);
  const pdfPageOf = (book: string, label: string): number | null => {
    const i = labelsByBook.get(book)?.indexOf(label) ?? -1;
    return i >= 0 ? i + 1 : null;
  };
  for (const file of ctx.sources.filter((s) => !s.skipped && s.kind === 'csv')) {
    const started = Date.now();
    if (file.error) {
      fail(ctx, file, '', file.error, started);
      continue;
    }
    try {
      const { rows, warnings } = loadTableCsv(readFileSync(file.file), file.source);
      const chunks = tableRowChunks(rows, file.source, ctx.options.config.chunking, pdfPageOf);
      const books = [...new Set(rows.map((r) => r.book))].join(', ');
      const record: ManifestSource = { source: file.source, kind: 'csv', sha256: file.sha256, size: file.size, book: books, pages: 0, chunks: chunks.length, tableRows: rows.length, status: 'ok', warnings };
      ctx.built.set(file.source, { record, chunks, outline: [] });
      ctx.files.push({ source: file.source, kind: 'csv', book: books, status: 'ok', pages: 0, chunks: chunks.length, tableRows: rows.length, warnings, elapsedMs: Date.now() - started });
    } catch (error) {
      if (error instanceof TableCsvError) {
        // The message already names the file.
        fail(ctx, file, '', error.message.replace(`${file.source}: `, ''), started);
      } else throw error;
    }
  }
  return Promise.resolve();
};

/** Writes chunks.jsonl, docs_for_index.jsonl, outline.json and manifest.json into staging. */
const writeData: IngestStep = (ctx) => {
  ctx.options.onProgress?.({ kind: 'stage', stage: 'write' });
  ctx.staging = prepareStaging(ctx.options.root);
  const order = [...ctx.built.keys()].sort((a, b) => a.localeCompare(b));
  ctx.chunks = order.flatMap((s) => ctx.built.get(s)?.chunks ?? []);
  ctx.docs = ctx.chunks.map(indexDocFor);
  ctx.outline = order.flatMap((s) => ctx.built.get(s)?.outline ?? []);
  const manifest: Manifest = {
    version: 1,
    parserVersion: PARSER_VERSION,
    configFingerprint: configFingerprint(ctx.options.config),
    builtAt: new Date().toISOString(),
    sources: order.map((s) => ctx.built.get(s)?.record).filter((r): r is ManifestSource => r !== undefined),
  };
  const dir = ctx.staging.data;
  writeFileSync(path.join(dir, 'chunks.jsonl'), ctx.chunks.map((c) => JSON.stringify(c)).join('\n') + (ctx.chunks.length ? '\n' : ''));
  writeFileSync(path.join(dir, 'docs_for_index.jsonl'), ctx.docs.map((d) => JSON.stringify(d)).join('\n') + (ctx.docs.length ? '\n' : ''));
  writeFileSync(path.join(dir, 'outline.json'), `${JSON.stringify(ctx.outline, null, 1)}\n`);
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return Promise.resolve();
};

/** Builds sqlite_fts.db and faiss/ in the staged index folder (the one meeting point with indexing). */
const buildStagedIndexes: IngestStep = async (ctx) => {
  if (!ctx.staging) return;
  ctx.options.onProgress?.({ kind: 'stage', stage: 'index', detail: `${ctx.chunks.length} chunks` });
  const { buildIndexes } = await import('../indexing/build-indexes.js');
  const result = await buildIndexes({
    root: ctx.options.root,
    config: ctx.options.config,
    chunks: ctx.chunks,
    docs: ctx.docs,
    indexDir: ctx.staging.index,
    ...(existsSync(ctx.paths.index) ? { previousIndexDir: ctx.paths.index } : {}),
    onProgress: (p) => ctx.options.onProgress?.({ kind: 'index', stage: p.stage, done: p.done, total: p.total }),
  });
  ctx.index = { ftsRows: result.ftsRows, vectors: result.vectors, embedderId: result.embedderId, vectorBackend: result.vectorBackend, embedded: result.embedded, cached: result.cached };
  ctx.warnings.push(...result.warnings);
};

/** Marks staging complete and swaps it into place. */
const swapStaged: IngestStep = (ctx) => {
  ctx.options.onProgress?.({ kind: 'stage', stage: 'swap' });
  markStagingComplete(ctx.options.root);
  swapIntoPlace(ctx.options.root);
  ctx.staging = null;
  return Promise.resolve();
};

/** The ingest pipeline, in order. */
export const INGEST_STEPS: readonly IngestStep[] = [recoverAndLock, scanInputs, stopIfUpToDate, parseChangedSources, mergeTableTranscriptions, writeData, buildStagedIndexes, swapStaged];

/**
 * Turns the sources under `rawdoc/` (or `paths`) into `data/` and `index/`: parses new and changed files,
 * reuses unchanged ones, builds the indexes in a staging folder and swaps it in only when complete. A file that
 * fails is reported in the result (or, with `strict`, thrown); the previous build stays intact on any failure.
 */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  const paths = projectPaths(options.root);
  const ctx: IngestContext = {
    options: { ...options, root: paths.root },
    paths,
    started: Date.now(),
    lock: null,
    previous: { manifest: null, chunks: [], outline: [] },
    sources: [],
    built: new Map(),
    files: [],
    chunks: [],
    docs: [],
    outline: [],
    staging: null,
    upToDate: false,
    index: null,
    warnings: [],
  };
  mkdirSync(paths.state, { recursive: true });
  try {
    for (const step of INGEST_STEPS) {
      if (ctx.upToDate) break;
      await step(ctx);
    }
  } finally {
    // An unfinished staging area is never swapped in; drop it so the next run starts clean.
    if (ctx.staging) rmSync(paths.staging, { recursive: true, force: true });
    ctx.lock?.release();
  }
  const files = [...ctx.files].sort((a, b) => a.source.localeCompare(b.source));
  const totals = {
    files: files.length,
    failed: files.filter((f) => f.status === 'failed').length,
    pages: files.reduce((n, f) => n + f.pages, 0),
    chunks: files.reduce((n, f) => n + f.chunks, 0),
    tableRows: files.reduce((n, f) => n + f.tableRows, 0),
    warnings: files.reduce((n, f) => n + f.warnings.length, 0) + ctx.warnings.length,
  };
  return { root: paths.root, upToDate: ctx.upToDate, files, totals, index: ctx.index, warnings: ctx.warnings, elapsedMs: Date.now() - ctx.started };
}

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { errorMessage, UserError } from '../errors.js';
import { assertRootFolder, projectPaths, type ProjectPaths } from '../paths.js';
import type { Chunk, IndexDoc, OutlineEntry, Warning } from '../types.js';
import { markStagingComplete, prepareStaging, repairInterruptedSwap, swapIntoPlace } from '../store/atomic-swap.js';
import { bookName } from './book-name.js';
import { dictionaryHash } from '../store/freshness.js';
import type { IngestFileResult, IngestOptions, IngestPausePoint, IngestProgress, IngestResult } from './ingest-types.js';
import { loadTableCsv, TableCsvError } from './load-table-csv.js';
import { readNote } from './load-notes.js';
import { acquireIngestLock } from '../store/lock.js';
import { indexDocFor, segmentsToChunks } from './make-chunks.js';
import { configFingerprint, PARSER_VERSION, readManifest, type Manifest, type ManifestSource } from '../store/manifest.js';
import { markOcrChunks, OCR_DPI } from './ocr/mark-ocr-chunks.js';
import { parsePdf, PdfParseError, scannedFailure } from './parse-pdf.js';
import { scanSources, type SourceFile } from '../store/scan-sources.js';
import { structurePdf } from './structure-pdf.js';
import { tableRowChunks } from './table-chunks.js';
import { diskFullError, isDiskFull, makeStateFolder } from './write-errors.js';

/** The last good build, as far as it can be reused (same chunking settings and parser). */
interface PreviousBuild {
  manifest: Manifest;
  chunks: Chunk[];
  outline: OutlineEntry[];
}

/** One source's share of the new build: its manifest record, chunks, outline, and what the reporter shows. */
interface BuiltSource {
  record: ManifestSource;
  chunks: Chunk[];
  outline: OutlineEntry[];
  file: IngestFileResult;
}

/** The data files of a build, in index order. */
interface StagedData {
  staging: { data: string; index: string };
  chunks: Chunk[];
  docs: IndexDoc[];
}

type Progress = ((event: IngestProgress) => void) | undefined;

function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Step: lists the sources (every input, or `rawdoc/`), by real path. */
function scanInputs(input: { root: string; paths: ProjectPaths; config: ExamCopilotConfig; explicit?: readonly string[] | undefined }): {
  sources: SourceFile[];
  warnings: Warning[];
} {
  const { root, paths, config } = input;
  const inputs =
    input.explicit && input.explicit.length > 0
      ? input.explicit.map((p) => ({ path: path.resolve(root, p), explicit: true }))
      : [{ path: paths.rawdoc, explicit: false }];
  if (!input.explicit?.length && !existsSync(paths.rawdoc)) {
    throw new UserError(
      `${paths.rawdoc} does not exist; put your textbook PDFs or .md/.txt notes (and table_explain.csv) there, or pass files to ingest`,
    );
  }
  const exclude = new Set(config.userDict.map((f) => path.resolve(root, f)));
  const scanned = scanSources(root, inputs, exclude);
  if (scanned.sources.length === 0)
    throw new UserError(`no sources to ingest in ${inputs.map((i) => i.path).join(', ')}; add .pdf, .md, .txt files or table_explain.csv`);
  return scanned;
}

/** Step: loads the previous build when its chunks are still valid under the current chunking settings. */
function loadPrevious(input: { paths: ProjectPaths; config: ExamCopilotConfig }): PreviousBuild | null {
  const manifest = readManifest(input.paths.manifest);
  if (!manifest || manifest.configFingerprint !== configFingerprint(input.config)) return null;
  try {
    const outline = existsSync(input.paths.outline) ? (JSON.parse(readFileSync(input.paths.outline, 'utf8')) as OutlineEntry[]) : [];
    return { manifest, chunks: readJsonLines<Chunk>(input.paths.chunks), outline };
  } catch {
    return null;
  }
}

/**
 * Step: the per-file results of a run with nothing to do (every source unchanged and read fine last time, none
 * removed, same dictionaries, index present), or null when there is work.
 */
function upToDateFiles(input: {
  sources: readonly SourceFile[];
  previous: PreviousBuild | null;
  dictionaryHash: string;
  paths: ProjectPaths;
}): IngestFileResult[] | null {
  const manifest = input.previous?.manifest;
  if (!manifest || manifest.dictionaryHash !== input.dictionaryHash) return null;
  const usable = input.sources.filter((s) => !s.skipped);
  const same =
    usable.length === manifest.sources.length &&
    usable.every((s) => {
      const m = manifest.sources.find((x) => x.source === s.source);
      return m !== undefined && m.status === 'ok' && !s.error && m.sha256 === s.sha256 && m.size === s.size;
    });
  if (!same || !existsSync(input.paths.chunks) || !existsSync(input.paths.ftsDb)) return null;
  return manifest.sources.map((m) => ({
    source: m.source,
    kind: m.kind,
    book: m.book,
    status: 'unchanged',
    pages: m.pages,
    chunks: m.chunks,
    tableRows: m.tableRows,
    warnings: m.warnings,
    elapsedMs: 0,
  }));
}

/**
 * A source that failed. When the last good build had it, its chunks are kept (with that build's record, so the
 * next run tries the file again) and the warning says so; an unreadable download never erases a book.
 */
function failedSource(input: {
  file: SourceFile;
  book: string;
  message: string;
  started: number;
  previous: PreviousBuild | null;
  strict: boolean;
}): BuiltSource {
  const { file, book, previous } = input;
  const error = `${file.source}: ${input.message}`;
  if (input.strict) throw new UserError(`${error} (stopped by --strict)`);
  const last = previous?.manifest.sources.find((m) => m.source === file.source && (m.status === 'ok' || m.kept === true));
  const elapsedMs = Date.now() - input.started;
  if (last && previous) {
    const chunks = previous.chunks.filter((c) => c.source === file.source);
    const outline = previous.outline.filter((o) => o.source === file.source);
    const warnings = [
      ...last.warnings,
      { where: file.source, message: `kept the previous version of ${file.source} (${chunks.length} chunks) because this one failed` },
    ];
    return {
      record: { ...last, status: 'failed', error, kept: true },
      chunks,
      outline,
      file: {
        source: file.source,
        kind: file.kind,
        book: last.book,
        status: 'failed',
        pages: last.pages,
        chunks: chunks.length,
        tableRows: last.tableRows,
        warnings,
        error,
        kept: true,
        elapsedMs,
      },
    };
  }
  return {
    record: sourceRecord(file, book, { kind: file.kind ?? 'txt', pages: 0, chunks: 0, status: 'failed', error, warnings: [] }),
    chunks: [],
    outline: [],
    file: {
      source: file.source,
      kind: file.kind,
      book,
      status: 'failed',
      pages: 0,
      chunks: 0,
      tableRows: 0,
      warnings: [],
      error,
      elapsedMs,
    },
  };
}

/**
 * The manifest record of a source read in this run: the file's identity and what reading it gave (only a table
 * transcription has table rows). Keys keep the manifest's order.
 */
function sourceRecord(
  file: SourceFile,
  book: string,
  read: Pick<ManifestSource, 'kind' | 'pages' | 'chunks' | 'status' | 'warnings' | 'error' | 'labels'> & { tableRows?: number },
): ManifestSource {
  return {
    source: file.source,
    kind: read.kind,
    sha256: file.sha256,
    size: file.size,
    book,
    pages: read.pages,
    chunks: read.chunks,
    tableRows: read.tableRows ?? 0,
    status: read.status,
    ...(read.error !== undefined ? { error: read.error } : {}),
    warnings: read.warnings,
    ...(read.labels !== undefined ? { labels: read.labels } : {}),
  };
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

/** Reads one PDF or note into chunks; throws `PdfParseError`, or `EmptySourceError` for a PDF without pages. */
async function readSource(input: {
  file: SourceFile;
  book: string;
  config: ExamCopilotConfig;
  password: string | undefined;
  onProgress: Progress;
  ocr: OcrSettings;
}): Promise<Omit<BuiltSource, 'file'> & { ocr?: { pages: number; cached: number } }> {
  const { file, book, config } = input;
  const meta = { book, source: file.source };
  if (file.kind === 'pdf') {
    const raw = await parsePdf(file.file, {
      password: input.password,
      pageTimeoutMs: config.pdf.pageTimeoutMs,
      fileTimeoutMs: config.pdf.fileTimeoutMs,
      onPage: (page, pages, ocr) => input.onProgress?.({ kind: 'page', source: file.source, page, pages, ocr }),
      ocr: {
        mode: input.ocr.mode,
        cacheDir: input.ocr.cacheDir,
        sha256: file.sha256,
        dpi: OCR_DPI,
        pageTimeoutMs: input.ocr.pageTimeoutMs,
      },
    });
    if (raw.numPages === 0) throw new EmptySourceError('is a PDF with no pages; re-export or re-download it');
    const scanned = scannedFailure(raw, input.ocr.mode);
    if (scanned !== null) throw new EmptySourceError(scanned);
    const structured = structurePdf(raw, meta);
    const chunks = segmentsToChunks(structured.segments, { ...meta, chunkType: 'text', labels: structured.labels }, config.chunking);
    markOcrChunks(chunks, raw.pages);
    const ocr = raw.ocr && raw.ocr.pages > 0 ? { pages: raw.ocr.pages, cached: raw.ocr.cached } : undefined;
    if (chunks.length === 0 && structured.warnings.length === 0)
      structured.warnings.push({ where: file.source, message: 'no body text found' });
    const record = sourceRecord(file, book, {
      kind: 'pdf',
      pages: raw.numPages,
      chunks: chunks.length,
      status: 'ok',
      warnings: structured.warnings,
      labels: structured.labels,
    });
    return { record, chunks, outline: structured.outline, ...(ocr ? { ocr } : {}) };
  }
  const text = readFileSync(file.file, 'utf8');
  const note = readNote(text, file.kind === 'md');
  const chunks = segmentsToChunks(note.segments, { ...meta, chunkType: 'note', labels: [] }, config.chunking);
  const record = sourceRecord(file, book, { kind: file.kind ?? 'txt', pages: 0, chunks: chunks.length, status: 'ok', warnings: [] });
  // A note has headings but no pages.
  const outline = note.headings.map((h) => ({ ...meta, title: h.title, level: h.level, page: null, pdf_page: null }));
  return { record, chunks, outline };
}

/** A source that has nothing to read: a PDF with no pages, or a scanned one that cannot be OCR'd. */
class EmptySourceError extends Error {}

/** How scanned pages are read: the mode (`--ocr` / `ingest.ocr`), the result cache, and the per-page limit. */
interface OcrSettings {
  mode: 'auto' | 'always' | 'never';
  cacheDir: string;
  pageTimeoutMs: number;
}

/** Step: parses new and changed PDFs and notes; unchanged ones (unless `reuse` is off) come from the previous build. */
async function parseSources(input: {
  sources: readonly SourceFile[];
  previous: PreviousBuild | null;
  reuse: boolean;
  config: ExamCopilotConfig;
  password: string | undefined;
  strict: boolean;
  onProgress: Progress;
  pause: ((point: IngestPausePoint) => void) | undefined;
  ocr: OcrSettings;
}): Promise<BuiltSource[]> {
  const { config, previous } = input;
  const todo = input.sources.filter((s) => !s.skipped && s.kind !== 'csv');
  const built: BuiltSource[] = [];
  for (const [i, file] of todo.entries()) {
    const started = Date.now();
    const book = bookName(file.file, config.books);
    input.onProgress?.({ kind: 'file', index: i + 1, total: todo.length, source: file.source });
    const failed = (message: string): BuiltSource => failedSource({ file, book, message, started, previous, strict: input.strict });
    if (file.error) {
      built.push(failed(file.error));
      continue;
    }
    const prev = input.reuse
      ? previous?.manifest.sources.find((m) => m.source === file.source && m.status === 'ok' && m.sha256 === file.sha256)
      : undefined;
    if (prev && previous) {
      const chunks = previous.chunks.filter((c) => c.source === file.source);
      const outline = previous.outline.filter((o) => o.source === file.source);
      built.push({
        record: prev,
        chunks,
        outline,
        file: {
          source: file.source,
          kind: file.kind,
          book: prev.book,
          status: 'unchanged',
          pages: prev.pages,
          chunks: chunks.length,
          tableRows: 0,
          warnings: prev.warnings,
          elapsedMs: Date.now() - started,
        },
      });
      continue;
    }
    try {
      const read = await readSource({ file, book, config, password: input.password, onProgress: input.onProgress, ocr: input.ocr });
      built.push({
        record: read.record,
        chunks: read.chunks,
        outline: read.outline,
        file: {
          source: file.source,
          kind: file.kind,
          book,
          status: 'ok',
          pages: read.record.pages,
          chunks: read.chunks.length,
          tableRows: 0,
          warnings: read.record.warnings,
          elapsedMs: Date.now() - started,
          ...(read.ocr ? { ocr: read.ocr } : {}),
        },
      });
    } catch (error) {
      if (error instanceof UserError) throw error;
      if (error instanceof PdfParseError) built.push(failed(pdfFailureMessage(error)));
      else if (error instanceof EmptySourceError) built.push(failed(error.message));
      else built.push(failed(`could not be read (${errorMessage(error).split('\n')[0] ?? ''})`));
    }
    if (i === 0) input.pause?.('parse');
  }
  return built;
}

/** Step: turns table_explain.csv rows into their own high-priority chunks, placed in the PDFs parsed before. */
function readTableTranscriptions(input: {
  sources: readonly SourceFile[];
  parsed: readonly BuiltSource[];
  previous: PreviousBuild | null;
  config: ExamCopilotConfig;
  strict: boolean;
}): BuiltSource[] {
  const labelsByBook = new Map<string, string[]>();
  for (const { record } of input.parsed) if (record.labels && !labelsByBook.has(record.book)) labelsByBook.set(record.book, record.labels);
  const pdfPageOf = (book: string, label: string): number | null => {
    const i = labelsByBook.get(book)?.indexOf(label) ?? -1;
    return i >= 0 ? i + 1 : null;
  };
  const built: BuiltSource[] = [];
  for (const file of input.sources.filter((s) => !s.skipped && s.kind === 'csv')) {
    const started = Date.now();
    const failed = (message: string): BuiltSource =>
      failedSource({ file, book: '', message, started, previous: input.previous, strict: input.strict });
    if (file.error) {
      built.push(failed(file.error));
      continue;
    }
    try {
      const { rows, warnings } = loadTableCsv(readFileSync(file.file), file.source);
      const chunks = tableRowChunks(rows, file.source, input.config.chunking, pdfPageOf);
      const books = [...new Set(rows.map((r) => r.book))].join(', ');
      const record = sourceRecord(file, books, {
        kind: 'csv',
        pages: 0,
        chunks: chunks.length,
        tableRows: rows.length,
        status: 'ok',
        warnings,
      });
      built.push({
        record,
        chunks,
        outline: [],
        file: {
          source: file.source,
          kind: 'csv',
          book: books,
          status: 'ok',
          pages: 0,
          chunks: chunks.length,
          tableRows: rows.length,
          warnings,
          elapsedMs: Date.now() - started,
        },
      });
    } catch (error) {
      // The message already names the file.
      if (error instanceof TableCsvError) built.push(failed(error.message.replace(`${file.source}: `, '')));
      else throw error;
    }
  }
  return built;
}

/** Step: writes chunks.jsonl, docs_for_index.jsonl, outline.json and manifest.json into a fresh staging area. */
function writeStagedData(input: {
  root: string;
  config: ExamCopilotConfig;
  built: readonly BuiltSource[];
  dictionaryHash: string;
}): StagedData {
  const staging = prepareStaging(input.root);
  const ordered = [...input.built].sort((a, b) => a.record.source.localeCompare(b.record.source));
  const chunks = ordered.flatMap((b) => b.chunks);
  const docs = chunks.map(indexDocFor);
  const outline = ordered.flatMap((b) => b.outline);
  const manifest: Manifest = {
    version: 1,
    parserVersion: PARSER_VERSION,
    configFingerprint: configFingerprint(input.config),
    dictionaryHash: input.dictionaryHash,
    builtAt: new Date().toISOString(),
    sources: ordered.map((b) => b.record),
  };
  const dir = staging.data;
  writeFileSync(path.join(dir, 'chunks.jsonl'), chunks.map((c) => JSON.stringify(c)).join('\n') + (chunks.length ? '\n' : ''));
  writeFileSync(path.join(dir, 'docs_for_index.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + (docs.length ? '\n' : ''));
  writeFileSync(path.join(dir, 'outline.json'), `${JSON.stringify(outline, null, 1)}\n`);
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return { staging, chunks, docs };
}

/** Step: builds sqlite_fts.db and faiss/ in the staged index folder (the one meeting point with indexing). */
async function buildStagedIndexes(input: {
  root: string;
  config: ExamCopilotConfig;
  staged: StagedData;
  liveIndex: string;
  onProgress: Progress;
}): Promise<{ index: NonNullable<IngestResult['index']>; warnings: Warning[] }> {
  const { staged } = input;
  input.onProgress?.({ kind: 'stage', stage: 'index', detail: `${staged.chunks.length} chunks` });
  const { buildIndexes } = await import('../indexing/build-indexes.js');
  const result = await buildIndexes({
    root: input.root,
    config: input.config,
    chunks: staged.chunks,
    docs: staged.docs,
    indexDir: staged.staging.index,
    ...(existsSync(input.liveIndex) ? { previousIndexDir: input.liveIndex } : {}),
    onProgress: (p) => input.onProgress?.({ kind: 'index', stage: p.stage, done: p.done, total: p.total }),
  });
  const index = {
    ftsRows: result.ftsRows,
    vectors: result.vectors,
    embedderId: result.embedderId,
    vectorBackend: result.vectorBackend,
    embedded: result.embedded,
    cached: result.cached,
  };
  return { index, warnings: result.warnings };
}

function summarise(
  root: string,
  started: number,
  built: readonly IngestFileResult[],
  upToDate: boolean,
  index: IngestResult['index'],
  warnings: Warning[],
): IngestResult {
  const files = [...built].sort((a, b) => a.source.localeCompare(b.source));
  const totals = {
    files: files.length,
    failed: files.filter((f) => f.status === 'failed').length,
    pages: files.reduce((n, f) => n + f.pages, 0),
    chunks: files.reduce((n, f) => n + f.chunks, 0),
    tableRows: files.reduce((n, f) => n + f.tableRows, 0),
    warnings: files.reduce((n, f) => n + f.warnings.length, 0) + warnings.length,
  };
  return { root, upToDate, files, totals, index, warnings, elapsedMs: Date.now() - started };
}

/**
 * Turns the sources under `rawdoc/` (or `paths`) into `data/` and `index/`. The steps, in order, each taking
 * its inputs and returning its outputs: take the lock and repair an interrupted run; scan the sources; load
 * the previous build; stop if nothing changed; parse new and changed files; read table transcriptions; write the
 * data into staging; build the indexes there; swap staging into place. A file that fails keeps its previous
 * chunks and is reported (or, with `strict`, thrown); a run in which nothing could be read changes nothing.
 */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  const started = Date.now();
  assertRootFolder(path.resolve(options.root));
  const paths = projectPaths(options.root);
  const { root } = paths;
  const { config, onProgress } = options;
  const pause = options.testHooks?.pause;
  makeStateFolder(root, paths.state);
  const lock = acquireIngestLock(root, paths.lock, `exam-copilot ingest${options.force ? ' --force' : ''}`);
  let staged: StagedData | null = null;
  try {
    const warnings: Warning[] = [...lock.warnings];
    repairInterruptedSwap(root);
    onProgress?.({ kind: 'stage', stage: 'scan' });
    const scanned = scanInputs({ root, paths, config, explicit: options.paths });
    warnings.push(...scanned.warnings);
    const previous = loadPrevious({ paths, config });
    const dictionary = dictionaryHash(root, config);
    const unchanged = options.force ? null : upToDateFiles({ sources: scanned.sources, previous, dictionaryHash: dictionary, paths });
    if (unchanged) return summarise(root, started, unchanged, true, null, warnings);
    const strict = options.strict === true;
    const parsed = await parseSources({
      sources: scanned.sources,
      previous,
      reuse: !options.force,
      config,
      password: options.password ?? config.pdf.password,
      strict,
      onProgress,
      pause,
      ocr: {
        mode: options.ocr ?? config.ingest?.ocr ?? 'auto',
        cacheDir: projectPaths(root).ocrCache,
        pageTimeoutMs: config.ingest?.ocrPageTimeoutMs ?? 120_000,
      },
    });
    const tables = readTableTranscriptions({ sources: scanned.sources, parsed, previous, config, strict });
    const built = [...parsed, ...tables];
    const files = built.map((b) => b.file);
    if (!built.some((b) => b.file.status !== 'failed')) {
      // Nothing could be read: an empty build would replace a good index with nothing.
      const what = existsSync(paths.ftsDb) ? 'the previous index is kept unchanged' : 'no index was built';
      warnings.push({ where: root, message: `nothing could be read (${files.length} of ${files.length} files failed); ${what}` });
      return summarise(root, started, files, false, null, warnings);
    }
    onProgress?.({ kind: 'stage', stage: 'write' });
    staged = writeStagedData({ root, config, built, dictionaryHash: dictionary });
    pause?.('index');
    const indexed = await buildStagedIndexes({ root, config, staged, liveIndex: paths.index, onProgress });
    warnings.push(...indexed.warnings);
    onProgress?.({ kind: 'stage', stage: 'swap' });
    markStagingComplete(root);
    swapIntoPlace(root, pause ? () => pause('swap') : undefined);
    staged = null;
    return summarise(root, started, files, false, indexed.index, warnings);
  } catch (error) {
    // A full disk is the user's to fix, not a bug: say so on one line (the staging area is dropped below).
    if (isDiskFull(error)) {
      // The half-written staging area holds space the user needs back, whether or not it got as far as `staged`.
      rmSync(paths.staging, { recursive: true, force: true });
      throw diskFullError(root, existsSync(paths.ftsDb), error);
    }
    throw error;
  } finally {
    // An unfinished staging area is never swapped in; drop it so the next run starts clean.
    if (staged) rmSync(paths.staging, { recursive: true, force: true });
    lock.release();
  }
}

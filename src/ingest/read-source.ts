import { readFileSync } from 'node:fs';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { errorMessage, UserError } from '../errors.js';
import type { SourceFile } from '../store/scan-sources.js';
import { bookName } from './book-name.js';
import type { IngestProgress } from './ingest-types.js';
import { publishRunEvent } from '../run-events.js';
import { loadTableCsv, TableCsvError } from './load-table-csv.js';
import { readNote } from './load-notes.js';
import { segmentsToChunks } from './make-chunks.js';
import { markOcrChunks, OCR_DPI } from './ocr/mark-ocr-chunks.js';
import { parsePdf, pdfParseThreads, PdfParseError, scannedFailure } from './parse-pdf.js';
import { previousOf, type PreviousBuild } from './previous-build.js';
import { fileResult, sourceRecord, type BuiltSource } from './source-results.js';
import { structurePdf } from './structure-pdf.js';
import { tableRowChunks } from './table-chunks.js';

/**
 * Reading the sources of a build: each PDF or note parsed into chunks and an outline (or taken from the previous
 * build when unchanged), each table transcription into its rows' chunks, and a failed file kept from the last build.
 */

type Progress = ((event: IngestProgress) => void) | undefined;

/**
 * A source that failed. When the last good build had it, its chunks are kept (with that build's record, so the
 * next run tries the file again) and the warning says so; an unreadable download never erases a book.
 */
export function failedSource(input: {
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
    const { chunks, outline } = previousOf(previous, file.source);
    const warnings = [
      ...last.warnings,
      { where: file.source, message: `kept the previous version of ${file.source} (${chunks.length} chunks) because this one failed` },
    ];
    return {
      record: { ...last, status: 'failed', error, kept: true },
      chunks,
      outline,
      file: fileResult(file, last, { status: 'failed', chunks: chunks.length, warnings, error, kept: true, elapsedMs }),
    };
  }
  const record = sourceRecord(file, book, { kind: file.kind ?? 'txt', pages: 0, chunks: 0, status: 'failed', error, warnings: [] });
  return { record, chunks: [], outline: [], file: fileResult(file, record, { status: 'failed', chunks: 0, error, elapsedMs }) };
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
      // The other cores are idle while a PDF is parsed: this thread only loads the analyzer meanwhile.
      threads: pdfParseThreads(),
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
export interface OcrSettings {
  mode: 'auto' | 'always' | 'never';
  cacheDir: string;
  pageTimeoutMs: number;
}

/** Step: parses new and changed PDFs and notes; unchanged ones (unless `reuse` is off) come from the previous build. */
export async function parseSources(input: {
  sources: readonly SourceFile[];
  previous: PreviousBuild | null;
  reuse: boolean;
  config: ExamCopilotConfig;
  password: string | undefined;
  strict: boolean;
  onProgress: Progress;
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
      const { chunks, outline } = previousOf(previous, file.source);
      built.push({
        record: prev,
        chunks,
        outline,
        file: fileResult(file, prev, { status: 'unchanged', chunks: chunks.length, elapsedMs: Date.now() - started }),
      });
      continue;
    }
    try {
      const read = await readSource({ file, book, config, password: input.password, onProgress: input.onProgress, ocr: input.ocr });
      built.push({
        record: read.record,
        chunks: read.chunks,
        outline: read.outline,
        file: fileResult(file, read.record, {
          status: 'ok',
          chunks: read.chunks.length,
          elapsedMs: Date.now() - started,
          ...(read.ocr ? { ocr: read.ocr } : {}),
        }),
      });
    } catch (error) {
      if (error instanceof UserError) throw error;
      if (error instanceof PdfParseError) built.push(failed(pdfFailureMessage(error)));
      else if (error instanceof EmptySourceError) built.push(failed(error.message));
      else built.push(failed(`could not be read (${errorMessage(error).split('\n')[0] ?? ''})`));
    }
    if (i === 0) publishRunEvent({ command: 'ingest', point: 'parse' });
  }
  return built;
}

/** Step: turns table_explain.csv rows into their own high-priority chunks, placed in the PDFs parsed before. */
export function readTableTranscriptions(input: {
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
        file: fileResult({ source: file.source, kind: 'csv' }, record, {
          status: 'ok',
          chunks: chunks.length,
          elapsedMs: Date.now() - started,
        }),
      });
    } catch (error) {
      // The message already names the file.
      if (error instanceof TableCsvError) built.push(failed(error.message.replace(`${file.source}: `, '')));
      else throw error;
    }
  }
  return built;
}

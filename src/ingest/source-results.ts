import type { ManifestSource } from '../store/manifest.js';
import type { SourceFile } from '../store/scan-sources.js';
import type { Chunk, OutlineEntry } from '../types.js';
import type { IngestFileResult } from './ingest-types.js';

/** One source's share of the new build: its manifest record, chunks, outline, and what the reporter shows. */
export interface BuiltSource {
  record: ManifestSource;
  chunks: Chunk[];
  outline: OutlineEntry[];
  file: IngestFileResult;
}

/**
 * The manifest record of a source read in this run: the file's identity and what reading it gave (only a table
 * transcription has table rows). Keys keep the manifest's order.
 */
export function sourceRecord(
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

/**
 * What the reporter shows for one source: which file (`where`), what its manifest record says (book, pages, table
 * rows, warnings) and how this run went. Keys keep the order the JSON output has always had.
 */
export function fileResult(
  where: Pick<IngestFileResult, 'source' | 'kind'>,
  record: Pick<ManifestSource, 'book' | 'pages' | 'tableRows' | 'warnings'>,
  outcome: Pick<IngestFileResult, 'status' | 'chunks' | 'elapsedMs' | 'error' | 'kept' | 'ocr'> & {
    warnings?: IngestFileResult['warnings'];
  },
): IngestFileResult {
  return {
    source: where.source,
    kind: where.kind,
    book: record.book,
    status: outcome.status,
    pages: record.pages,
    chunks: outcome.chunks,
    tableRows: record.tableRows,
    warnings: outcome.warnings ?? record.warnings,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(outcome.kept !== undefined ? { kept: outcome.kept } : {}),
    elapsedMs: outcome.elapsedMs,
    ...(outcome.ocr ? { ocr: outcome.ocr } : {}),
  };
}

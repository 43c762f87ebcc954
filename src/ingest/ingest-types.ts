import type { ExamCopilotConfig } from '../config/load-config.js';
import type { Warning } from '../types.js';
import type { SourceKind } from '../store/manifest.js';

/** Options of `runIngest`. */
export interface IngestOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Files or folders to ingest; default `<root>/rawdoc/`. They define the whole corpus of this build. */
  paths?: readonly string[];
  /** Re-parse and re-index everything. */
  force?: boolean;
  /** Stop at the first failed file with a `UserError`. */
  strict?: boolean;
  /** PDF password (overrides `config.pdf.password`). */
  password?: string;
  /** OCR of scanned pages (overrides `config.ingest.ocr`; default `auto`). */
  ocr?: 'auto' | 'always' | 'never';
  onProgress?: (event: IngestProgress) => void;
}

/** Progress events for the reporter's spinner. */
export type IngestProgress =
  | { kind: 'file'; index: number; total: number; source: string }
  /** `page` is the number of the file's pages read so far (workers may read them out of order). */
  | { kind: 'page'; source: string; page: number; pages: number; ocr?: boolean }
  | { kind: 'stage'; stage: 'scan' | 'write' | 'index' | 'swap'; detail?: string }
  | { kind: 'index'; stage: string; done: number; total: number };

/** What happened to one source. */
export interface IngestFileResult {
  source: string;
  kind: SourceKind | null;
  book: string;
  /** `unchanged`: taken from the previous build without re-parsing. */
  status: 'ok' | 'unchanged' | 'failed' | 'skipped';
  pages: number;
  chunks: number;
  tableRows: number;
  warnings: Warning[];
  error?: string;
  /** The file failed and its chunks from the previous build were kept. */
  kept?: boolean;
  elapsedMs: number;
  /** PDFs: pages read by OCR, and how many of them came from the OCR cache. */
  ocr?: { pages: number; cached: number };
}

/** The data `runIngest` returns (the CLI renders it or prints it as JSON). */
export interface IngestResult {
  root: string;
  /** Nothing changed since the last build; nothing was rebuilt. */
  upToDate: boolean;
  files: IngestFileResult[];
  totals: { files: number; failed: number; pages: number; chunks: number; tableRows: number; warnings: number };
  /** Index build summary, when indexes were built. */
  index: { ftsRows: number; vectors: number; embedderId: string; vectorBackend: string; embedded: number; cached: number } | null;
  /** Warnings not tied to one file (stale lock, indexing). */
  warnings: Warning[];
  elapsedMs: number;
}

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { ExamCopilotConfig } from '../config/load-config.js';
import type { Warning } from '../types.js';

/** Bumped whenever parsing or chunking changes output, so old builds are redone. */
export const PARSER_VERSION = 'ingest-3';

/** What kind of source a file is. */
export type SourceKind = 'pdf' | 'md' | 'txt' | 'csv';

/** One source as recorded in `data/manifest.json`. */
export interface ManifestSource {
  /** Path relative to the root, POSIX separators. */
  source: string;
  kind: SourceKind;
  sha256: string;
  size: number;
  book: string;
  pages: number;
  chunks: number;
  tableRows: number;
  status: 'ok' | 'failed';
  error?: string;
  warnings: Warning[];
  /** Printed label per physical page (PDFs), so table rows can be placed without re-parsing. */
  labels?: string[];
  /**
   * The file failed this time and its chunks from the last good build were kept; `sha256` is that build's,
   * so the next run tries the file again.
   */
  kept?: boolean;
}

/** `data/manifest.json`. */
export interface Manifest {
  version: 1;
  parserVersion: string;
  /** Hash of the configuration that shapes chunks (chunk sizes, book names) and of the parser version. */
  configFingerprint: string;
  /** Hash of the jieba dictionaries (starter list + user dictionaries) the index was built with. */
  dictionaryHash?: string;
  builtAt: string;
  sources: ManifestSource[];
}

/** The part of the configuration whose change must rebuild every chunk. */
export function configFingerprint(config: ExamCopilotConfig): string {
  const relevant = {
    parser: PARSER_VERSION,
    chunking: config.chunking,
    books: Object.entries(config.books).sort(([a], [b]) => a.localeCompare(b)),
  };
  return createHash('sha256').update(JSON.stringify(relevant)).digest('hex').slice(0, 16);
}

/** Reads a manifest; null when absent or unreadable (then everything is rebuilt). */
export function readManifest(file: string): Manifest | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>;
    if (parsed.version !== 1 || !Array.isArray(parsed.sources)) return null;
    return parsed as Manifest;
  } catch {
    return null;
  }
}

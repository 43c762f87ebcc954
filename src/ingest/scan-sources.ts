import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SourceKind } from './manifest.js';

/** A candidate input file found on disk. */
export interface SourceFile {
  /** Absolute path. */
  file: string;
  /** Relative to the root with POSIX separators (absolute when outside the root). */
  source: string;
  kind: SourceKind | null;
  size: number;
  sha256: string;
  /** Why the file cannot be ingested (empty, unreadable, unsupported type); set instead of throwing. */
  error?: string;
  /** Found by a folder scan and not an ingestible type: listed, not failed. */
  skipped?: boolean;
}

const KINDS: Readonly<Record<string, SourceKind>> = { '.pdf': 'pdf', '.md': 'md', '.markdown': 'md', '.txt': 'txt', '.csv': 'csv' };

/** The source path stored in chunks: relative to the root when inside it. */
export function sourceName(root: string, file: string): string {
  const rel = path.relative(root, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file.split(path.sep).join('/') : rel.split(path.sep).join('/');
}

/**
 * Lists the files to ingest. Folders are walked recursively (hidden entries skipped); in folders only
 * `table_explain*.csv` counts as a table CSV (other CSVs such as validation sets are not sources), README files
 * and the configured jieba dictionaries are skipped. A file named explicitly with an unsupported extension is an error.
 */
export function scanSources(root: string, inputs: readonly { path: string; explicit: boolean }[], exclude: ReadonlySet<string>): SourceFile[] {
  const found = new Map<string, SourceFile>();
  const visit = (file: string, explicit: boolean): void => {
    const abs = path.resolve(file);
    if (found.has(abs) || exclude.has(abs)) return;
    let stat;
    try {
      stat = statSync(abs);
    } catch (error) {
      found.set(abs, { file: abs, source: sourceName(root, abs), kind: null, size: 0, sha256: '', error: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path and its permissions` });
      return;
    }
    if (stat.isDirectory()) {
      let entries: string[];
      try {
        entries = readdirSync(abs).sort();
      } catch (error) {
        found.set(abs, { file: abs, source: sourceName(root, abs), kind: null, size: 0, sha256: '', error: `folder cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
        return;
      }
      for (const name of entries) if (!name.startsWith('.')) visit(path.join(abs, name), false);
      return;
    }
    const ext = path.extname(abs).toLowerCase();
    const name = path.basename(abs);
    let kind: SourceKind | null = KINDS[ext] ?? null;
    if (!explicit && (kind === 'csv' ? !/^table_explain/iu.test(name) : /^readme(\.|$)/iu.test(name))) kind = null;
    const entry: SourceFile = { file: abs, source: sourceName(root, abs), kind, size: stat.size, sha256: '' };
    if (kind === null) {
      if (!explicit) return;
      entry.error = `unsupported file type "${ext || '(none)'}"; ingest reads .pdf, .md, .txt and table_explain.csv`;
    } else if (stat.size === 0) {
      entry.error = 'is empty (0 bytes)';
    } else {
      try {
        entry.sha256 = createHash('sha256').update(readFileSync(abs)).digest('hex');
      } catch (error) {
        entry.error = `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check its permissions`;
      }
    }
    found.set(abs, entry);
  };
  for (const input of inputs) visit(input.path, input.explicit);
  return [...found.values()].sort((a, b) => a.source.localeCompare(b.source));
}

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Warning } from '../types.js';
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

/** The files found, plus what the walk noticed (links to a file already found, links leaving the root). */
export interface ScannedSources {
  sources: SourceFile[];
  warnings: Warning[];
}

function inside(folder: string, file: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Lists the files to ingest. Folders are walked recursively (hidden entries skipped); in folders only
 * `table_explain*.csv` counts as a table CSV (other CSVs such as validation sets are not sources), README files
 * and the configured jieba dictionaries are skipped. A file named explicitly with an unsupported extension is an error.
 *
 * The walk goes by real path: each real folder is entered once (so a link such as `rawdoc/again -> .` cannot
 * loop), each real file is listed once under the first path that reaches it (a second path is a warning), and a
 * link that leads outside the root is followed with a warning, so the corpus never grows silently.
 */
export function scanSources(
  root: string,
  inputs: readonly { path: string; explicit: boolean }[],
  exclude: ReadonlySet<string>,
): ScannedSources {
  const found = new Map<string, SourceFile>();
  /** Real path → the source that first reached it. */
  const seenFiles = new Map<string, string>();
  const seenDirs = new Set<string>();
  const warnings: Warning[] = [];
  const realRoot = (() => {
    try {
      return realpathSync(root);
    } catch {
      return path.resolve(root);
    }
  })();
  /** `parentReal`: the real path of the folder being walked (none for a path given on the command line). */
  const visit = (file: string, explicit: boolean, parentReal?: string): void => {
    const abs = path.resolve(file);
    if (found.has(abs) || exclude.has(abs)) return;
    const source = sourceName(root, abs);
    let stat;
    let real: string;
    try {
      real = realpathSync(abs);
      stat = statSync(real);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const why =
        code === 'ELOOP'
          ? 'is a link that loops back on itself'
          : code === 'ENOENT'
            ? 'is a link to nothing (ENOENT)'
            : `cannot be read (${code})`;
      found.set(abs, { file: abs, source, kind: null, size: 0, sha256: '', error: `${why}; check the path and its permissions` });
      return;
    }
    if (exclude.has(real)) return;
    // Said once, where the walk leaves the root: not again for every file below a linked folder.
    const leaves = parentReal === undefined || inside(realRoot, parentReal);
    if (real !== abs && leaves && inside(realRoot, abs) && !inside(realRoot, real)) {
      warnings.push({ where: source, message: `is a link to ${real}, outside the root; its contents are ingested too` });
    }
    if (stat.isDirectory()) {
      if (seenDirs.has(real)) {
        // The same folder reached again through a link: entering it again would list (or loop over) it twice.
        if (real !== abs)
          warnings.push({ where: source, message: `is a link to a folder already scanned (${sourceName(root, real)}); skipped` });
        return;
      }
      seenDirs.add(real);
      let entries: string[];
      try {
        entries = readdirSync(real).sort();
      } catch (error) {
        found.set(abs, {
          file: abs,
          source,
          kind: null,
          size: 0,
          sha256: '',
          error: `folder cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        });
        return;
      }
      for (const name of entries) if (!name.startsWith('.')) visit(path.join(abs, name), false, real);
      return;
    }
    const ext = path.extname(abs).toLowerCase();
    const name = path.basename(abs);
    let kind: SourceKind | null = KINDS[ext] ?? null;
    if (!explicit && (kind === 'csv' ? !/^table_explain/iu.test(name) : /^readme(\.|$)/iu.test(name))) kind = null;
    if (kind === null && !explicit) return;
    const first = seenFiles.get(real);
    if (first !== undefined) {
      warnings.push({ where: source, message: `is the same file as ${first}; ingested once` });
      return;
    }
    seenFiles.set(real, source);
    const entry: SourceFile = { file: abs, source, kind, size: stat.size, sha256: '' };
    if (kind === null) {
      entry.error = `unsupported file type "${ext || '(none)'}"; ingest reads .pdf, .md, .txt and table_explain.csv`;
    } else if (stat.size === 0) {
      entry.error = 'is empty (0 bytes)';
    } else {
      try {
        entry.sha256 = createHash('sha256').update(readFileSync(real)).digest('hex');
      } catch (error) {
        entry.error = `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); check its permissions`;
      }
    }
    found.set(abs, entry);
  };
  for (const input of inputs) visit(input.path, input.explicit);
  return { sources: [...found.values()].sort((a, b) => a.source.localeCompare(b.source)), warnings };
}

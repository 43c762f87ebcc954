import { readFileSync } from 'node:fs';
import { NotReadyError, UserError } from '../errors.js';
import { openReadableRoot } from '../store/atomic-swap.js';
import type { OutlineEntry } from '../types.js';

export interface RunTocOptions {
  root: string;
  /** Only this book (exact name, as in `search --book`). */
  book?: string;
}

export interface TocResult {
  /** Books in the order they appear in the outline. */
  books: string[];
  entries: OutlineEntry[];
}

/** `exam-copilot toc`: the outline recovered at ingest (`data/outline.json`), with printed pages. */
export function runToc(options: RunTocOptions): TocResult {
  // Like every reader: an interrupted ingest is repaired before the outline is read.
  const file = openReadableRoot(options.root).outline;
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    throw new NotReadyError(`no outline at ${file}; run \`exam-copilot ingest\``);
  }
  let entries: OutlineEntry[];
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!Array.isArray(parsed)) throw new Error('not an array');
    entries = parsed as OutlineEntry[];
  } catch {
    throw new NotReadyError(`${file} is not a valid outline; run \`exam-copilot ingest --force\``);
  }
  const books = [...new Set(entries.map((e) => e.book))];
  if (options.book !== undefined) {
    if (!books.includes(options.book)) {
      throw new UserError(`--book ${options.book}: no such book in ${file}; books: ${books.join(', ') || '(none)'}`);
    }
    return { books: [options.book], entries: entries.filter((e) => e.book === options.book) };
  }
  return { books, entries };
}

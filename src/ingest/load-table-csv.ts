import { parse } from 'csv-parse/sync';
import { csvRecordLines } from '../text/csv-record-lines.js';
import { decodeCsvBytes } from '../text/decode-csv-bytes.js';
import type { Warning } from '../types.js';
import { normalizeText } from '../text/normalize-text.js';

/** One transcription row of `rawdoc/table_explain.csv`. */
export interface TableRow {
  book: string;
  chapter: string;
  section: string;
  figure_ref: string;
  content: string;
  /** Printed page, when the optional `page` column gives one. */
  page: string;
  /** 1-based line in the file where the row starts. */
  line: number;
}

export const REQUIRED_TABLE_COLUMNS = ['book', 'chapter', 'section', 'figure_ref', 'content'] as const;

/** A CSV that cannot be used at all (missing column, unparseable); the message names the file. */
export class TableCsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TableCsvError';
  }
}

/**
 * Parses a table-transcription CSV. A missing required column throws a `TableCsvError` naming the column and
 * the file; a row without content or book becomes a warning naming `file:line` and is skipped.
 */
export function loadTableCsv(bytes: Buffer, where: string): { rows: TableRow[]; warnings: Warning[]; encoding: string } {
  const { text, encoding } = decodeCsvBytes(bytes);
  let records: { record: string[]; info: { lines: number }; raw: string }[];
  try {
    records = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      raw: true,
      trim: false,
    }) as unknown as typeof records;
  } catch (error) {
    throw new TableCsvError(
      `${where}: not a readable CSV (${(error as Error).message.split('\n')[0] ?? ''}); save it as CSV (UTF-8 or GBK)`,
    );
  }
  const header = records[0]?.record.map((h) => h.trim().toLowerCase()) ?? [];
  if (header.length === 0)
    throw new TableCsvError(`${where}: the file is empty; it needs a header row ${REQUIRED_TABLE_COLUMNS.join(',')}[,page]`);
  for (const column of REQUIRED_TABLE_COLUMNS) {
    if (!header.includes(column))
      throw new TableCsvError(`${where}: missing required column "${column}" (header: ${header.join(',')}); add it to the first row`);
  }
  const col = (name: string): number => header.indexOf(name);
  const rows: TableRow[] = [];
  const warnings: Warning[] = [];
  const lines = csvRecordLines(records);
  for (const [index, { record }] of records.entries()) {
    if (index === 0) continue; // the header
    const line = lines[index] ?? 0;
    const get = (name: string): string => {
      const i = col(name);
      return i >= 0 ? normalizeText((record[i] ?? '').trim()) : '';
    };
    const content = get('content');
    const book = get('book');
    if (record.every((v) => v.trim() === '')) continue;
    if (content === '') {
      warnings.push({ where: `${where}:${line}`, message: 'row has no content; skipped' });
      continue;
    }
    if (book === '') {
      warnings.push({ where: `${where}:${line}`, message: 'row has no book; skipped (fill in the book column, e.g. 上册)' });
      continue;
    }
    rows.push({ book, chapter: get('chapter'), section: get('section'), figure_ref: get('figure_ref'), content, page: get('page'), line });
  }
  return { rows, warnings, encoding };
}

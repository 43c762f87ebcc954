import path from 'node:path';
import { UserError } from '../errors.js';
import { readInputFile } from './read-input-file.js';
import type { Warning } from '../types.js';
import { decodeCsvBytes } from '../text/decode-csv-bytes.js';
import { readCsvTable, type RawTable } from './load-dataset.js';

/** One query of a batch-search file. */
export interface BatchQuery {
  /** The `query_id` column (or `id`/`qid`), else `L<line>`. */
  id: string;
  /** 1-based line where the row starts, for messages. */
  line: number;
  query: string;
  /** Gold strings (`relevant`, `;`-separated in TSV/CSV, a string or array in JSONL); null when the file gives none. */
  relevant: string[] | null;
}

/** A batch-search file read from disk: valid queries plus one warning per skipped row. */
export interface LoadedQueries {
  file: string;
  format: 'csv' | 'tsv' | 'jsonl';
  /** `utf-8`, `utf-8-bom`, `gb18030` or `utf-16le`. */
  encoding: string;
  queries: BatchQuery[];
  warnings: Warning[];
  skipped: number;
  /** Whether any query carries gold strings, so metrics can be computed. */
  judged: boolean;
}

const ID_NAMES = ['query_id', 'qid', 'id'];
const QUERY_NAMES = ['query', 'question', 'text'];
const RELEVANT_NAMES = ['relevant', 'answers', 'gold'];

const headerKey = (h: string): string => h.normalize('NFKC').trim().toLowerCase();
const splitGold = (cell: string): string[] =>
  cell
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * Reads a batch-search file: TSV or CSV with a header (`query_id`, `query`, optional `relevant`), or JSONL with
 * the same keys (`.jsonl`/`.ndjson`). Text is decoded as eval decodes validation sets (UTF-8, BOM, GBK). Rows
 * without a query, with bad JSON or a duplicate id become warnings with their line number and are skipped.
 */
export async function loadQueries(file: string): Promise<LoadedQueries> {
  const bytes = await readInputFile(file, 'the queries');
  const { text, encoding } = decodeCsvBytes(bytes);
  if (text.trim() === '')
    throw new UserError(`${file}: the file is empty; it needs a header row (query_id, query[, relevant]) or JSONL lines`);
  const ext = path.extname(file).toLowerCase();
  const jsonl = ext === '.jsonl' || ext === '.ndjson' || (ext !== '.csv' && ext !== '.tsv' && text.trimStart().startsWith('{'));
  const warnings: Warning[] = [];
  const queries: BatchQuery[] = [];
  const seen = new Map<string, number>();
  let skipped = 0;
  const add = (line: number, rawId: string, query: string, relevant: string[] | null): void => {
    const where = `${file}:${line}`;
    if (query.trim() === '') {
      warnings.push({ where, message: 'no query; row skipped' });
      skipped++;
      return;
    }
    let id = rawId.trim() === '' ? `L${line}` : rawId.trim();
    const first = seen.get(id);
    if (first !== undefined) {
      warnings.push({ where, message: `duplicate query_id ${JSON.stringify(id)} (first on line ${first}); using ${id}@${line}` });
      id = `${id}@${line}`;
    }
    seen.set(id, line);
    queries.push({ id, line, query: query.trim(), relevant });
  };
  let format: LoadedQueries['format'];
  if (jsonl) {
    format = 'jsonl';
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = i + 1;
      if (raw.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        warnings.push({ where: `${file}:${line}`, message: 'not a JSON object; row skipped' });
        skipped++;
        return;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        warnings.push({ where: `${file}:${line}`, message: 'not a JSON object; row skipped' });
        skipped++;
        return;
      }
      const o = value as Record<string, unknown>;
      const pick = (names: readonly string[]): unknown => names.map((n) => o[n]).find((v) => v !== undefined);
      const id = pick(ID_NAMES);
      const query = pick(QUERY_NAMES);
      const rel = pick(RELEVANT_NAMES);
      const relevant =
        typeof rel === 'string'
          ? splitGold(rel)
          : Array.isArray(rel)
            ? rel.filter((g): g is string => typeof g === 'string' && g.trim() !== '')
            : null;
      add(line, typeof id === 'string' || typeof id === 'number' ? String(id) : '', typeof query === 'string' ? query : '', relevant);
    });
  } else {
    const table: RawTable = readCsvTable(text, file);
    const header = table.header.map(headerKey);
    format = (text.split('\n', 1)[0] ?? '').includes('\t') ? 'tsv' : 'csv';
    const col = (names: readonly string[]): number => header.findIndex((h) => names.includes(h));
    const [idCol, queryCol, relCol] = [col(ID_NAMES), col(QUERY_NAMES), col(RELEVANT_NAMES)];
    if (queryCol < 0) {
      throw new UserError(
        `${file}: no query column (query_id, query[, relevant]); columns found: ${table.header.map((h) => JSON.stringify(h)).join(', ')}`,
      );
    }
    for (const { line, cells } of table.rows) {
      const cell = (i: number): string => (i < 0 ? '' : (cells[i] ?? ''));
      add(line, cell(idCol), cell(queryCol), relCol < 0 ? null : splitGold(cell(relCol)));
    }
  }
  if (queries.length === 0) {
    const first = warnings[0];
    throw new UserError(
      `${file}: no usable queries${first ? ` (${skipped} skipped: first ${first.where} ${first.message})` : ''}; check the columns`,
    );
  }
  return { file, format, encoding, queries, warnings, skipped, judged: queries.some((q) => q.relevant !== null && q.relevant.length > 0) };
}

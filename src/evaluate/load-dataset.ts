import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { UserError } from '../errors.js';
import { readInputFile } from './read-input-file.js';
import { csvRecordLines } from '../text/csv-record-lines.js';
import { decodeCsvBytes } from '../text/decode-csv-bytes.js';
import type { Warning } from '../types.js';
import type { EvalRow, GoldEvidence, LoadedDataset, QuestionType, RowIssue, RowIssueCounts } from './eval-types.js';
import { importPackage } from '../import-package.js';
import type ExcelJSModule from 'exceljs';

/** Canonical columns and the header spellings accepted for each (compared after `normalizeHeader`). */
const ALIASES: Record<string, readonly string[]> = {
  id: ['id', '序号', '编号', '题号', 'qid', 'no'],
  question: ['question', '题目', '题干', '问题', 'stem', '试题'],
  options: ['options', '选项', 'choices'],
  answer: ['answer', '答案', '正确答案', '参考答案', '标准答案', 'gold'],
  book: ['book', '册', '书', '书名', '教材', '分册'],
  chapter: ['chapter', '章', '章节'],
  section: ['section', '节'],
  page: ['page', '页码', '页', '页数'],
  figure_ref: ['figure_ref', 'figureref', 'figure', '图表', '图表编号', '图表号'],
  type: ['type', '题型', '类型', 'questiontype', 'question_type'],
};
const LETTERS = 'ABCDEFGH';

/** Folds width and case and drops spacing/punctuation, so `Option A`, `选项Ａ` and `a` compare alike. */
function normalizeHeader(h: string): string {
  return h
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/[\s._\-:：()（）]/g, '');
}

/** The option letter a header names (`A`, `选项A`, `Option A`), or null. */
function optionLetter(h: string): string | null {
  const n = normalizeHeader(h).replace(/^(选项|option|choice)/, '');
  return /^[a-h]$/.test(n) ? n.toUpperCase() : null;
}

interface ColumnMap {
  index: Record<string, number>;
  optionCols: { letter: string; col: number }[];
  /** An unnamed first column (pandas' index), used as id when there is no id column. */
  unnamedIndex: number | null;
}

function mapColumns(header: string[], file: string, options: { requireAnswer: boolean } = { requireAnswer: true }): ColumnMap {
  const index: Record<string, number> = {};
  const optionCols: { letter: string; col: number }[] = [];
  let unnamedIndex: number | null = null;
  header.forEach((raw, col) => {
    const n = normalizeHeader(raw);
    if (n === '') {
      if (col === 0) unnamedIndex = col;
      return;
    }
    const letter = optionLetter(raw);
    if (letter && !optionCols.some((o) => o.letter === letter)) {
      optionCols.push({ letter, col });
      return;
    }
    for (const [canonical, names] of Object.entries(ALIASES)) {
      if (index[canonical] === undefined && names.some((a) => normalizeHeader(a) === n)) {
        index[canonical] = col;
        return;
      }
    }
  });
  optionCols.sort((a, b) => a.letter.localeCompare(b.letter));
  const found = header.map((h) => JSON.stringify(h)).join(', ');
  if (index.question === undefined) {
    throw new UserError(`${file}: no question column (question/题目/题干/Question/stem); columns found: ${found}`);
  }
  if (optionCols.length === 0 && index.options === undefined) {
    throw new UserError(`${file}: no option columns (A, B, C, D or 选项A… or an options column); columns found: ${found}`);
  }
  if (index.answer === undefined && options.requireAnswer) {
    throw new UserError(
      `${file}: no answer column (answer/答案/Answer/正确答案); columns found: ${found}; to answer a question-only set, use \`exam-copilot answer ${file}\``,
    );
  }
  return { index, optionCols, unnamedIndex };
}

/** Splits an options cell like `A. 甲 B. 乙` or `A、甲\nB、乙` into lettered options. */
export function splitOptionsCell(cell: string): { letter: string; text: string }[] {
  const text = cell.normalize('NFKC');
  const re = /(?:^|[\s;；,，|])([A-H])\s*[.、:)\]]\s*/g;
  const marks: { letter: string; start: number; end: number }[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const letter = m[1] ?? '';
    const expected = LETTERS[marks.length];
    if (letter === expected) marks.push({ letter, start: m.index, end: m.index + m[0].length });
  }
  return marks.map((mark, i) => ({
    letter: mark.letter,
    text: text
      .slice(mark.end, marks[i + 1]?.start ?? text.length)
      .trim()
      .replace(/[;；,，|]$/, '')
      .trim(),
  }));
}

const JUDGE_TRUE = new Set(['正确', '对', '√', '是', 'true', 't', 'yes', 'y']);
const JUDGE_FALSE = new Set(['错误', '错', '×', 'x', '否', 'false', 'f', 'no', 'n']);

/** Normalises a gold answer to sorted uppercase letters; null when it names no option. */
export function normalizeAnswer(raw: string, options: readonly { letter: string; text: string }[]): string | null {
  const v = raw.normalize('NFKC').trim();
  if (v === '') return null;
  // An answer spelled as an option's text (judge questions: 正确/错误).
  const byText = options.find((o) => o.text.normalize('NFKC').trim() === v);
  if (byText) return byText.letter;
  const lower = v.toLowerCase();
  if (JUDGE_TRUE.has(lower) || JUDGE_FALSE.has(lower)) {
    const target = JUDGE_TRUE.has(lower) ? ['正确', '对', '√'] : ['错误', '错', '×'];
    const opt = options.find((o) => target.includes(o.text.trim()));
    if (opt) return opt.letter;
  }
  const letters = v.toUpperCase().replace(/[\s,，、;；/|和及]/g, '');
  if (!/^[A-H]+$/.test(letters)) return null;
  const unique = [...new Set(letters)].sort().join('');
  return unique;
}

function parseType(raw: string): QuestionType | null | 'unknown' {
  const v = raw.normalize('NFKC').trim().toLowerCase();
  if (v === '') return null;
  if (['table', 'figure', 'chart', '表', '表格', '图表', '图', 'manual_table_rewrite'].includes(v)) return 'table';
  if (['text', '文字', '文本', '正文', 'body'].includes(v)) return 'text';
  return 'unknown';
}

/** A raw table: header cells plus data rows with their 1-based starting line. */
export interface RawTable {
  header: string[];
  rows: { line: number; cells: string[] }[];
}

export function readCsvTable(text: string, file: string): RawTable {
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  // Excel's "Unicode text" export and many hand-made files use tabs; commas win when both appear.
  const delimiter =
    !firstLine.includes(',') && firstLine.includes('\t') ? '\t' : !firstLine.includes(',') && firstLine.includes(';') ? ';' : ',';
  let records: { record: string[]; info: { lines: number }; raw: string }[];
  try {
    records = parse(text, {
      delimiter,
      info: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: true,
      relax_quotes: true,
    }) as unknown as typeof records;
  } catch (error) {
    const m = /line (\d+)/i.exec((error as Error).message);
    throw new UserError(
      `${file}${m ? `:${m[1]}` : ''}: not readable as CSV (${(error as Error).message.split('\n')[0] ?? ''}); save it as CSV (UTF-8) or XLSX`,
    );
  }
  const out: { line: number; cells: string[] }[] = [];
  let header: string[] | null = null;
  const starts = csvRecordLines(records);
  for (const [i, r] of records.entries()) {
    if (header === null) header = r.record;
    else out.push({ line: starts[i] ?? 0, cells: r.record });
  }
  if (header === null) throw new UserError(`${file}: the file is empty; it needs a header row (question, A, B, C, D, answer)`);
  return { header, rows: out };
}

async function readXlsxTable(file: string): Promise<RawTable> {
  const { default: ExcelJS } = await importPackage<{ default: typeof ExcelJSModule }>('exceljs');
  // Read through readInputFile so a missing workbook is reported like a missing CSV, not as a broken workbook.
  const bytes = await readInputFile(file, 'the question set');
  const workbook = new ExcelJS.Workbook();
  try {
    // The same Node Buffer at run time; exceljs's typings pin an older Buffer type.
    await workbook.xlsx.load(bytes as unknown as Parameters<typeof workbook.xlsx.load>[0]);
  } catch (error) {
    throw new UserError(`${file}: not a readable XLSX workbook (${(error as Error).message}); re-save it from Excel or export CSV`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new UserError(`${file}: the workbook has no sheet`);
  const cellText = (value: unknown): string => {
    if (value === null || value === undefined) return '';
    if (typeof value === 'object') {
      const v = value as { richText?: { text: string }[]; text?: unknown; result?: unknown };
      if (Array.isArray(v.richText)) return v.richText.map((t) => t.text).join('');
      if (typeof v.text === 'string' || typeof v.text === 'number') return String(v.text);
      if (typeof v.result === 'string' || typeof v.result === 'number' || typeof v.result === 'boolean') return String(v.result);
      if (value instanceof Date) return value.toISOString().slice(0, 10);
      return '';
    }
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  };
  let header: string[] | null = null;
  const rows: { line: number; cells: string[] }[] = [];
  const width = sheet.columnCount;
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    for (let c = 1; c <= width; c++) cells.push(cellText(row.getCell(c).value).trim());
    if (header === null) header = cells;
    else if (cells.some((c) => c !== '')) rows.push({ line: rowNumber, cells });
  });
  if (header === null) throw new UserError(`${file}: the first sheet is empty; it needs a header row (question, A, B, C, D, answer)`);
  return { header, rows };
}

/**
 * Reads a validation set (CSV in UTF-8, UTF-8 with BOM or GBK; or the first sheet of an XLSX). Columns are found by
 * name with aliases; bad rows become warnings with their line number, are counted by kind, and are skipped (a
 * duplicate id is kept under a new id), never dropped silently.
 */
export async function loadDataset(file: string): Promise<LoadedDataset> {
  const { table, encoding, format } = await readTable(file);
  const cols = mapColumns(table.header, file);
  const { rows, warnings, skipped, issues } = validateRows(table, cols, file);
  if (rows.length === 0) {
    throw new UserError(
      `${file}: no usable question rows${skipped > 0 ? ` (${skipped} skipped: first ${warnings[0]?.where ?? ''} ${warnings[0]?.message ?? ''})` : ''}; check the columns and answers`,
    );
  }
  const columns: Record<string, string> = {};
  for (const [name, col] of Object.entries(cols.index)) columns[name] = table.header[col] ?? '';
  for (const o of cols.optionCols) columns[o.letter] = table.header[o.col] ?? '';
  return { file, format, encoding, rows, warnings, skipped, issues, columns };
}

/** Step 1: the raw table, from an XLSX workbook or from CSV bytes in whatever encoding they are. */
async function readTable(file: string): Promise<{ table: RawTable; encoding: string; format: 'csv' | 'xlsx' }> {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.xlsx' || ext === '.xlsm') return { table: await readXlsxTable(file), encoding: 'xlsx', format: 'xlsx' };
  if (ext === '.xls') throw new UserError(`${file}: old-style .xls is not supported; save it as .xlsx or CSV`);
  const bytes = await readInputFile(file, 'the question set');
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b) {
    throw new UserError(`${file}: looks like an XLSX workbook; give it the .xlsx extension`);
  }
  const decoded = decodeCsvBytes(bytes);
  return { table: readCsvTable(decoded.text, file), encoding: decoded.encoding, format: 'csv' };
}

/** The verdict on one data row: a usable row, or the kind of problem and its one-line message. */
type RowVerdict = { row: EvalRow; unknownType: boolean } | { issue: RowIssue; message: string };

/** Step 2: checks one row on its own (question, options, answer) and reads its optional columns. */
function readRow(
  cells: string[],
  line: number,
  cols: ColumnMap,
  opts: { answerOptional: boolean } = { answerOptional: false },
): RowVerdict {
  const cell = (name: string): string => {
    const i = cols.index[name];
    return i === undefined ? '' : (cells[i] ?? '').trim();
  };
  const question = cell('question');
  if (question === '') return { issue: 'empty_question', message: 'empty question' };
  let options = cols.optionCols.map((o) => ({ letter: o.letter, text: (cells[o.col] ?? '').trim() })).filter((o) => o.text !== '');
  if (options.length === 0 && cols.index.options !== undefined) options = splitOptionsCell(cell('options'));
  if (options.length < 2)
    return { issue: 'too_few_options', message: `only ${options.length} option${options.length === 1 ? '' : 's'} (needs at least 2)` };
  const rawAnswer = cell('answer');
  // A question-only set (`exam-copilot answer`) may leave the answer out: the row is answered, not scored.
  const answer = rawAnswer === '' && opts.answerOptional ? '' : normalizeAnswer(rawAnswer, options);
  if (answer === null) {
    return rawAnswer === ''
      ? { issue: 'no_answer', message: 'no answer' }
      : { issue: 'answer_not_an_option', message: `answer ${JSON.stringify(rawAnswer)} is not an option letter` };
  }
  if ([...answer].some((l) => !options.some((o) => o.letter === l))) {
    return {
      issue: 'answer_not_an_option',
      message: `answer ${JSON.stringify(rawAnswer)} is not among the options (${options.map((o) => o.letter).join('')})`,
    };
  }
  let id = cell('id');
  if (id === '' && cols.unnamedIndex !== null) id = (cells[cols.unnamedIndex] ?? '').trim();
  if (id === '') id = `L${line}`;
  const gold: GoldEvidence = {};
  for (const key of ['book', 'chapter', 'section', 'page', 'figure_ref'] as const) {
    const v = cell(key);
    if (v !== '') gold[key] = v;
  }
  const parsedType = parseType(cell('type'));
  return {
    row: {
      id,
      line,
      question,
      options,
      answer,
      type: parsedType === 'unknown' ? null : parsedType,
      gold: Object.keys(gold).length > 0 ? gold : null,
    },
    unknownType: parsedType === 'unknown',
  };
}

/** Step 3: every row through `readRow`, then the checks across rows (duplicate ids), counting each kind of problem. */
function validateRows(
  table: RawTable,
  cols: ColumnMap,
  file: string,
): { rows: EvalRow[]; warnings: Warning[]; skipped: number; issues: RowIssueCounts } {
  const warnings: Warning[] = [];
  const rows: EvalRow[] = [];
  const issues: RowIssueCounts = {};
  const count = (issue: RowIssue): void => {
    issues[issue] = (issues[issue] ?? 0) + 1;
  };
  const seenIds = new Map<string, number>();
  let skipped = 0;
  let unknownTypes = 0;
  for (const { line, cells } of table.rows) {
    const where = `${file}:${line}`;
    const verdict = readRow(cells, line, cols);
    if ('issue' in verdict) {
      warnings.push({ where, message: `${verdict.message}; row skipped` });
      count(verdict.issue);
      skipped++;
      continue;
    }
    const { row } = verdict;
    if (verdict.unknownType) unknownTypes++;
    const firstLine = seenIds.get(row.id);
    if (firstLine !== undefined) {
      warnings.push({ where, message: `duplicate id ${JSON.stringify(row.id)} (first on line ${firstLine}); using id ${row.id}@${line}` });
      count('duplicate_id');
      row.id = `${row.id}@${line}`;
    }
    seenIds.set(row.id, line);
    rows.push(row);
  }
  if (unknownTypes > 0) {
    warnings.push({
      where: file,
      message: `${unknownTypes} row(s) have a type other than text/table (文字/表格); their type is taken from the top evidence`,
    });
  }
  return { rows, warnings, skipped, issues };
}

/** One data row of a question set, as `exam-copilot answer` reads it: the raw cells, and the question or why it cannot be read. */
export interface QuestionSetRow {
  /** 1-based line (CSV) or sheet row (XLSX). */
  line: number;
  /** The row's cells in the input's column order. */
  cells: string[];
  /** The question, with `answer` empty when the file gives none; absent when the row cannot be read. */
  row?: EvalRow;
  /** Why the row cannot be answered (empty question, too few options, an answer that is not an option). */
  problem?: string;
}

/** A question set read for answering: every data row kept in order, answers optional. */
export interface QuestionSet {
  file: string;
  format: 'csv' | 'xlsx';
  encoding: string;
  header: string[];
  rows: QuestionSetRow[];
}

/**
 * Reads a question set that may have no answer column, or empty answers (the design's test set). Unlike
 * `loadDataset`, no row is dropped: a row that cannot be answered keeps its cells and says why, so the output
 * can list it at its place.
 */
export async function loadQuestionSet(file: string): Promise<QuestionSet> {
  const { table, encoding, format } = await readTable(file);
  const cols = mapColumns(table.header, file, { requireAnswer: false });
  const seenIds = new Set<string>();
  const rows = table.rows.map(({ line, cells }): QuestionSetRow => {
    const verdict = readRow(cells, line, cols, { answerOptional: true });
    if ('issue' in verdict) return { line, cells, problem: verdict.message };
    const row = verdict.row;
    if (seenIds.has(row.id)) row.id = `${row.id}@${line}`;
    seenIds.add(row.id);
    return { line, cells, row };
  });
  if (!rows.some((r) => r.row)) throw new UserError(`${file}: no question could be read; check the question and option columns`);
  return { file, format, encoding, header: table.header, rows };
}

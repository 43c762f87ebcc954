import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OptionVerdict } from '../answer/answer-types.js';
import { UsageError } from '../errors.js';
import { formatCitation } from '../text/citation.js';
import type { QuestionSet } from './load-dataset.js';
import { spreadsheetText } from './spreadsheet-cell.js';
import { importPackage } from '../import-package.js';
import type ExcelJSModule from 'exceljs';

/**
 * What the letter in `predicted` rests on: `evidence` the answerer's own answer; `guess` its best guess where it
 * abstained (the evidence did not single out an option), written so that no row is left blank; `unreadable` the row
 * could not be read, so it has no letter.
 */
export type AnswerBasis = 'evidence' | 'guess' | 'unreadable';

/** The columns `answer` adds after the input's own, in this order (or rewrites, in an answered copy: `answerColumnPlaces`). */
export const ANSWER_COLUMNS = ['predicted', 'basis', 'confidence', 'confidence_label', 'verdicts', 'evidence', 'fallback'] as const;

/** What one row got: the added columns' values plus what `--resume` and scoring need. One line of the run file. */
export interface AnsweredRow {
  line: number;
  id: string;
  /** The letter(s) written on the sheet: the answer, or the best guess when `basis` is `guess`; empty only when unreadable. */
  predicted: string;
  basis: AnswerBasis;
  confidence: number | null;
  confidence_label: string;
  /** One line per option: its verdict, the clause that settles it and where it is (`verdictsCell`). */
  verdicts: string;
  /** One `book | heading path | pages` line per evidence item. */
  evidence: string;
  /** The answer's fallback (`no_evidence`, `llm_failed`, …), or `unreadable: <why>` for a row that could not be read. */
  fallback: string;
  /** The gold letters when the file gives them (the row is then scored). */
  gold: string;
  /** Scored as `eval` scores (`isCorrect`): a guess or a fallback answer is never right. */
  correct: boolean;
  /** Identifies the question and answer settings, so `--resume` reuses only matching rows. */
  fingerprint: string;
}

/** Characters kept of an option's text, of its quote and of its citation in the verdicts cell. */
const VERDICT_TEXT_CHARS = 24;
const VERDICT_QUOTE_CHARS = 80;
const VERDICT_CITATION_CHARS = 60;
const VERDICT_MARK: Record<OptionVerdict['verdict'], string> = { supported: '✓', contradicted: '✗', not_found: '?' };

/** `text` cut to `max` characters (code points, so a CJK text is never split inside a character), `…` marking a cut. */
function clip(text: string, max: number): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * One cell a teacher reads: per option (or Ⅰ/Ⅱ statement) its verdict and why, one line each, e.g.
 * `A ✗ 基金管理人：「基金财产由基金托管人保管。」（上册 | 第一章 | p.1）` or `C ? 基金销售机构：未找到`. Each part is
 * bounded (option text 24, quote 80, citation 60 characters), so a line stays under about 200 characters.
 */
export function verdictsCell(verdicts: readonly OptionVerdict[] | undefined): string {
  if (!verdicts) return '';
  return verdicts
    .map((v) => {
      const head = `${v.label} ${VERDICT_MARK[v.verdict]} ${clip(v.text, VERDICT_TEXT_CHARS)}`;
      if (v.verdict === 'not_found' || !v.evidence) return `${head}：未找到`;
      const reason = v.reason ? ` ${clip(v.reason, VERDICT_TEXT_CHARS)}` : '';
      return `${head}：「${clip(v.evidence.quote, VERDICT_QUOTE_CHARS)}」（${clip(formatCitation(v.evidence), VERDICT_CITATION_CHARS)}）${reason}`;
    })
    .join('\n');
}

function addedValues(r: AnsweredRow): string[] {
  return [
    r.predicted,
    r.basis,
    r.confidence === null ? '' : r.confidence.toFixed(2),
    r.confidence_label,
    r.verdicts,
    r.evidence,
    r.fallback,
  ];
}
const CONFIDENCE_COLUMN = ANSWER_COLUMNS.indexOf('confidence');

/**
 * Where each of `ANSWER_COLUMNS` goes, as 0-based columns of the output: after the input's last column, or, when the
 * input is an answered copy already (its header holds every one of them), the columns that hold them, so answering a
 * copy again replaces its answers rather than adding a second set of columns beside them.
 */
export function answerColumnPlaces(header: readonly string[]): number[] {
  const held = ANSWER_COLUMNS.map((c) => header.indexOf(c));
  return held.every((col) => col >= 0) ? held : ANSWER_COLUMNS.map((_, i) => header.length + i);
}

/** A row of `width` cells: `cells` (cut or padded with empty cells), with `values` written at `places`. */
function placed<T>(cells: readonly T[], width: number, places: readonly number[], values: readonly T[], empty: T): T[] {
  const row = [...cells.slice(0, width)];
  while (row.length < width) row.push(empty);
  places.forEach((col, i) => (row[col] = values[i] as T));
  return row;
}
const WRAPPED_COLUMNS = new Set<number>([ANSWER_COLUMNS.indexOf('verdicts'), ANSWER_COLUMNS.indexOf('evidence')]);

/**
 * Writes the answered copy in the format its extension names. Only CSV text gets the formula guard
 * (`spreadsheetText`): a spreadsheet parses a CSV cell as it would typed text, so `=…` would run. An XLSX string cell
 * is never evaluated, so XLSX text is written as it is, and the user's own cells stay exactly as they were
 * (`-5%`, `+3%`, `@持平`).
 */
export async function writeAnswerSheet(set: QuestionSet, rows: readonly AnsweredRow[], output: string): Promise<void> {
  mkdirSync(path.dirname(output), { recursive: true });
  const ext = path.extname(output).toLowerCase();
  const byLine = new Map(set.rows.map((r) => [r.line, r]));
  if (ext === '.jsonl') {
    const lines = rows.map((r) => {
      const q = byLine.get(r.line)?.row;
      return JSON.stringify({
        line: r.line,
        id: r.id,
        question: q?.question ?? '',
        ...Object.fromEntries(ANSWER_COLUMNS.map((c, i) => [c, addedValues(r)[i]])),
      });
    });
    writeFileSync(output, lines.join('\n') + '\n');
    return;
  }
  const places = answerColumnPlaces(set.header);
  // The input's columns, and the added ones past them when it had none of its own.
  const width = Math.max(set.header.length, ...places.map((col) => col + 1));
  const header = placed(set.header, width, places, ANSWER_COLUMNS, '');
  if (ext === '.csv') {
    const quote = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const lines = [header.map((h) => quote(spreadsheetText(h))).join(',')];
    for (const r of rows) {
      const cells = placed(byLine.get(r.line)?.cells ?? [], width, places, addedValues(r), '');
      lines.push(cells.map((v) => quote(spreadsheetText(v))).join(','));
    }
    // A BOM, so Excel opens the UTF-8 file with the right characters.
    writeFileSync(output, `\ufeff${lines.join('\r\n')}\r\n`);
    return;
  }
  const { default: ExcelJS } = await importPackage<{ default: typeof ExcelJSModule }>('exceljs');
  const workbook = new ExcelJS.Workbook();
  const cellValue = (r: AnsweredRow, v: string, i: number): string | number =>
    i === CONFIDENCE_COLUMN && r.confidence !== null ? Number(v) : v;
  if (set.format === 'xlsx') {
    // A copy of the input: its sheet, column order and formatting stay; the new columns follow the last one.
    await workbook.xlsx.readFile(set.file);
    const sheet = workbook.worksheets[0];
    if (!sheet) throw new UsageError(`${set.file}: the workbook has no sheet`);
    let headerRow = 0;
    // The header is the first row with content, as the loader read it.
    sheet.eachRow({ includeEmpty: false }, (_row, n) => {
      if (headerRow === 0) headerRow = n;
    });
    const headerCells = sheet.getRow(headerRow);
    const style = headerCells.getCell(set.header.length).style;
    ANSWER_COLUMNS.forEach((c, i) => {
      const cell = headerCells.getCell((places[i] as number) + 1);
      cell.value = c;
      cell.style = { ...style };
    });
    for (const r of rows) {
      const row = sheet.getRow(r.line);
      addedValues(r).forEach((v, i) => {
        const cell = row.getCell((places[i] as number) + 1);
        cell.value = cellValue(r, v, i);
        if (WRAPPED_COLUMNS.has(i)) cell.alignment = { wrapText: true, vertical: 'top' };
      });
      row.commit();
    }
  } else {
    const sheet = workbook.addWorksheet('answers');
    sheet.addRow(header);
    for (const r of rows) {
      const values = addedValues(r).map((v, i) => cellValue(r, v, i));
      const row = sheet.addRow(placed<string | number>(byLine.get(r.line)?.cells ?? [], width, places, values, ''));
      for (const i of WRAPPED_COLUMNS) row.getCell((places[i] as number) + 1).alignment = { wrapText: true, vertical: 'top' };
    }
  }
  await workbook.xlsx.writeFile(output);
}

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

/** The columns `answer` adds after the input's own, in this order. */
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
  if (ext === '.csv') {
    const quote = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const width = set.header.length;
    const lines = [[...set.header, ...ANSWER_COLUMNS].map((h) => quote(spreadsheetText(h))).join(',')];
    for (const r of rows) {
      const cells = [...(byLine.get(r.line)?.cells ?? [])];
      while (cells.length < width) cells.push('');
      lines.push([...cells.slice(0, width), ...addedValues(r)].map((v) => quote(spreadsheetText(v))).join(','));
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
    const width = set.header.length;
    const header = sheet.getRow(headerRow);
    const style = header.getCell(width).style;
    ANSWER_COLUMNS.forEach((c, i) => {
      const cell = header.getCell(width + 1 + i);
      cell.value = c;
      cell.style = { ...style };
    });
    for (const r of rows) {
      const row = sheet.getRow(r.line);
      addedValues(r).forEach((v, i) => {
        const cell = row.getCell(width + 1 + i);
        cell.value = cellValue(r, v, i);
        if (WRAPPED_COLUMNS.has(i)) cell.alignment = { wrapText: true, vertical: 'top' };
      });
      row.commit();
    }
  } else {
    const sheet = workbook.addWorksheet('answers');
    sheet.addRow([...set.header, ...ANSWER_COLUMNS]);
    for (const r of rows) {
      const cells = [...(byLine.get(r.line)?.cells ?? [])].slice(0, set.header.length);
      while (cells.length < set.header.length) cells.push('');
      const row = sheet.addRow([...cells, ...addedValues(r).map((v, i) => cellValue(r, v, i))]);
      for (const i of WRAPPED_COLUMNS) row.getCell(set.header.length + 1 + i).alignment = { wrapText: true, vertical: 'top' };
    }
  }
  await workbook.xlsx.writeFile(output);
}

import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { answerJson } from '../answer/answer-json.js';
import type { AnswerMode, AnswerResult, ParsedQuestion } from '../answer/answer-types.js';
import type { AnswererKind } from '../answer/choose-answerer.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { formatCitation } from '../text/citation.js';
import { createLimiter } from '../limiter.js';
import { projectPaths } from '../paths.js';
import { loadQuestionSet, type QuestionSet } from './load-dataset.js';
import { spreadsheetText } from './spreadsheet-cell.js';

/** The columns `answer` adds after the input's own, in this order. */
export const ANSWER_COLUMNS = ['predicted', 'confidence', 'confidence_label', 'evidence', 'fallback'] as const;

/** What one row got: the added columns' values (a row that could not be read has only `fallback`). */
export interface AnsweredRow {
  line: number;
  id: string;
  predicted: string;
  confidence: number | null;
  confidence_label: string;
  /** One `book | heading path | pages` line per evidence item. */
  evidence: string;
  /** The answer's fallback (`no_evidence`, `llm_failed`, …), or `unreadable: <why>` for a row that could not be read. */
  fallback: string;
  /** The gold letters when the file gives them (the row is then scored). */
  gold: string;
  /** Identifies the question and answer settings, so `--resume` reuses only matching rows. */
  fingerprint: string;
}

export interface RunAnswerFileOptions {
  root: string;
  config: ExamCopilotConfig;
  /** The question set (CSV in UTF-8, BOM or GBK, or XLSX), answers absent or partly given. */
  file: string;
  /** Where the answered copy goes: `.xlsx`, `.csv` or `.jsonl` (default `<name>.answered.<ext>` beside the input). */
  output?: string;
  mode: AnswerMode;
  answerer?: AnswererKind;
  /** Answer through the agent (the LLM reading with tools). */
  agent?: boolean;
  topK: number;
  concurrency?: number;
  /** Reuse rows already answered by an interrupted run (the run file under `.exam-copilot/runs/`). */
  resume?: boolean;
  cache: boolean;
  onProgress?: (event: { done: number; total: number; elapsedMs: number }) => void;
  /** Called after each row is recorded (a test uses it to interrupt the run at a known point). */
  onRow?: (done: number) => void;
}

/** What `answer` returns for the reporter. */
export interface AnswerFileResult {
  file: string;
  output: string;
  rows: AnsweredRow[];
  answered: number;
  /** Reused from the run file by `--resume`. */
  resumed: number;
  unreadable: { line: number; problem: string }[];
  /** Rows whose gold answer the file gives, and how many of those were right. */
  scored: number;
  correct: number;
  unscored: number;
  runFile: string;
  wallMs: number;
}

function outputPath(file: string, output: string | undefined, format: QuestionSet['format']): string {
  if (output) {
    const ext = path.extname(output).toLowerCase();
    if (!['.xlsx', '.csv', '.jsonl'].includes(ext)) throw new UsageError(`-o ${output}: write .xlsx, .csv or .jsonl`);
    return path.resolve(output);
  }
  const ext = format === 'xlsx' ? '.xlsx' : '.csv';
  return path.resolve(path.dirname(file), `${path.basename(file, path.extname(file))}.answered${ext}`);
}

function fingerprint(q: { question: string; options: { letter: string; text: string }[] }, settings: string): string {
  return createHash('sha256')
    .update(JSON.stringify([q.question, q.options, settings]))
    .digest('hex')
    .slice(0, 16);
}

function readRunFile(file: string): Map<number, AnsweredRow> {
  const kept = new Map<number, AnsweredRow>();
  if (!existsSync(file)) return kept;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const r = JSON.parse(line) as AnsweredRow;
      if (typeof r.line === 'number') kept.set(r.line, r);
    } catch {
      // A line cut by a kill mid-write is simply asked again.
    }
  }
  return kept;
}

function toAnswered(line: number, id: string, gold: string, fp: string, r: AnswerResult): AnsweredRow {
  const json = answerJson({ result: r });
  return {
    line,
    id,
    predicted: r.answer,
    confidence: r.confidence,
    confidence_label: String(json.confidence_words),
    evidence: r.evidence.map((e) => formatCitation(e)).join('\n'),
    fallback: r.fallback ?? '',
    gold,
    fingerprint: fp,
  };
}

/**
 * `exam-copilot answer <file>`: answers every question of a question-only set (the design's test set) and writes
 * the input rows back in their order with `predicted`, `confidence`, `confidence_label`, `evidence` and `fallback`
 * added: into a copy of the XLSX (sheet, column order and formatting kept), a CSV that is safe to open in Excel, or
 * JSONL. Rows that cannot be read stay in place, marked. Each answer is appended to a run file as it comes, so
 * `--resume` continues an interrupted run. Rows that do give an answer are scored.
 */
export async function runAnswerFile(options: RunAnswerFileOptions): Promise<AnswerFileResult> {
  const started = Date.now();
  const set = await loadQuestionSet(options.file);
  const output = outputPath(options.file, options.output, set.format);
  const settings = JSON.stringify({ mode: options.agent ? 'agent' : options.mode, answerer: options.answerer ?? null, topK: options.topK });
  const runDir = path.join(projectPaths(options.root).state, 'runs');
  mkdirSync(runDir, { recursive: true });
  const runFile = path.join(runDir, `${path.basename(set.file)}.answer.jsonl`);
  const previous = options.resume ? readRunFile(runFile) : new Map<number, AnsweredRow>();
  if (!options.resume) writeFileSync(runFile, '');

  const answer = await openAnswering(options);
  const results = new Map<number, AnsweredRow>();
  let resumed = 0;
  const todo: { line: number; id: string; gold: string; fp: string; question: ParsedQuestion }[] = [];
  const { questionFromParts } = await import('../answer/parse-question.js');
  for (const r of set.rows) {
    if (!r.row) continue;
    const fp = fingerprint(r.row, settings);
    const kept = previous.get(r.line);
    if (kept && kept.fingerprint === fp) {
      results.set(r.line, kept);
      resumed++;
      continue;
    }
    const question = questionFromParts(r.row.question, Object.fromEntries(r.row.options.map((o) => [o.letter, o.text])));
    todo.push({ line: r.line, id: r.row.id, gold: r.row.answer, fp, question });
  }
  const fd = openSync(runFile, 'a');
  const limiter = createLimiter({ concurrency: Math.max(1, options.concurrency ?? 1) });
  let done = resumed;
  const total = set.rows.filter((r) => r.row).length;
  try {
    await Promise.all(
      todo.map((t) =>
        limiter.run(async () => {
          const row = toAnswered(t.line, t.id, t.gold, t.fp, await answer.ask(t.question));
          results.set(t.line, row);
          writeSync(fd, JSON.stringify(row) + '\n');
          fsyncSync(fd);
          done++;
          options.onRow?.(done);
          options.onProgress?.({ done, total, elapsedMs: Date.now() - started });
        }),
      ),
    );
  } finally {
    closeSync(fd);
    answer.close();
  }

  const rows: AnsweredRow[] = set.rows.map((r) => {
    const got = results.get(r.line);
    if (got) return got;
    return {
      line: r.line,
      id: r.row?.id ?? `L${r.line}`,
      predicted: '',
      confidence: null,
      confidence_label: '',
      evidence: '',
      fallback: `unreadable: ${r.problem ?? 'not answered'}`,
      gold: '',
      fingerprint: '',
    };
  });
  await writeOutput(set, rows, output);
  const scoredRows = rows.filter((r) => r.gold !== '');
  return {
    file: set.file,
    output,
    rows,
    answered: todo.length,
    resumed,
    unreadable: set.rows.filter((r) => !r.row).map((r) => ({ line: r.line, problem: r.problem ?? '' })),
    scored: scoredRows.length,
    correct: scoredRows.filter((r) => r.predicted === r.gold).length,
    unscored: rows.filter((r) => r.gold === '' && !r.fallback.startsWith('unreadable')).length,
    runFile,
    wallMs: Date.now() - started,
  };
}

/** The answering side: the shared answer factory, or the agent. */
async function openAnswering(options: RunAnswerFileOptions): Promise<{ ask(q: ParsedQuestion): Promise<AnswerResult>; close(): void }> {
  if (options.agent) {
    const { openAgentSession } = await import('../agent/run-agent-ask.js');
    const session = await openAgentSession({
      root: options.root,
      config: options.config,
      topK: options.topK,
      cache: options.cache,
      tools: options.config.llm?.tools ?? 'auto',
    });
    return { ask: async (q) => (await session.answer(q)).result, close: () => session.close() };
  }
  const { createAnswerer } = await import('../answer/create-answerer.js');
  const answerer = await createAnswerer({
    root: options.root,
    config: options.config,
    ...(options.answerer ? { answerer: options.answerer } : {}),
    retrieval: options.mode !== 'baseline',
    topK: options.topK,
    rerank: true,
    cache: options.cache,
    reopenOnRebuild: false,
  });
  return { ask: (q) => answerer.answer(q, options.mode), close: () => answerer.close() };
}

function addedValues(r: AnsweredRow): string[] {
  return [r.predicted, r.confidence === null ? '' : r.confidence.toFixed(2), r.confidence_label, r.evidence, r.fallback];
}

/** Writes the answered copy in the format its extension names. */
async function writeOutput(set: QuestionSet, rows: readonly AnsweredRow[], output: string): Promise<void> {
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
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.Workbook();
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
      const values = addedValues(r);
      const row = sheet.getRow(r.line);
      values.forEach((v, i) => {
        const cell = row.getCell(width + 1 + i);
        // A number stays a number; text that would run as a formula is neutralised.
        cell.value = i === 1 && r.confidence !== null ? Number(v) : spreadsheetText(v);
        if (i === 3) cell.alignment = { wrapText: true, vertical: 'top' };
      });
      row.commit();
    }
  } else {
    const sheet = workbook.addWorksheet('answers');
    sheet.addRow([...set.header, ...ANSWER_COLUMNS].map((h) => spreadsheetText(h)));
    for (const r of rows)
      sheet.addRow([...(byLine.get(r.line)?.cells ?? []).slice(0, set.header.length), ...addedValues(r)].map((v) => spreadsheetText(v)));
  }
  await workbook.xlsx.writeFile(output);
}

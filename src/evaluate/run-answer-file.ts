import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { answerJson } from '../answer/answer-json.js';
import type { AnswerMode, AnswerResult, ParsedQuestion } from '../answer/answer-types.js';
import { chooseAnswerer, type AnswererKind } from '../answer/choose-answerer.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { UsageError, UserError } from '../errors.js';
import { publishRunEvent } from '../run-events.js';
import { createLimiter, runUntilFailure } from '../limiter.js';
import { projectPaths } from '../paths.js';
import { formatCitation } from '../text/citation.js';
import { verdictsCell, writeAnswerSheet, type AnsweredRow } from './answer-sheet.js';
import { answerLetters, isCorrect } from './is-correct.js';
import { loadQuestionSet, type QuestionSet } from './load-dataset.js';
import { acquireRunLock, openRunWriter, readRunLines, whyNotWritable } from './run-files.js';

export { ANSWER_COLUMNS, type AnsweredRow } from './answer-sheet.js';

/** Fallbacks that mean the LLM (or the agent) failed on the row: `--resume` asks those rows again, as `eval --resume` does. */
const LLM_FAILURES: ReadonlySet<string> = new Set(['llm_failed', 'agent_failed']);

/** What to do when the root's `.exam-copilot/runs/` cannot be written. */
const ANSWER_RUN_HINT = 'answer keeps its progress there: run it in a root you can write (a copy of the folder will do)';

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
}

/** What `answer` returns for the reporter. */
export interface AnswerFileResult {
  file: string;
  output: string;
  rows: AnsweredRow[];
  answered: number;
  /** Reused from the run file by `--resume`. */
  resumed: number;
  /** Rows whose letter is the answerer's own answer, rows whose letter is its best guess (it abstained). */
  byEvidence: number;
  guessed: number;
  unreadable: { line: number; problem: string }[];
  /** Fallbacks among the rows with a question, by kind (`llm_failed` 63, `no_evidence` 2). */
  fallbacks: Record<string, number>;
  /** Rows where the LLM (or the agent) failed and the offline (or one-shot) answer was written instead. */
  llmFailed: number;
  /** The LLM was to answer, and failed on every row it was asked this run: the sheet holds offline answers only. */
  llmFailedAll: boolean;
  /** Notes for the user (the LLM circuit breaker's), said once. */
  warnings: string[];
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

/** A run-file line of the current shape (older lines, without `basis`, are asked again). */
function isAnsweredRow(value: Record<string, unknown>): boolean {
  return typeof value.line === 'number' && typeof value.fingerprint === 'string' && typeof value.basis === 'string';
}

/** The row written for one answer: its letter (or, where it abstained, its best guess, marked), verdicts and evidence. */
function toAnswered(q: { line: number; id: string; gold: string; fp: string; question: ParsedQuestion }, r: AnswerResult): AnsweredRow {
  const json = answerJson({ result: r });
  const answer = answerLetters(r.answer);
  const guess = answer === '' ? guessLetters(r, q.question) : '';
  const predicted = answer !== '' ? answer : guess;
  const guessed = answer === '' && guess !== '';
  return {
    line: q.line,
    id: q.id,
    predicted,
    basis: guessed ? 'guess' : 'evidence',
    confidence: guessed && !r.guess ? 1 / Math.max(2, q.question.options.length) : r.confidence,
    confidence_label: guessed ? 'guess' : String(json.confidence_words),
    verdicts: verdictsCell(r.verdicts),
    evidence: r.evidence.map((e) => formatCitation(e)).join('\n'),
    fallback: r.fallback ?? '',
    gold: q.gold,
    correct: isCorrect({ predicted, gold: q.gold, fallback: r.fallback, guessed }),
    fingerprint: q.fp,
  };
}

/**
 * The letter to write where the answerer gave none: its own best guess (`result.guess`), else the option its scores
 * favour, else the first option. The last two happen only where nothing bore on the question (off-topic, no passage,
 * a baseline LLM that failed): the letter is then worth chance, and its confidence says so.
 */
function guessLetters(r: AnswerResult, q: ParsedQuestion): string {
  const own = r.guess ? answerLetters(r.guess.answer) : '';
  if (own !== '') return own;
  const scored = Object.entries(r.optionScores ?? {}).sort((x, y) => y[1] - x[1])[0];
  if (scored && q.options.some((o) => o.letter === scored[0])) return scored[0];
  return q.options[0]?.letter ?? '';
}

/**
 * `exam-copilot answer <file>`: answers every question of a question-only set (the design's test set) and writes
 * the input rows back in their order with the answer columns added (`ANSWER_COLUMNS`): into a copy of the XLSX (sheet,
 * column order and formatting kept), a CSV that is safe to open in Excel, or JSONL. Every readable row gets a letter:
 * where the answerer abstained, its best guess, marked `guess` in `basis`. Rows that cannot be read stay in place,
 * marked. Each answer is appended to a run file (the same writer as `eval`'s) under a run lock, so `--resume` continues
 * an interrupted run and two runs on one file cannot wipe each other's progress. Rows that give an answer are scored
 * as `eval` scores them.
 */
export async function runAnswerFile(options: RunAnswerFileOptions): Promise<AnswerFileResult> {
  const started = Date.now();
  const set = await loadQuestionSet(options.file);
  const output = outputPath(options.file, options.output, set.format);
  // Checked before any question is asked: a sheet that cannot be written should not cost a run of LLM calls.
  try {
    mkdirSync(path.dirname(output), { recursive: true });
    accessSync(path.dirname(output), constants.W_OK);
  } catch (error) {
    throw new UserError(
      `cannot write the answered copy ${output} (${whyNotWritable(path.dirname(output), error)}); pass -o with a path you can write`,
    );
  }
  const answerer = options.agent ? 'llm' : chooseAnswerer(options.config, options.answerer);
  const settings = JSON.stringify({ mode: options.agent ? 'agent' : options.mode, answerer: options.answerer ?? null, topK: options.topK });
  const runDir = path.join(projectPaths(options.root).state, 'runs');
  const name = `${path.basename(set.file)}.answer`;
  const runFile = path.join(runDir, `${name}.jsonl`);
  const lock = acquireRunLock({
    dir: runDir,
    name,
    command: 'exam-copilot answer',
    hint: ANSWER_RUN_HINT,
    busy: (h) =>
      `another answer run is answering ${set.file}${h ? ` (pid ${h.pid}, started ${h.startedAt})` : ''}; wait for it to finish, then run answer --resume`,
  });
  try {
    return await answerRows(options, { set, output, answerer, settings, runFile, started });
  } finally {
    lock.release();
  }
}

/** The run itself, under the run lock: plan (resume), answer, write the sheet, count. */
async function answerRows(
  options: RunAnswerFileOptions,
  ctx: { set: QuestionSet; output: string; answerer: AnswererKind; settings: string; runFile: string; started: number },
): Promise<AnswerFileResult> {
  const { set, runFile, started } = ctx;
  const previous = new Map<number, AnsweredRow>();
  if (options.resume) for (const r of readRunLines<AnsweredRow>(runFile, isAnsweredRow).records) previous.set(r.line, r);
  const results = new Map<number, AnsweredRow>();
  const keep: AnsweredRow[] = [];
  const todo: { line: number; id: string; gold: string; fp: string; question: ParsedQuestion }[] = [];
  const { questionFromParts } = await import('../answer/parse-question.js');
  for (const r of set.rows) {
    if (!r.row) continue;
    const fp = fingerprint(r.row, ctx.settings);
    const kept = previous.get(r.line);
    // A row the LLM failed on is asked again, as eval --resume does: the endpoint may be back.
    if (kept && kept.fingerprint === fp && !LLM_FAILURES.has(kept.fallback)) {
      results.set(r.line, kept);
      keep.push(kept);
      continue;
    }
    const question = questionFromParts(r.row.question, Object.fromEntries(r.row.options.map((o) => [o.letter, o.text])));
    todo.push({ line: r.line, id: r.row.id, gold: r.row.answer, fp, question });
  }
  const resumed = keep.length;
  const answer = await openAnswering(options);
  let writer;
  try {
    writer = openRunWriter<AnsweredRow>(runFile, keep, { hint: ANSWER_RUN_HINT });
  } catch (error) {
    answer.close();
    throw error;
  }
  const limiter = createLimiter({ concurrency: Math.max(1, options.concurrency ?? 1) });
  let done = resumed;
  const total = set.rows.filter((r) => r.row).length;
  let notice: string | null = null;
  try {
    // The first failure stops the run: no row starts after it, and the rows in flight finish (and are recorded)
    // before the run file and the answerer close.
    await runUntilFailure(limiter, todo, async (t) => {
      const row = toAnswered(t, await answer.ask(t.question));
      results.set(t.line, row);
      writer.append(row);
      done++;
      publishRunEvent({ command: 'answer', rowsRecorded: done });
      options.onProgress?.({ done, total, elapsedMs: Date.now() - started });
    });
  } catch (error) {
    if (error instanceof UserError)
      throw new UserError(`${error.message} (finished rows are saved in ${runFile}; rerun with --resume to continue)`, error.exitCode);
    throw error;
  } finally {
    writer.close();
    notice = answer.llmNotice();
    answer.close();
  }

  const rows: AnsweredRow[] = set.rows.map((r) => {
    const got = results.get(r.line);
    if (got) return got;
    return {
      line: r.line,
      id: r.row?.id ?? `L${r.line}`,
      predicted: '',
      basis: 'unreadable',
      confidence: null,
      confidence_label: '',
      verdicts: '',
      evidence: '',
      fallback: `unreadable: ${r.problem ?? 'not answered'}`,
      gold: '',
      correct: false,
      fingerprint: '',
    };
  });
  try {
    await writeAnswerSheet(set, rows, ctx.output);
  } catch (error) {
    if (error instanceof UserError || typeof (error as { code?: unknown }).code !== 'string') throw error;
    throw new UserError(
      `cannot write the answered copy ${ctx.output} (${whyNotWritable(ctx.output, error)}); pass -o with a path you can write (the answers are kept in ${runFile}: rerun with --resume)`,
    );
  }
  const readable = rows.filter((r) => r.basis !== 'unreadable');
  const scoredRows = readable.filter((r) => r.gold !== '');
  const fallbacks: Record<string, number> = {};
  for (const r of readable) if (r.fallback !== '') fallbacks[r.fallback] = (fallbacks[r.fallback] ?? 0) + 1;
  const llmFailed = readable.filter((r) => LLM_FAILURES.has(r.fallback)).length;
  const askedNow = todo.map((t) => results.get(t.line)).filter((r): r is AnsweredRow => r !== undefined);
  return {
    file: set.file,
    output: ctx.output,
    rows,
    answered: todo.length,
    resumed,
    byEvidence: readable.filter((r) => r.basis === 'evidence').length,
    guessed: readable.filter((r) => r.basis === 'guess').length,
    unreadable: set.rows.filter((r) => !r.row).map((r) => ({ line: r.line, problem: r.problem ?? '' })),
    scored: scoredRows.length,
    correct: scoredRows.filter((r) => r.correct).length,
    unscored: readable.length - scoredRows.length,
    fallbacks,
    llmFailed,
    llmFailedAll: ctx.answerer === 'llm' && askedNow.length > 0 && askedNow.every((r) => LLM_FAILURES.has(r.fallback)),
    warnings: notice ? [notice] : [],
    runFile,
    wallMs: Date.now() - started,
  };
}

/** The answering side: the shared answer factory, or the agent. */
async function openAnswering(
  options: RunAnswerFileOptions,
): Promise<{ ask(q: ParsedQuestion): Promise<AnswerResult>; llmNotice(): string | null; close(): void }> {
  if (options.agent) {
    const { openAgentSession } = await import('../agent/run-agent-ask.js');
    const session = await openAgentSession({
      root: options.root,
      config: options.config,
      topK: options.topK,
      cache: options.cache,
      tools: options.config.llm?.tools ?? 'auto',
    });
    return { ask: async (q) => (await session.answer(q)).result, llmNotice: () => null, close: () => session.close() };
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
  return { ask: (q) => answerer.answer(q, options.mode), llmNotice: () => answerer.llmNotice(), close: () => answerer.close() };
}

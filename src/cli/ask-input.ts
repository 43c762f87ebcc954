import readline from 'node:readline';
import type { AskSession } from '../answer/run-ask.js';
import { UserError } from '../errors.js';
import type { AskEcho } from './report/ask.js';
import { reportAsk, reportAskFailure } from './report/ask.js';
import type { Ui } from './report/ui.js';

/**
 * Questions typed into the REPL or piped into `ask`. Both group lines the same way: a question ends when its
 * last option arrives, or at a blank line. A line holding a JSON object is one question by itself (JSONL), and
 * every input question gets exactly one output, in order: the answer, or an error naming the input.
 */

/** One question read from the input, numbered from 1 in input order. */
export interface InputQuestion {
  /** 1-based position among the questions of the input. */
  n: number;
  /** Line where the question starts. */
  line: number;
  /** The JSONL `id`, echoed in the output. */
  id?: string;
  question: string;
  options?: Record<string, string>;
}

/** An input that could not be read as a question; it still gets its output line. */
export interface InputFailure {
  n: number;
  line: number;
  id?: string;
  question: string;
  error: string;
}

export type InputItem = { question: InputQuestion } | { failure: InputFailure };

/** One JSONL object `{"id"?, "question", "options"?}`, or a plain line of question text. */
export function parseInputLine(line: string, lineNo: number): { question: string; options?: Record<string, string>; id?: string } | null {
  const text = line.trim();
  if (text === '') return null;
  if (!text.startsWith('{')) return { question: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(
      `stdin:${lineNo}: not valid JSON; give one question per line, or JSONL objects {"question": "...", "options": {"A": "..."}}`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UserError(`stdin:${lineNo}: expected a JSON object {"question": "..."}`);
  const o = value as { question?: unknown; options?: unknown; id?: unknown };
  const id = typeof o.id === 'string' || typeof o.id === 'number' ? String(o.id) : undefined;
  const withId = <T extends object>(v: T): T & { id?: string } => (id === undefined ? v : { ...v, id });
  if (typeof o.question !== 'string') throw new UserError(`stdin:${lineNo}: the JSON object needs a "question" string`);
  if (o.options === undefined) return withId({ question: o.question });
  if (typeof o.options !== 'object' || o.options === null)
    throw new UserError(`stdin:${lineNo}: "options" must be an object like {"A": "..."}`);
  const options = Object.fromEntries(
    Object.entries(o.options as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return withId({ question: o.question, options });
}

/** The `id` of a JSONL line that failed to parse, when one can still be read, so its error line names it. */
function idOf(line: string): string | undefined {
  return /"id"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?\d+))/
    .exec(line)
    ?.slice(1)
    .find((v) => v !== undefined);
}

const OPTION_START = /^\s*[(（]?[A-HＡ-Ｈ]\s*[.．、:：)）]/;

/** Whether a line starts with an option marker (`A.`, `（B）`, `Ｃ、`). */
export function isOptionLine(line: string): boolean {
  return OPTION_START.test(line);
}

/** Whether the text so far is a complete question: option D arrived, or a true/false pair on one line. */
export function completesQuestion(text: string): boolean {
  const hasD = /(?:^|[\s(（])[DＤ]\s*[.．、:：)）]/.test(text);
  const judge = /[AＡ]\s*[.．、:：)）]\s*(正确|对)[\s\S]*[BＢ]\s*[.．、:：)）]\s*(错误|错)/.test(text);
  return hasD || judge;
}

/**
 * Groups lines into questions. `eager` (the REPL) answers as soon as option D arrives; otherwise (a pipe) a
 * complete question waits for the next line, so options E–H on the following lines still belong to it. Either
 * way a blank line ends a question, and so does a line that is not an option once options have started.
 */
export class QuestionGrouper {
  private lines: string[] = [];
  private startLine = 0;

  constructor(private readonly eager: boolean) {}

  /** Feeds one line; returns the questions it completed (text and first line number). */
  push(line: string, lineNo: number): Array<{ text: string; line: number }> {
    const done: Array<{ text: string; line: number }> = [];
    const trimmed = line.trim();
    if (trimmed === '') {
      const q = this.flush();
      if (q) done.push(q);
      return done;
    }
    const buffered = this.lines.join('\n');
    // A JSON object, or a non-option line after a complete question, starts a new question.
    if (this.lines.length > 0 && (trimmed.startsWith('{') || (!isOptionLine(trimmed) && completesQuestion(buffered)))) {
      const q = this.flush();
      if (q) done.push(q);
    }
    if (this.lines.length === 0) this.startLine = lineNo;
    this.lines.push(line);
    if (trimmed.startsWith('{') || (this.eager && completesQuestion(this.lines.join('\n')))) {
      const q = this.flush();
      if (q) done.push(q);
    }
    return done;
  }

  /** Whether part of a question is buffered. */
  pending(): boolean {
    return this.lines.length > 0;
  }

  /** The question still buffered at the end of the input. */
  flush(): { text: string; line: number } | null {
    const text = this.lines.join('\n').trim();
    this.lines = [];
    return text === '' ? null : { text, line: this.startLine };
  }
}

/** Reads every question of a stream, grouped as above; `one` reads the whole input as one question. */
export async function* readQuestions(input: NodeJS.ReadableStream, options: { one?: boolean } = {}): AsyncGenerator<InputItem> {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  if (options.one) {
    const all: string[] = [];
    for await (const line of rl) all.push(line);
    const text = all.join('\n').trim();
    if (text !== '') yield { question: { n: 1, line: 1, question: text } };
    return;
  }
  const grouper = new QuestionGrouper(false);
  let n = 0;
  let lineNo = 0;
  const toItem = (block: { text: string; line: number }): InputItem => {
    n++;
    try {
      if (!block.text.startsWith('{')) return { question: { n, line: block.line, question: block.text } };
      const parsed = parseInputLine(block.text, block.line);
      if (!parsed) throw new UserError(`stdin:${block.line}: empty question`);
      return { question: { n, line: block.line, ...parsed } };
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      const id = idOf(block.text);
      return { failure: { n, line: block.line, ...(id !== undefined ? { id } : {}), question: block.text, error: error.message } };
    }
  };
  for await (const line of rl) {
    lineNo++;
    for (const block of grouper.push(line, lineNo)) yield toItem(block);
  }
  const last = grouper.flush();
  if (last) yield toItem(last);
}

function echoOf(item: InputQuestion | InputFailure): AskEcho {
  return { ...(item.id !== undefined ? { id: item.id } : { n: item.n }), question: item.question };
}

/**
 * Answers questions piped on stdin, one output per input question, in order (JSONL with `--json`). A question
 * that fails still gets its line, `{"id"|"n", "question", "error"}`, and the rest are answered.
 */
export async function askFromPipe(
  ui: Ui,
  session: AskSession,
  input: NodeJS.ReadableStream,
  options: { showContext: boolean; showVerdicts?: boolean; one?: boolean },
): Promise<{ answered: number; failed: number }> {
  let answered = 0;
  let failed = 0;
  for await (const item of readQuestions(input, { one: options.one === true })) {
    if ('failure' in item) {
      failed++;
      reportAskFailure(ui, echoOf(item.failure), item.failure.error);
      continue;
    }
    const q = item.question;
    try {
      const out = await session.ask(q.question, q.options);
      reportAsk(ui, out, {
        showContext: options.showContext,
        showVerdicts: options.showVerdicts !== false,
        jsonLines: true,
        echo: echoOf(q),
      });
      if (!ui.json) ui.out('');
      answered++;
    } catch (error) {
      // Every input gets its output line; an unexpected error is reported on that line too, not as a lost answer.
      failed++;
      const message = error instanceof Error ? error.message : String(error);
      reportAskFailure(ui, echoOf(q), message.startsWith('stdin:') ? message : `stdin:${q.line}: ${message}`);
    }
  }
  return { answered, failed };
}

/**
 * The interactive loop: prompt 请输入题目（输入 exit 退出）, keep history, accept multi-line pastes (grouped by
 * `QuestionGrouper`, answering as soon as option D arrives).
 */
export async function askRepl(
  ui: Ui,
  session: AskSession,
  streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream },
  shown: { showContext: boolean; showVerdicts?: boolean },
): Promise<void> {
  const rl = readline.createInterface({
    input: streams.input,
    output: streams.output,
    terminal: true,
    historySize: 200,
    prompt: '请输入题目（输入 exit 退出）> ',
  });
  const grouper = new QuestionGrouper(true);
  const answer = async (text: string): Promise<void> => {
    try {
      reportAsk(ui, await session.ask(text), shown);
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      ui.warn(error.message);
    }
  };
  let lineNo = 0;
  rl.prompt();
  for await (const line of rl) {
    lineNo++;
    if (!grouper.pending() && /^(exit|quit|退出|q)$/i.test(line.trim())) break;
    const done = grouper.push(line, lineNo);
    for (const q of done) await answer(q.text);
    if (done.length > 0 || line.trim() === '') rl.prompt();
  }
  const last = grouper.flush();
  if (last) await answer(last.text);
  rl.close();
}

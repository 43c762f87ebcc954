import readline from 'node:readline';
import type { AnswerResult } from '../../answer/answer-types.js';
import { citation } from '../../answer/evidence.js';
import { formatCitation } from '../../ingest/citation.js';
import type { AskResult, AskSession } from '../../answer/run-ask.js';
import { UserError } from '../../errors.js';
import type { Ui } from './ui.js';

/** The `--json` shape of one answer (stable: eval and scripts read it). */
export function askJson(out: AskResult): Record<string, unknown> {
  const r = out.result;
  return {
    answer: r.answer,
    confidence: r.confidence,
    evidence: r.evidence.map((e) => ({
      chunk_id: e.chunk_id, book: e.book, headings: e.headings ?? [], chapter: e.chapter, section: e.section, articles: e.articles ?? [],
      figure_ref: e.figure_ref, page_start: e.page_start, page_end: e.page_end, citation: formatCitation(e), quote: e.quote,
    })),
    mode: r.mode,
    answerer: r.answerer,
    fallback: r.fallback,
    ...(r.message ? { message: r.message } : {}),
    kind: r.question.kind,
    ...(r.optionScores ? { option_scores: r.optionScores } : {}),
    ...(r.usage ? { usage: r.usage } : {}),
    ...(r.warnings && r.warnings.length > 0 ? { warnings: r.warnings } : {}),
  };
}

/** The human answer in the seed format: Answer / Confidence / Evidence (citation line, quote line). */
export function formatAnswer(out: AskResult, options: { showContext: boolean; color?: Ui['color'] }): string {
  const r: AnswerResult = out.result;
  const c = options.color;
  const bold = (t: string): string => (c ? c.bold(t) : t);
  const dim = (t: string): string => (c ? c.dim(t) : t);
  const lines: string[] = [];
  const answer = r.answer !== '' ? r.answer : r.question.kind === 'open' ? '（问答题，无选项：见下方依据）' : `（无）${r.message ?? ''}`;
  lines.push(`${bold('Answer:')} ${answer}`);
  lines.push(`${bold('Confidence:')} ${r.confidence.toFixed(2)}`);
  lines.push(`${bold('Evidence:')}${r.evidence.length === 0 ? ' （无）' : ''}`);
  for (const e of r.evidence) {
    lines.push(`- ${citation(e)}`);
    lines.push(`  "${e.quote}"`);
  }
  const how = `mode: ${r.mode} | answerer: ${r.answerer === 'llm' ? `llm${out.endpoint ? ` (${out.endpoint})` : ''}` : 'offline (retrieval-based IR solver)'}${r.fallback ? ` | fallback: ${r.fallback}` : ''}`;
  lines.push(dim(how));
  if (r.message && (r.fallback || r.answer !== '')) lines.push(dim(`note: ${r.message}`));
  if (options.showContext && r.context.length > 0) {
    lines.push(bold('Context (reranked):'));
    r.context.forEach((h, i) => {
      const cite = formatCitation(h.chunk);
      lines.push(`[${i + 1}] ${cite}  (score ${h.score.toFixed(3)}, ${h.chunk.chunk_id})`);
      lines.push(`    ${h.chunk.text.replace(/\s+/g, ' ').slice(0, 200)}`);
    });
  }
  return lines.join('\n');
}

/** Prints one answer (human or `--json`) and its warnings. */
export function reportAsk(ui: Ui, out: AskResult, options: { showContext: boolean; jsonLines?: boolean }): void {
  for (const w of out.warnings) ui.warn(`${w.where}: ${w.message}`);
  for (const w of out.result.warnings ?? []) ui.warn(w);
  if (ui.json) {
    if (options.jsonLines) ui.printJsonLine(askJson(out));
    else ui.printJson(askJson(out));
    return;
  }
  ui.out(formatAnswer(out, { showContext: options.showContext, color: ui.color }));
}

/** One input question from a pipe: a plain line, or a JSONL object `{"question": "...", "options": {...}}`. */
export function parseInputLine(line: string, lineNo: number): { question: string; options?: Record<string, string> } | null {
  const text = line.trim();
  if (text === '') return null;
  if (!text.startsWith('{')) return { question: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(`stdin:${lineNo}: not valid JSON; give one question per line, or JSONL objects {"question": "...", "options": {"A": "..."}}`);
  }
  const o = value as { question?: unknown; options?: unknown };
  if (typeof o.question !== 'string') throw new UserError(`stdin:${lineNo}: the JSON object needs a "question" string`);
  if (o.options === undefined) return { question: o.question };
  if (typeof o.options !== 'object' || o.options === null) throw new UserError(`stdin:${lineNo}: "options" must be an object like {"A": "..."}`);
  const options = Object.fromEntries(Object.entries(o.options as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return { question: o.question, options };
}

/**
 * Answers questions piped on stdin, one per line (or JSONL), printing one answer per question (JSONL with
 * `--json`). A bad line is reported with its line number and the rest still answered.
 */
export async function askFromPipe(ui: Ui, session: AskSession, input: NodeJS.ReadableStream, showContext: boolean): Promise<{ answered: number; failed: number }> {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let answered = 0;
  let failed = 0;
  for await (const line of rl) {
    lineNo++;
    try {
      const item = parseInputLine(line, lineNo);
      if (!item) continue;
      const out = await session.ask(item.question, item.options);
      reportAsk(ui, out, { showContext, jsonLines: true });
      if (!ui.json) ui.out('');
      answered++;
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      failed++;
      ui.warn(error.message.startsWith('stdin:') ? error.message : `stdin:${lineNo}: ${error.message}`);
    }
  }
  return { answered, failed };
}

/**
 * The interactive loop: prompt 请输入题目（输入 exit 退出）, keep history, accept multi-line pastes (lines are
 * gathered until an empty line, or until options A–D are all present).
 */
export async function askRepl(ui: Ui, session: AskSession, streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream }, showContext: boolean): Promise<void> {
  const rl = readline.createInterface({ input: streams.input, output: streams.output, terminal: true, historySize: 200, prompt: '请输入题目（输入 exit 退出）> ' });
  const buffer: string[] = [];
  const flush = async (): Promise<void> => {
    const text = buffer.join('\n').trim();
    buffer.length = 0;
    if (text === '') return;
    try {
      reportAsk(ui, await session.ask(text), { showContext });
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      ui.warn(error.message);
    }
  };
  rl.prompt();
  for await (const line of rl) {
    const trimmed = line.trim();
    if (buffer.length === 0 && /^(exit|quit|退出|q)$/i.test(trimmed)) break;
    if (trimmed === '') {
      await flush();
      rl.prompt();
      continue;
    }
    buffer.push(line);
    const joined = buffer.join('\n');
    // A complete question: a single line with inline options, or a pasted block whose D option arrived.
    const hasD = /(?:^|[\s(（])[DＤ]\s*[.．、:：)）]/.test(joined);
    // A true/false question typed on one line has only A and B.
    const judge = /[AＡ]\s*[.．、:：)）]\s*(正确|对)[\s\S]*[BＢ]\s*[.．、:：)）]\s*(错误|错)/.test(joined);
    if (hasD || judge) {
      await flush();
      rl.prompt();
    }
  }
  await flush();
  rl.close();
}

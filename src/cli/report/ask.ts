import type { AnswerResult } from '../../answer/answer-types.js';
import { citation } from '../../answer/evidence.js';
import type { AskResult } from '../../answer/run-ask.js';
import type { Ui } from './ui.js';

/** The `--json` shape of one answer (stable: eval and scripts read it). */
export function askJson(out: AskResult): Record<string, unknown> {
  const r = out.result;
  return {
    answer: r.answer,
    confidence: r.confidence,
    evidence: r.evidence.map((e) => ({ chunk_id: e.chunk_id, book: e.book, chapter: e.chapter, section: e.section, figure_ref: e.figure_ref, page_start: e.page_start, page_end: e.page_end, quote: e.quote })),
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
      const cite = [h.chunk.book, h.chunk.chapter, h.chunk.section, h.chunk.figure_ref, h.chunk.page_start ? `p.${h.chunk.page_start}` : ''].filter(Boolean).join(' | ');
      lines.push(`[${i + 1}] ${cite}  (score ${h.score.toFixed(3)}, ${h.chunk.chunk_id})`);
      lines.push(`    ${h.chunk.text.replace(/\s+/g, ' ').slice(0, 200)}`);
    });
  }
  return lines.join('\n');
}

/** What an answer to a piped question echoes of its input: the JSONL `id`, or the question's number, and its text. */
export interface AskEcho {
  id?: string;
  n?: number;
  question: string;
}

function echoFields(echo: AskEcho): Record<string, unknown> {
  return { ...(echo.id !== undefined ? { id: echo.id } : { n: echo.n }), question: echo.question };
}

/** Prints one answer (human or `--json`) and its warnings. */
export function reportAsk(ui: Ui, out: AskResult, options: { showContext: boolean; jsonLines?: boolean; echo?: AskEcho }): void {
  for (const w of out.warnings) ui.warn(`${w.where}: ${w.message}`);
  for (const w of out.result.warnings ?? []) ui.warn(w);
  if (ui.json) {
    const json = options.echo ? { ...echoFields(options.echo), ...askJson(out) } : askJson(out);
    if (options.jsonLines) ui.printJsonLine(json);
    else ui.printJson(json);
    return;
  }
  ui.out(formatAnswer(out, { showContext: options.showContext, color: ui.color }));
}

/** The output of a piped question that failed: its JSONL line `{"id"|"n", "question", "error"}`, or a warning. */
export function reportAskFailure(ui: Ui, echo: AskEcho, error: string): void {
  ui.warn(error);
  if (ui.json) ui.printJsonLine({ ...echoFields(echo), error });
}

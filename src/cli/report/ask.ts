import type { AgentReport } from '../../agent/run-agent-ask.js';
import { answerJson, confidenceWords } from '../../answer/answer-json.js';
import type { AnswerResult } from '../../answer/answer-types.js';
import { citation, markedQuote } from '../../answer/evidence.js';
import type { AskResult } from '../../answer/run-ask.js';
import { formatCitation } from '../../text/citation.js';
import { printable } from './printable.js';
import type { Ui } from './ui.js';

/** The `--json` shape of one answer (stable: eval and scripts read it; the agent adds its steps). */
export function askJson(out: AskResult & { agent?: AgentReport }): Record<string, unknown> {
  return answerJson(out);
}

/** The human answer in the seed format: Answer / Confidence / Evidence (citation line, quote line). */
export function formatAnswer(
  out: AskResult & { agent?: AgentReport },
  options: { showContext: boolean; showSteps?: boolean; color?: Ui['color'] },
): string {
  const r: AnswerResult = out.result;
  const c = options.color;
  const bold = (t: string): string => (c ? c.bold(t) : t);
  const dim = (t: string): string => (c ? c.dim(t) : t);
  const lines: string[] = [];
  const answer = r.answer !== '' ? r.answer : r.question.kind === 'open' ? '（问答题，无选项：见下方依据）' : `（无）${r.message ?? ''}`;
  const guessed = r.guess && r.answer !== '' ? '（猜测）' : '';
  lines.push(`${bold('Answer:')} ${answer}${guessed}`);
  if (r.guess && r.answer === '') lines.push(`${bold('Best guess:')} ${r.guess.answer}（猜测，非教材依据）`);
  if (r.question.negated) lines.push(dim('读作：选错误的一项'));
  lines.push(`${bold('Confidence:')} ${r.confidence.toFixed(2)} (${confidenceWords(r)})`);
  lines.push(`${bold(r.guess ? 'Closest passages:' : 'Evidence:')}${r.evidence.length === 0 ? ' （无）' : ''}`);
  for (const e of r.evidence) {
    lines.push(`- ${printable(citation(e))}`);
    lines.push(`  "${markedQuote(e)}"`);
  }
  const how = `mode: ${r.mode} | answerer: ${r.answerer === 'llm' ? `llm${out.endpoint ? ` (${out.endpoint})` : ''}` : 'offline (retrieval-based IR solver)'}${r.fallback ? ` | fallback: ${r.fallback}` : ''}`;
  lines.push(dim(how));
  // A message already shown as the answer is not repeated.
  if (r.message && (r.fallback || r.answer !== '') && !answer.includes(r.message)) lines.push(dim(`note: ${r.message}`));
  if (options.showSteps && out.agent) {
    lines.push(dim(`agent (${out.agent.protocol} tool calls, ${out.agent.rounds} round${out.agent.rounds === 1 ? '' : 's'}):`));
    for (const s of out.agent.trace) {
      const args = typeof s.arguments === 'string' ? s.arguments : JSON.stringify(s.arguments);
      const what = s.error
        ? `refused: ${s.error}`
        : `${s.chunk_ids.length} passage${s.chunk_ids.length === 1 ? '' : 's'}${s.repeated ? ' (repeat, from memory)' : ''}`;
      lines.push(dim(`  ${s.round}. ${s.tool} ${args} → ${what} (${s.ms} ms)`));
    }
  }
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
export function reportAsk(
  ui: Ui,
  out: AskResult & { agent?: AgentReport },
  options: { showContext: boolean; showSteps?: boolean; jsonLines?: boolean; echo?: AskEcho },
): void {
  for (const w of out.warnings) ui.warn(`${w.where}: ${w.message}`);
  for (const w of out.result.warnings ?? []) ui.warn(w);
  if (ui.json) {
    const json = options.echo ? { ...echoFields(options.echo), ...askJson(out) } : askJson(out);
    if (options.jsonLines) ui.printJsonLine(json);
    else ui.printJson(json);
    return;
  }
  ui.out(formatAnswer(out, { showContext: options.showContext, showSteps: options.showSteps === true, color: ui.color }));
}

/** The output of a piped question that failed: its JSONL line `{"id"|"n", "question", "error"}`, or a warning. */
export function reportAskFailure(ui: Ui, echo: AskEcho, error: string): void {
  ui.warn(error);
  if (ui.json) ui.printJsonLine({ ...echoFields(echo), error });
}

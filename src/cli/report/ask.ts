import type { AgentReport } from '../../agent/run-agent-ask.js';
import { answerJson, confidenceSource, confidenceWords } from '../../answer/answer-json.js';
import type { AnswerResult, EvidenceItem, OptionVerdict } from '../../answer/answer-types.js';
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
  options: { showContext: boolean; showSteps?: boolean; showVerdicts?: boolean; color?: Ui['color'] },
): string {
  const r: AnswerResult = out.result;
  const c = options.color;
  const bold = (t: string): string => (c ? c.bold(t) : t);
  const dim = (t: string): string => (c ? c.dim(t) : t);
  const lines: string[] = [];
  const answer =
    r.answer !== ''
      ? lettersWithText(r, r.answer)
      : r.question.kind === 'open'
        ? '（问答题，无选项：见下方依据）'
        : `（无）${r.message ?? ''}`;
  const guessed = r.guess && r.answer !== '' ? '（猜测）' : '';
  lines.push(`${bold('Answer:')} ${answer}${guessed}`);
  if (r.guess && r.answer === '') lines.push(`${bold('Best guess:')} ${lettersWithText(r, r.guess.answer)}（猜测，非教材依据）`);
  if (r.question.negated) lines.push(dim('读作：选错误的一项'));
  // An LLM's number is its own report, not calibrated like the offline answerer's.
  const source = confidenceSource(r) === 'stated' ? ', stated by the LLM, not calibrated' : '';
  lines.push(`${bold('Confidence:')} ${r.confidence.toFixed(2)} (${confidenceWords(r)}${source})`);
  lines.push(`${bold(r.guess ? 'Closest passages:' : 'Evidence:')}${r.evidence.length === 0 ? ' （无）' : ''}`);
  // A clause is printed once: an option whose clause, marks and citation were already shown points back to them
  // (one sentence often settles every option of a number question).
  const shown: ShownClauses = new Map();
  for (const e of r.evidence) {
    lines.push(`- ${printable(citation(e))}`);
    lines.push(`  "${markedQuote(e)}"`);
    if (e.suspicious) lines.push(`  ⚠ reads like an instruction, not textbook text: ${e.suspicious}`);
    const printed = shown.get(clauseKey(e)) ?? [];
    printed.push({ where: '同上方证据 · same clause as the evidence above', marked: markedQuote(e) });
    shown.set(clauseKey(e), printed);
  }
  if (options.showVerdicts !== false && r.verdicts && r.verdicts.length > 0) {
    const statements = r.verdicts.filter((v) => v.target === 'statement');
    if (statements.length > 0) lines.push(bold('Statements:'));
    for (const v of statements) lines.push(...verdictLines(v, dim, shown));
    lines.push(bold('Options:'));
    for (const v of r.verdicts.filter((x) => x.target === 'option')) lines.push(...verdictLines(v, dim, shown));
  }
  if (r.verdictConflict) lines.push(dim('⚠ 答案与其证据不一致，置信度已降低（the letter disagrees with its own evidence）'));
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

const MARK: Record<OptionVerdict['verdict'], string> = { supported: '✓', contradicted: '✗', not_found: '?' };
const WORD: Record<OptionVerdict['verdict'], string> = { supported: '教材支持', contradicted: '与教材不符', not_found: '未找到依据' };

/** The letters with their options' text: `B 基金管理人`, `AC 甲；丙`. */
function lettersWithText(r: AnswerResult, letters: string): string {
  const texts = [...letters].map((l) => r.question.options.find((o) => o.letter === l)?.text).filter((t): t is string => !!t);
  return texts.length === 0 ? letters : `${letters} ${texts.join('；')}`;
}

/** Where a clause is: its words and citation (marks aside). */
function clauseKey(e: EvidenceItem): string {
  return `${e.quote}\n${citation(e)}`;
}

/** Clauses already printed, by {@link clauseKey}: each time, where (for the pointer) and with which words marked. */
type ShownClauses = Map<string, { where: string; marked: string }[]>;

/**
 * One option's verdict: `✓ A 基金托管人 — 教材支持`, then its clause and citation, indented; or, for a clause already
 * shown (in `shown`, which this adds to) with no other words marked, a pointer to where.
 */
function verdictLines(v: OptionVerdict, dim: (t: string) => string, shown: ShownClauses): string[] {
  const head = `  ${MARK[v.verdict]} ${v.label} ${v.text} — ${v.reason ?? WORD[v.verdict]}`;
  if (!v.evidence) return [head];
  const key = clauseKey(v.evidence);
  const marked = markedQuote(v.evidence);
  // The same clause printed before with the same words marked (or this one marks none): a pointer to that print. The
  // same clause with other words marked (what the book states in this option's place) is printed again, once: options
  // after it that mark the same words point to it.
  const printed = shown.get(key) ?? [];
  const before = printed.find((p) => p.marked === marked) ?? (marked === v.evidence.quote ? printed[0] : undefined);
  if (before) return [head, dim(`      （${before.where}）`)];
  shown.set(key, [...printed, { where: `同 ${v.label} · same clause as ${v.label}`, marked }]);
  const lines = [head, dim(`      "${marked}"`), dim(`      ${printable(citation(v.evidence))}`)];
  if (v.evidence.suspicious) lines.push(`      ⚠ reads like an instruction, not textbook text: ${v.evidence.suspicious}`);
  return lines;
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
  options: { showContext: boolean; showSteps?: boolean; showVerdicts?: boolean; jsonLines?: boolean; echo?: AskEcho },
): void {
  for (const w of out.warnings) ui.warn(`${w.where}: ${w.message}`);
  for (const w of out.result.warnings ?? []) ui.warn(w);
  if (ui.json) {
    const json = options.echo ? { ...echoFields(options.echo), ...askJson(out) } : askJson(out);
    if (options.jsonLines) ui.printJsonLine(json);
    else ui.printJson(json);
    return;
  }
  ui.out(
    formatAnswer(out, {
      showContext: options.showContext,
      showSteps: options.showSteps === true,
      showVerdicts: options.showVerdicts !== false,
      color: ui.color,
    }),
  );
}

/** The output of a piped question that failed: its JSONL line `{"id"|"n", "question", "error"}`, or a warning. */
export function reportAskFailure(ui: Ui, echo: AskEcho, error: string): void {
  ui.warn(error);
  if (ui.json) ui.printJsonLine({ ...echoFields(echo), error });
}

import type { AnswerFileResult } from '../../evaluate/run-answer-file.js';
import { printable } from './printable.js';
import type { Ui } from './ui.js';

/** A spinner with questions done, questions per second and the time left; nothing off a TTY. */
export function answerProgress(ui: Ui): { update: (e: { done: number; total: number; elapsedMs: number }) => void; stop: () => void } {
  const spinner = ui.spinner('answer: opening the index');
  return {
    update: (e) => {
      const rate = e.done / Math.max(e.elapsedMs / 1000, 1e-3);
      const eta = rate > 0 ? Math.round((e.total - e.done) / rate) : 0;
      spinner.update(`answer: ${e.done}/${e.total} questions · ${rate.toFixed(1)}/s · ETA ${eta}s`);
    },
    stop: () => spinner.stop(),
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The summary: where the answers went; how many letters rest on evidence, how many are guesses and how many rows could
 * not be read; the rows where the LLM failed and the offline answer was written instead; accuracy on the rows that
 * give an answer.
 */
export function reportAnswerFile(ui: Ui, r: AnswerFileResult): void {
  for (const u of r.unreadable) ui.warn(`${printable(r.file)}:${u.line}: ${u.problem}; kept in the output, marked unreadable`);
  for (const w of r.warnings) ui.warn(`llm: ${w}`);
  if (r.llmFailed > 0) {
    const kinds = Object.entries(r.fallbacks)
      .filter(([k]) => k === 'llm_failed' || k === 'agent_failed')
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    const readable = r.byEvidence + r.guessed;
    ui.warn(
      r.llmFailedAll
        ? `the LLM failed on every question asked (${kinds}): the sheet holds the offline answers; check the endpoint (exam-copilot doctor), then rerun with --resume to ask them again (exit 5)`
        : `${r.llmFailed} of ${readable} questions fell back to the offline answer because the LLM failed (${kinds}); rerun with --resume to ask them again`,
    );
  }
  if (ui.json) {
    const { rows, ...summary } = r;
    ui.printJson({ ...summary, accuracy: r.scored > 0 ? r.correct / r.scored : null, rows });
    return;
  }
  ui.out(
    `answered ${plural(r.answered, 'question')}${r.resumed > 0 ? ` (+${r.resumed} from the interrupted run)` : ''} → ${printable(r.output)}`,
  );
  ui.out(
    `letters: ${r.byEvidence} answered from the evidence, ${r.guessed} guessed (the answerer abstained; basis "guess"), ${r.unreadable.length} unreadable`,
  );
  if (r.scored > 0) {
    ui.out(
      `accuracy on the ${plural(r.scored, 'row')} that give an answer: ${((100 * r.correct) / r.scored).toFixed(1)}% (${r.correct}/${r.scored}; guesses and fallback answers count as not correct, as in eval); ${r.unscored} unscored`,
    );
  } else ui.out(`no row gives an answer, so nothing was scored (${r.unscored} answered)`);
  if (r.unreadable.length > 0) ui.out(`${plural(r.unreadable.length, 'row')} could not be read (see above)`);
}

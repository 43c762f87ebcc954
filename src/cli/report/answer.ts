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

/** The summary: where the answers went, unreadable rows by line, and accuracy on the rows that give an answer. */
export function reportAnswerFile(ui: Ui, r: AnswerFileResult): void {
  for (const u of r.unreadable) ui.warn(`${printable(r.file)}:${u.line}: ${u.problem}; kept in the output, marked unreadable`);
  if (ui.json) {
    const { rows, ...summary } = r;
    ui.printJson({ ...summary, accuracy: r.scored > 0 ? r.correct / r.scored : null, rows });
    return;
  }
  ui.out(
    `answered ${r.answered} question${r.answered === 1 ? '' : 's'}${r.resumed > 0 ? ` (+${r.resumed} from the interrupted run)` : ''} → ${printable(r.output)}`,
  );
  if (r.scored > 0) {
    ui.out(
      `accuracy on the ${r.scored} row${r.scored === 1 ? '' : 's'} that give an answer: ${((100 * r.correct) / r.scored).toFixed(1)}% (${r.correct}/${r.scored}); ${r.unscored} unscored`,
    );
  } else ui.out(`no row gives an answer, so nothing was scored (${r.unscored} answered)`);
  if (r.unreadable.length > 0) ui.out(`${r.unreadable.length} row${r.unreadable.length === 1 ? '' : 's'} could not be read (see above)`);
}

import type { AnswerMode } from '../../answer/answer-types.js';
import type { EvalProgress, EvalReport } from '../../evaluate/eval-types.js';
import type { GateViolation } from '../../evaluate/gate.js';
import { chanceNote, questionResults } from '../../evaluate/question-results.js';
import { rowIssueSummary } from '../../evaluate/row-issues.js';
import { reportJson } from '../../evaluate/write-reports.js';
import type { Ui } from './ui.js';

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** A spinner fed by `runEval`'s progress events: done/total, running accuracy per mode, ETA. */
export function evalProgress(ui: Ui, file: string): { onProgress: (event: EvalProgress) => void; stop: () => void } {
  const spinner = ui.spinner(`eval ${file}: loading`);
  return {
    onProgress(event) {
      const accs = (Object.entries(event.perMode) as [AnswerMode, { done: number; correct: number }][])
        .filter(([, v]) => v.done > 0)
        .map(([mode, v]) => `${mode} ${pct(v.correct / v.done)}`)
        .join('  ');
      const eta = event.etaMs === null ? '' : `  ETA ${duration(event.etaMs)}`;
      spinner.update(`eval ${event.done}/${event.total}${event.mode ? ` [${event.mode}]` : ''}  ${accs}${eta}`);
    },
    stop() {
      spinner.stop();
    },
  };
}

function pad(s: string, n: number, right = false): string {
  const width = [...s].reduce((w, ch) => w + (/[\u1100-\uffff]/.test(ch) ? 2 : 1), 0);
  const fill = ' '.repeat(Math.max(0, n - width));
  return right ? fill + s : s + fill;
}

/** Prints the per-mode table, comparisons, skipped modes, bad rows, written reports and gate result. */
export function reportEval(
  ui: Ui,
  report: EvalReport,
  extra: { violations: GateViolation[]; notCompared?: string[]; written: string[]; gated: boolean },
): void {
  const notCompared = extra.notCompared ?? [];
  if (ui.json) {
    ui.printJson({
      ...(reportJson(report) as object),
      gate: { checked: extra.gated, passed: extra.violations.length === 0, violations: extra.violations, not_compared: notCompared },
      reports: extra.written,
    });
    return;
  }
  const c = ui.color;
  for (const w of report.warnings) ui.warn(`${w.where}: ${w.message}`);
  const head = [
    'mode',
    'answerer',
    'accuracy',
    '95% CI',
    'right',
    'wrong',
    'abst.',
    `hit@${report.config.top_k}`,
    'text',
    'table',
    'Brier',
    'ECE',
    'p50/p95 ms',
  ];
  const widths = [9, 8, 9, 14, 6, 6, 6, 8, 7, 7, 6, 6, 12];
  const line = (cells: string[]): string => cells.map((cell, i) => pad(cell, widths[i] ?? 8, i >= 2 && i !== 3)).join('  ');
  const issues = rowIssueSummary(report.row_issues);
  const bad = issues ? c.yellow(`, bad rows: ${issues}${report.skipped > 0 ? ` (${report.skipped} skipped)` : ''}`) : '';
  ui.out(c.bold(`${report.dataset}: ${report.total} questions${bad} (${(report.wall_ms / 1000).toFixed(1)} s)`));
  ui.out(c.dim(line(head)));
  const best = Math.max(...report.modes.map((m) => m.accuracy));
  for (const m of report.modes) {
    const acc = pct(m.accuracy);
    ui.out(
      line([
        m.mode,
        m.answerer,
        m.accuracy === best && report.modes.length > 1 ? c.green(acc) : acc,
        `${pct(m.ci95[0])}–${pct(m.ci95[1])}`,
        String(m.correct),
        String(m.incorrect),
        String(m.abstained),
        pct(m.evidence_hit_rate),
        pct(m.by_type.text?.accuracy ?? null),
        pct(m.by_type.table?.accuracy ?? null),
        m.brier.toFixed(3),
        m.ece.toFixed(3),
        `${Math.round(m.latency_ms.p50)}/${Math.round(m.latency_ms.p95)}`,
      ]),
    );
  }
  const { note } = chanceNote(questionResults(report));
  if (note) ui.out(c.dim(note));
  for (const m of report.modes) {
    const sel = m.selective_accuracy.map((s) => `${Math.round(s.coverage * 100)}% ${pct(s.accuracy)}`).join(', ');
    const stated = m.stated_calibration
      ? `; LLM stated confidence Brier ${m.stated_calibration.brier.toFixed(3)}, ECE ${m.stated_calibration.ece.toFixed(3)}`
      : '';
    ui.out(`${m.mode}: accuracy of the most confident ${sel}; AURC ${m.aurc.toFixed(3)}; abstained ${m.abstained}${stated}`);
  }
  for (const m of report.modes) {
    if (m.resumed > 0) ui.info(c.dim(`${m.mode}: ${m.resumed} rows reused from ${m.run_file} (--resume), ${m.answered_now} answered now`));
    if (m.fallbacks.length > 0) {
      const kinds = new Map<string, number>();
      for (const f of m.fallbacks) kinds.set(f.fallback, (kinds.get(f.fallback) ?? 0) + 1);
      ui.info(
        `${m.mode}: ${m.fallbacks.length} fallback answers counted as not correct (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}): ${m.fallbacks
          .slice(0, 10)
          .map((f) => f.id)
          .join(', ')}${m.fallbacks.length > 10 ? ', …' : ''}`,
      );
    }
    if (m.tokens) ui.info(c.dim(`${m.mode}: LLM tokens ${m.tokens.prompt} prompt + ${m.tokens.completion} completion`));
  }
  for (const cmp of report.comparisons) {
    const verdict = cmp.verdict === 'within noise' ? c.dim('within noise') : c.bold(`${cmp.verdict} better`);
    ui.out(
      `${cmp.a} vs ${cmp.b}: only ${cmp.a} right ${cmp.a_only}, only ${cmp.b} right ${cmp.b_only}, McNemar p=${cmp.p_value.toFixed(4)}: ${verdict}`,
    );
  }
  for (const s of report.skipped_modes) ui.warn(`${s.mode} not run: ${s.reason}`);
  for (const file of extra.written) ui.info(`wrote ${file}`);
  for (const line of notCompared) ui.warn(line);
  if (extra.gated) {
    if (extra.violations.length === 0) ui.out(c.green('accuracy gate passed'));
    for (const v of extra.violations) ui.out(c.red(`gate failed: ${v.message}`));
  }
}

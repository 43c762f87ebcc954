import type { DoctorReport } from '../../doctor/run-doctor.js';
import type { Ui } from './ui.js';

/** One line per check: status, name, message, and the fix for warn/fail. */
export function reportDoctor(ui: Ui, report: DoctorReport): void {
  if (ui.json) {
    ui.printJson(report);
    return;
  }
  const c = ui.color;
  for (const check of report.checks) {
    const tag = check.status === 'ok' ? c.green('ok  ') : check.status === 'warn' ? c.yellow('warn') : c.red('fail');
    const fix = check.fix && check.status !== 'ok' ? c.dim(` → ${check.fix}`) : '';
    ui.out(`${tag} ${check.name.padEnd(12)} ${check.message}${fix}`);
  }
}

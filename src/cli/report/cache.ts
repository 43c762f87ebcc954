import type { Ui } from './ui.js';

/** What `cache` found (or removed, with `--clear`). */
export interface CacheReport {
  file: string;
  cleared: boolean;
  entries: number;
  bytes: number;
}

/** Prints the LLM response cache's size, or what `--clear` removed. */
export function reportCache(ui: Ui, report: CacheReport): void {
  if (ui.json) {
    ui.printJson({ file: report.file, cleared: report.cleared, entries: report.entries, bytes: report.bytes });
    return;
  }
  const size = `${report.entries} cached LLM repl${report.entries === 1 ? 'y' : 'ies'} (${(report.bytes / 1024).toFixed(1)} kB)`;
  ui.out(report.cleared ? `cleared ${size} from ${report.file}` : `${size} in ${report.file}`);
}

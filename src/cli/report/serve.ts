import { spawn } from 'node:child_process';
import type { RunningServer } from '../../serve/run-serve.js';
import type { Ui } from './ui.js';

/** What to know before using the page, then where it is. */
export function reportServing(ui: Ui, server: RunningServer, root: string): void {
  if (server.exposed) {
    ui.warn(
      `listening on ${server.host}: anyone who can reach this machine can ask questions and read your textbooks; use --host 127.0.0.1 to keep it local`,
    );
  }
  if (server.indexMissing) ui.warn('no index yet: the page opens, but questions need `exam-copilot ingest` first');
  // The address comes last, so a script that waits for it has already seen the warnings.
  if (ui.json)
    ui.printJsonLine({
      url: server.url,
      host: server.host,
      port: server.port,
      exposed: server.exposed,
      index_missing: server.indexMissing,
    });
  else ui.out(`exam-copilot: serving ${root} at ${server.url}  (Ctrl-C to stop)`);
}

/** Opens the page with the desktop's opener; says so when there is none (a server or container). */
export function openInBrowser(ui: Ui, url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.once('error', () => ui.warn(`could not start ${opener}; open ${url} yourself`));
  child.unref();
}

export function reportStopped(ui: Ui): void {
  ui.info('exam-copilot: stopped');
}

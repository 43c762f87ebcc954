#!/usr/bin/env node
// Renders an eval HTML report in headless Chromium (Debian `chromium`) and writes a PNG screenshot.
// Usage: node scripts/bench/html-screenshot.mjs <report.html> <out.png> [--width 1200] [--height 1600]
// The report is self-contained, so Chromium runs with networking features off; a fresh profile dir is used each time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i === -1) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const width = Number(opt('--width', '1200'));
const height = Number(opt('--height', '1600'));
const [html, out] = args;
if (!html || !out) {
  console.error('usage: node scripts/bench/html-screenshot.mjs <report.html> <out.png> [--width 1200] [--height 1600]');
  process.exit(2);
}
if (!existsSync(html)) {
  console.error(`${html}: no such file`);
  process.exit(1);
}
const browser = ['chromium', 'chromium-browser', 'google-chrome'].find((b) => spawnSync('which', [b]).status === 0);
if (!browser) {
  console.error('no headless Chromium found; install it with `apt-get install -y chromium`');
  process.exit(5);
}
const profile = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-chromium-'));
try {
  const started = Date.now();
  const result = spawnSync(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      `--screenshot=${path.resolve(out)}`,
      `--window-size=${width},${height}`,
      pathToFileURL(path.resolve(html)).href,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (result.status !== 0 || !existsSync(out)) {
    console.error(`chromium failed (status ${result.status}): ${(result.stderr || '').split('\n').slice(-5).join('\n')}`);
    process.exit(1);
  }
  console.log(`screenshot ${path.resolve(out)} (${statSync(out).size} bytes, ${width}x${height}, ${Date.now() - started} ms)`);
} finally {
  rmSync(profile, { recursive: true, force: true });
}

#!/usr/bin/env node
// Renders an eval HTML report in headless Chromium (Debian `chromium`, or CHROME_PATH) and writes a PNG screenshot.
// Usage: node scripts/bench/html-screenshot.mjs <report.html> <out.png> [--width 1200] [--height 1600]
//          [--filter <key>] [--at <css selector>] [--full-page]
//   --filter  picks a filter of the per-question view first (`wrong-any`, `wrong-only-hybrid`, `wrong-all`, `right-all`…)
//   --at      starts the shot at that element (`#questions`, `#chapters`, `#q-S012`) instead of the top of the page
//   --full-page  the whole page instead of one window
// Prints the report's size in bytes, its number of question cards and the filter counts, then the screenshot's path.
// The report is self-contained, so Chromium runs with networking features off, and any request leaving the file is
// reported; a fresh profile dir is used each time. Uses puppeteer-core (a dev dependency) to drive the browser.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { importDist } from './lib/bench-args.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i === -1) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const flag = (name) => {
  const i = args.indexOf(name);
  if (i === -1) return false;
  args.splice(i, 1);
  return true;
};
const width = Number(opt('--width', '1200'));
const height = Number(opt('--height', '1600'));
const filter = opt('--filter', '');
const at = opt('--at', '');
const fullPage = flag('--full-page');
const [html, out] = args;
if (!html || !out) {
  console.error(
    'usage: node scripts/bench/html-screenshot.mjs <report.html> <out.png> [--width 1200] [--height 1600] [--filter key] [--at selector] [--full-page]',
  );
  process.exit(2);
}
if (!existsSync(html)) {
  console.error(`${html}: no such file`);
  process.exit(1);
}
// The browser tests' launcher (dist/test/helpers, built by `npx tsc -p tsconfig.json`): same browser lookup, same flags.
const { browserPath, launchHeadless } = await importDist('test/helpers/headless-chromium.js');
if (!browserPath) {
  console.error('no headless Chromium found; install it with `apt-get install -y chromium` or set CHROME_PATH');
  process.exit(5);
}
const started = Date.now();
const url = pathToFileURL(path.resolve(html)).href;
const chromium = await launchHeadless({ extraArgs: ['--hide-scrollbars'] });
const { browser } = chromium;
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('request', (r) => {
    if (!r.url().startsWith(url)) problems.push(`request left the file: ${r.url()}`);
  });
  await page.setViewport({ width, height });
  await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
  if (filter) {
    const button = await page.$(`#filters button[data-filter="${filter}"]`);
    if (!button) {
      console.error(`${html}: no filter "${filter}" (see the buttons above the question cards)`);
      process.exit(1);
    }
    await button.click();
  }
  const facts = await page.evaluate(() => ({
    cards: document.querySelectorAll('#cards .card').length,
    shown: [...document.querySelectorAll('#cards .card')].filter((c) => !c.hidden).length,
    filters: [...document.querySelectorAll('#filters button')].map((b) => `${b.dataset.filter}=${b.querySelector('.count')?.textContent}`),
  }));
  let clip;
  if (at) {
    const top = await page.evaluate((sel) => {
      const el = document.querySelector(sel);
      return el ? el.getBoundingClientRect().top + window.scrollY : null;
    }, at);
    if (top === null) {
      console.error(`${html}: nothing matches ${at}`);
      process.exit(1);
    }
    clip = { x: 0, y: Math.max(0, top - 8), width, height };
  }
  await page.screenshot({ path: path.resolve(out), ...(clip ? { clip, captureBeyondViewport: true } : { fullPage }) });
  console.log(
    `report ${path.resolve(html)}: ${statSync(html).size} bytes, ${facts.cards} question cards (${facts.shown} shown); filters ${facts.filters.join(' ')}`,
  );
  if (problems.length > 0) console.log(`problems: ${problems.join('; ')}`);
  console.log(`screenshot ${path.resolve(out)} (${statSync(out).size} bytes, ${width}x${height}, ${Date.now() - started} ms)`);
} finally {
  await chromium.close();
}

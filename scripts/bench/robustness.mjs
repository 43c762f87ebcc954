#!/usr/bin/env node
// Robustness suite: parses every PDF in <bench>/pdfs/ and <bench>/pdfs-extra/ through the ingest parser
// (the same worker thread, time limits and memory cap as `exam-copilot ingest`) and structures the result.
// Prints one row per file: ok / clean error / crash / timeout (a hang past the limit that the parser did not
// end itself), with time and page count, then totals. Exit 1 when crash or timeout is above zero.
//
// Usage: node scripts/bench/robustness.mjs [bench-dir] [--page-timeout-ms N] [--file-timeout-ms N]
// Needs a build (npm run build). Default bench dir: ../shared/bench relative to the repo.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const bench = path.resolve(
  args.find((a, i) => !a.startsWith('--') && !(args[i - 1] ?? '').startsWith('--')) ?? path.join(repo, '..', 'shared', 'bench'),
);
const pageTimeoutMs = opt('--page-timeout-ms', 10_000);
const fileTimeoutMs = opt('--file-timeout-ms', 30_000);
const { parsePdf, PdfParseError } = await import(path.join(repo, 'dist', 'src', 'ingest', 'parse-pdf.js'));
const { structurePdf } = await import(path.join(repo, 'dist', 'src', 'ingest', 'structure-pdf.js'));

const files = [];
for (const dir of ['pdfs', 'pdfs-extra']) {
  const folder = path.join(bench, dir);
  if (!existsSync(folder)) continue;
  const kinds = new Map();
  const manifest = path.join(folder, 'manifest.csv');
  if (existsSync(manifest))
    for (const line of readFileSync(manifest, 'utf8').split('\n').slice(1)) kinds.set(line.split(',')[0], line.split(',')[1]);
  for (const name of readdirSync(folder)
    .filter((n) => n.toLowerCase().endsWith('.pdf'))
    .sort())
    files.push({ file: path.join(folder, name), label: `${dir}/${name}`, kind: kinds.get(name) ?? '' });
}
if (files.length === 0) {
  console.error(`no PDFs under ${bench}/pdfs or ${bench}/pdfs-extra`);
  process.exit(2);
}

const counts = { ok: 0, 'clean error': 0, crash: 0, timeout: 0 };
const rows = [];
for (const f of files) {
  const started = Date.now();
  let outcome;
  let detail = '';
  let pages = '';
  // A watchdog on the main thread: the parser must end every file itself within its own limit.
  let watchdog;
  const hang = new Promise((resolve) => {
    watchdog = setTimeout(() => resolve('hang'), fileTimeoutMs + 10_000);
  });
  try {
    const raw = await Promise.race([parsePdf(f.file, { pageTimeoutMs, fileTimeoutMs }), hang]);
    if (raw === 'hang') {
      outcome = 'timeout';
      detail = 'parser did not return';
    } else {
      const s = structurePdf(raw, { book: 'x', source: f.label });
      outcome = 'ok';
      pages = String(raw.numPages);
      const chars = s.segments.reduce((n, seg) => n + seg.text.length, 0);
      detail = `${chars} chars${s.warnings.length ? `; ${s.warnings.length} warnings: ${s.warnings[0].message.slice(0, 70)}` : ''}`;
    }
  } catch (error) {
    if (error instanceof PdfParseError) {
      outcome = 'clean error';
      detail = `${error.kind}: ${error.message}`.slice(0, 90);
    } else {
      outcome = 'crash';
      detail = String(error?.stack ?? error).split('\n')[0];
    }
  } finally {
    clearTimeout(watchdog);
  }
  counts[outcome]++;
  rows.push([f.label, f.kind, outcome, pages, `${Date.now() - started} ms`, detail]);
  console.log(rows[rows.length - 1].join('\t'));
}
console.log('');
console.log(
  `files ${files.length}: ok ${counts.ok}, clean error ${counts['clean error']}, crash ${counts.crash}, timeout ${counts.timeout} (page limit ${pageTimeoutMs} ms, file limit ${fileTimeoutMs} ms)`,
);
process.exit(counts.crash + counts.timeout > 0 ? 1 : 0);

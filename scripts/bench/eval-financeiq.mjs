#!/usr/bin/env node
// Benchmark: offline eval of FinanceIQ's 436 fund-exam questions over the fund-laws corpus.
// Usage: node scripts/bench/eval-financeiq.mjs [--bench ../shared/bench] [--modes keyword,vector,hybrid] [--limit N] [--no-screenshot]
// Ingests <bench>/fund-laws/pdf/ into a temp root, runs `runEval` (offline answerer) per mode and prints accuracy,
// 95% CI, wall time and questions/s; writes the JSON/HTML/Markdown reports and two screenshots of the HTML report (its top,
// and the question cards wrong in some mode) to a temp dir and prints the paths.
// Imports from dist/: run `npx tsc -p tsconfig.json` first.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, importDist, repo } from './lib/bench-args.mjs';

const { args, opt, bench } = benchArgs();
const modes = opt('--modes', 'keyword,vector,hybrid').split(',');
const limit = opt('--limit', undefined);
const dataset = path.join(bench, 'financeiq-fund', 'dev.csv');
const pdfDir = path.join(bench, 'fund-laws', 'pdf');
for (const p of [dataset, pdfDir]) {
  if (!existsSync(p)) {
    console.error(`${p}: not found; pass --bench <folder holding financeiq-fund/ and fund-laws/>`);
    process.exit(1);
  }
}

const { loadConfig } = await importDist('src/config/load-config.js');
const { runIngest } = await importDist('src/ingest/run-ingest.js');
const { runEval } = await importDist('src/evaluate/run-eval.js');
const { writeReports } = await importDist('src/evaluate/write-reports.js');

const root = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-bench-eval-'));
mkdirSync(path.join(root, 'rawdoc'));
// The shipped user dictionary keeps exam terms whole; the laws themselves are the corpus.
cpSync(path.join(repo, 'rawdoc', 'userdict.txt'), path.join(root, 'rawdoc', 'userdict.txt'));
const { config } = loadConfig({ root, env: {} });
const offline = { ...config, llm: null };

let t = Date.now();
const ingest = await runIngest({ root, config: offline, paths: [pdfDir] });
const ingestMs = Date.now() - t;
const chunkCount = ingest.chunks ?? ingest.chunkCount ?? ingest.totals?.chunks ?? '?';
console.log(`ingest ${pdfDir}: ${(ingestMs / 1000).toFixed(1)} s (chunks: ${chunkCount})`);

const out = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-bench-eval-out-'));
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const rows = [];
const perMode = [];
for (const mode of modes) {
  t = Date.now();
  const report = await runEval({
    root,
    config: offline,
    file: dataset,
    modes: [mode],
    answerer: 'offline',
    runDir: path.join(out, 'runs'),
    ...(limit ? { limit: Number(limit) } : {}),
  });
  const wall = Date.now() - t;
  const m = report.modes[0];
  perMode.push({ report, mode: m });
  rows.push({
    mode,
    n: m.total,
    accuracy: pct(m.accuracy),
    ci95: `${pct(m.ci95[0])}–${pct(m.ci95[1])}`,
    correct: m.correct,
    incorrect: m.incorrect,
    abstained: m.abstained,
    brier: m.brier.toFixed(3),
    ece: m.ece.toFixed(3),
    p50_ms: Math.round(m.latency_ms.p50),
    p95_ms: Math.round(m.latency_ms.p95),
    wall_s: (wall / 1000).toFixed(1),
    q_per_s: (m.total / (wall / 1000)).toFixed(1),
    skipped_rows: report.skipped,
  });
}
console.table(rows);

// One combined report (all modes) recomputed from the run files with --resume: nothing is asked again.
t = Date.now();
const combined = await runEval({
  root,
  config: offline,
  file: dataset,
  modes,
  answerer: 'offline',
  runDir: path.join(out, 'runs'),
  resume: true,
  ...(limit ? { limit: Number(limit) } : {}),
});
console.log(
  `recomputed all modes from run files in ${((Date.now() - t) / 1000).toFixed(1)} s (answered now: ${combined.modes.map((m) => `${m.mode} ${m.answered_now}`).join(', ')})`,
);
for (const c of combined.comparisons)
  console.log(`McNemar ${c.a} vs ${c.b}: only ${c.a} ${c.a_only}, only ${c.b} ${c.b_only}, p=${c.p_value.toFixed(4)} → ${c.verdict}`);
for (const m of combined.modes) console.log(`${m.mode}: by type ${JSON.stringify(m.by_type)}; fallbacks ${m.fallbacks.length}`);
const written = writeReports(combined, {
  json: path.join(out, 'report.json'),
  html: path.join(out, 'report.html'),
  md: path.join(out, 'report.md'),
  junit: path.join(out, 'junit.xml'),
});
console.log(`reports: ${written.join(' ')}`);
if (!args.includes('--no-screenshot')) {
  // The top of the report (tables and charts), then the question cards of the questions some mode got wrong.
  for (const [name, extra] of [
    ['report.png', []],
    ['report-questions.png', ['--filter', 'wrong-any', '--at', '#questions']],
  ]) {
    const png = path.join(out, name);
    const r = spawnSync(
      process.execPath,
      [path.join(repo, 'scripts/bench/html-screenshot.mjs'), path.join(out, 'report.html'), png, ...extra],
      {
        encoding: 'utf8',
      },
    );
    console.log(r.status === 0 ? r.stdout.trim() : `screenshot failed: ${r.stderr.trim()}`);
  }
}
console.log(`temp root ${root}`);

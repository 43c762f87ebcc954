#!/usr/bin/env node
// Offline-answerer benchmark: accuracy (95% Wilson CI), Brier score and ECE per retrieval mode,
// on the sample validation set (rawdoc/ ingested into a temp root) and on FinanceIQ fund questions
// (../shared/bench/financeiq-fund/dev.csv) over the fund-laws PDFs (ingested into a temp root).
//
//   npm run build && node scripts/bench/answer.mjs [--bench ../shared/bench] [--only sample|financeiq] [--modes keyword,vector,hybrid] [--limit N]
//
// The confidence calibration is fitted by scripts/fit-calibration.mjs.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';

const repo = path.resolve(import.meta.dirname, '..', '..');
const { values } = parseArgs({
  options: {
    bench: { type: 'string', default: path.resolve(repo, '..', 'shared', 'bench') },
    only: { type: 'string' },
    modes: { type: 'string', default: 'keyword,vector,hybrid' },
    limit: { type: 'string' },
    'top-k': { type: 'string', default: '8' },
  },
});
const dist = (p) => import(path.join(repo, 'dist', 'src', p));
const { loadConfig } = await dist('config/load-config.js');
const { runIngest } = await dist('ingest/run-ingest.js');
const { createAnswerer } = await dist('answer/create-answerer.js');
const { questionFromParts } = await dist('answer/parse-question.js');
const { wilsonInterval, brierScore, expectedCalibrationError } = await dist('evaluate/metrics.js');

const modes = values.modes.split(',');
const topK = Number(values['top-k']);
const limit = values.limit ? Number(values.limit) : Infinity;

// Brier on the chosen answer and ECE over 10 equal-width bins, from the same metrics `eval` reports.
function calibration(rows) {
  const items = rows.map((r) => ({ confidence: r.conf, correct: r.ok }));
  return { brier: brierScore(items), ece: expectedCalibrationError(items) };
}

async function ingestInto(rawFiles) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-bench-'));
  mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
  for (const [src, name] of rawFiles) cpSync(src, path.join(root, 'rawdoc', name), { recursive: true });
  const { config } = loadConfig({ root, env: {} });
  const t0 = Date.now();
  await runIngest({ root, config });
  console.log(`  ingested in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { root, config };
}

async function evaluate(label, root, config, questions) {
  // The factory ask and eval use: the index, its analyzer and corpus statistics, built once.
  const answerer = await createAnswerer({ root, config, answerer: 'offline', retrieval: true, topK, rerank: false, cache: false });
  for (const mode of modes) {
    const rows = [];
    const t0 = Date.now();
    let fallbacks = 0;
    for (const q of questions) {
      const parsed = questionFromParts(q.question, q.options);
      const r = await answerer.answer(parsed, mode);
      if (r.fallback === 'no_evidence' || r.fallback === 'off_topic') fallbacks++;
      rows.push({ ok: r.answer === q.answer, conf: r.confidence, kind: parsed.kind, answered: r.answer !== '' });
    }
    const k = rows.filter((r) => r.ok).length;
    const [lo, hi] = wilsonInterval(k, rows.length);
    const { brier, ece } = calibration(rows);
    const ms = (Date.now() - t0) / rows.length;
    const answered = rows.filter((r) => r.answered);
    const ka = answered.filter((r) => r.ok).length;
    console.log(
      `  ${label} ${mode.padEnd(7)} accuracy ${((100 * k) / rows.length).toFixed(1)}% (${k}/${rows.length}, 95% CI ${(100 * lo).toFixed(1)}–${(100 * hi).toFixed(1)})  Brier ${brier.toFixed(3)}  ECE ${ece.toFixed(3)}  no-answer ${fallbacks} (accuracy on answered ${answered.length ? ((100 * ka) / answered.length).toFixed(1) : '-'}% of ${answered.length})  ${ms.toFixed(0)} ms/q`,
    );
  }
  answerer.close();
}

function readQuestions(file) {
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true, bom: true });
  return rows.slice(0, limit).map((r) => ({
    question: r.question,
    options: Object.fromEntries(['A', 'B', 'C', 'D', 'E'].filter((l) => r[l]).map((l) => [l, r[l]])),
    answer: String(r.answer).trim().toUpperCase(),
  }));
}

if (values.only !== 'financeiq') {
  console.log(`sample validation set (rawdoc/validation.csv), offline answerer, top-k ${topK}`);
  const { root, config } = await ingestInto([[path.join(repo, 'rawdoc'), '.']]);
  try {
    await evaluate('sample', root, config, readQuestions(path.join(repo, 'rawdoc', 'validation.csv')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
if (values.only !== 'sample') {
  const bench = path.resolve(values.bench);
  console.log(`FinanceIQ fund dev set over fund-laws/pdf (${bench}), offline answerer, top-k ${topK}`);
  const pdfDir = path.join(bench, 'fund-laws', 'pdf');
  const { readdirSync } = await import('node:fs');
  const { root, config } = await ingestInto(
    readdirSync(pdfDir)
      .filter((f) => f.endsWith('.pdf'))
      .map((f) => [path.join(pdfDir, f), f]),
  );
  try {
    await evaluate('financeiq', root, config, readQuestions(path.join(bench, 'financeiq-fund', 'dev.csv')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

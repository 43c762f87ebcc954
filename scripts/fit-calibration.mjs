#!/usr/bin/env node
// Fits the offline answerer's confidence calibration and prints what it fitted.
//
//   npx tsc -p tsconfig.json && node scripts/fit-calibration.mjs ../shared/bench [--keep DIR] [--top-k 8] [--mode hybrid] [--dump features.json]
//
// Data: the sample validation set (rawdoc/validation.csv over rawdoc/) and FinanceIQ fund dev
// (<bench>/financeiq-fund/dev.csv over <bench>/fund-laws/pdf-combined/fund-laws-combined.pdf), each ingested
// into a temp root (or into DIR/sample and DIR/fiq with --keep, reused when already there). Every question is
// answered offline with abstention off; each answer's calibration features and correctness are collected.
// Split: every third question of each set (index % 3 == 0) is held out; the logistic model is fitted on the rest
// (L2 0.01), each set weighted to equal total weight. The script prints the model (paste it into FITTED_CALIBRATION in src/answer/offline-answerer.ts),
// calibration and selective-answering metrics on the held-out part and on each whole set, before (the confidence
// the current build gives) and after, and the selective accuracy per abstention threshold.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';

const repo = path.resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keep: { type: 'string' },
    'top-k': { type: 'string', default: '8' },
    mode: { type: 'string', default: 'hybrid' },
    l2: { type: 'string', default: '0.01' },
    dump: { type: 'string' },
  },
});
const bench = path.resolve(positionals[0] ?? path.join(repo, '..', 'shared', 'bench'));
const dist = (p) => import(path.join(repo, 'dist', 'src', p));
const { loadConfig } = await dist('config/load-config.js');
const { runIngest } = await dist('ingest/run-ingest.js');
const { openRetriever } = await dist('retrieve/open-retriever.js');
const { analyzerFromConfig } = await dist('indexing/build-indexes.js');
const { answerQuestion } = await dist('answer/answer-question.js');
const { questionFromParts } = await dist('answer/parse-question.js');
const { fitCalibration, calibratedConfidence, logLoss, FEATURE_NAMES } = await dist('answer/calibration.js');
const { projectPaths } = await dist('paths.js');
const { brierScore, expectedCalibrationError, selectiveAccuracy, aurc } = await dist('evaluate/metrics.js');

const topK = Number(values['top-k']);
const l2 = Number(values.l2);
const sets = [
  { name: 'sample', csv: path.join(repo, 'rawdoc', 'validation.csv'), sources: [[path.join(repo, 'rawdoc'), '.']] },
  {
    name: 'fiq',
    csv: path.join(bench, 'financeiq-fund', 'dev.csv'),
    sources: [
      [path.join(bench, 'fund-laws', 'pdf-combined', 'fund-laws-combined.pdf'), 'fund-laws-combined.pdf'],
      [path.join(repo, 'rawdoc', 'userdict.txt'), 'userdict.txt'],
    ],
  },
];
for (const s of sets) {
  if (!existsSync(s.csv)) {
    console.error(`${s.csv}: not found; pass the bench folder holding financeiq-fund/ and fund-laws/`);
    process.exit(1);
  }
}

async function rootFor(set) {
  const root = values.keep
    ? path.join(path.resolve(values.keep), set.name)
    : mkdtempSync(path.join(os.tmpdir(), `fit-calibration-${set.name}-`));
  const { config } = loadConfig({ root, env: {} });
  if (!existsSync(path.join(root, 'index', 'sqlite_fts.db'))) {
    mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
    for (const [src, name] of set.sources) cpSync(src, path.join(root, 'rawdoc', name), { recursive: true });
    await runIngest({ root, config: { ...config, llm: null } });
  }
  return { root, config: { ...config, llm: null } };
}

function readQuestions(file) {
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true, bom: true });
  return rows.map((r) => ({
    id: r.id,
    question: r.question,
    options: Object.fromEntries(['A', 'B', 'C', 'D', 'E'].filter((l) => r[l]).map((l) => [l, r[l]])),
    answer: String(r.answer).trim().toUpperCase(),
  }));
}

const all = [];
for (const set of sets) {
  const { root, config } = await rootFor(set);
  const retriever = await openRetriever({ root, config });
  const { analyzer } = analyzerFromConfig(root, config);
  const prompts = projectPaths(root).prompts;
  const questions = readQuestions(set.csv);
  const t0 = Date.now();
  for (const [i, q] of questions.entries()) {
    const parsed = questionFromParts(q.question, q.options);
    const deps = { retriever, llm: null, answerer: 'offline', mode: values.mode, topK, rerank: false, prompts, analyzer };
    // Abstention off, so every answer carries its letter and features; `before` is the confidence as shipped.
    const r = await answerQuestion(parsed, { ...deps, abstainBelow: 0 });
    const letters = [...new Set(r.answer.replace(/[^A-H]/g, ''))].sort().join('');
    all.push({
      set: set.name,
      id: q.id,
      heldOut: i % 3 === 0,
      features: r.calibration ?? null,
      correct: letters !== '' && letters === q.answer,
      before: r.confidence,
      chance: 1 / Math.max(2, parsed.options.length),
    });
  }
  console.log(`${set.name}: ${questions.length} questions answered in ${((Date.now() - t0) / 1000).toFixed(1)} s (${root})`);
  retriever.close();
}

if (values.dump) writeFileSync(values.dump, JSON.stringify(all));
const withFeatures = all.filter((r) => r.features);
const train = withFeatures.filter((r) => !r.heldOut);
// Each set gets equal say in the fit, whatever its size: the sample's 71 questions would otherwise be noise.
const weightOf = Object.fromEntries(
  sets.map((s) => [s.name, train.length / sets.length / Math.max(1, train.filter((r) => r.set === s.name).length)]),
);
const model = fitCalibration(
  train.map((r) => ({ features: r.features, correct: r.correct, weight: weightOf[r.set] })),
  { l2 },
);
const after = (r) => (r.features ? calibratedConfidence(r.features, model) : r.chance);
console.log(
  `\nfitted on ${train.length} answers (${withFeatures.length - train.length} held out; ${all.length - withFeatures.length} without a letter keep chance confidence), L2 ${l2}:`,
);
const coef = FEATURE_NAMES.map((n) => `${n}: ${model.coefficients[n].toFixed(4)}`).join(', ');
console.log(`  { intercept: ${model.intercept.toFixed(4)}, coefficients: { ${coef} } }`);
console.log(
  `  log-loss train ${logLoss(
    train.map((r) => ({ features: r.features, correct: r.correct })),
    model,
  ).toFixed(4)}, held-out ${logLoss(
    withFeatures.filter((r) => r.heldOut).map((r) => ({ features: r.features, correct: r.correct })),
    model,
  ).toFixed(4)}`,
);

const pct = (x) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);
function metrics(rows, conf) {
  const items = rows.map((r) => ({ confidence: conf(r), correct: r.correct }));
  const sorted = [...items].sort((a, b) => b.confidence - a.confidence);
  const top = sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 10)));
  const topAcc = top.filter((x) => x.correct).length / top.length;
  const topConf = top.reduce((s, x) => s + x.confidence, 0) / top.length;
  return {
    n: items.length,
    acc: pct(items.filter((x) => x.correct).length / items.length),
    ECE15: expectedCalibrationError(items, 15).toFixed(3),
    Brier: brierScore(items).toFixed(3),
    'acc@25%': pct(selectiveAccuracy(items, 0.25)),
    'acc@50%': pct(selectiveAccuracy(items, 0.5)),
    'acc@75%': pct(selectiveAccuracy(items, 0.75)),
    'acc@100%': pct(selectiveAccuracy(items, 1)),
    AURC: aurc(items).toFixed(3),
    'top10% acc/conf': `${pct(topAcc)} / ${pct(topConf)}`,
  };
}
const table = {};
for (const set of sets) {
  for (const part of ['held-out', 'all']) {
    const rows = all.filter((r) => r.set === set.name && (part === 'all' || r.heldOut));
    table[`${set.name} ${part} before`] = metrics(rows, (r) => r.before);
    table[`${set.name} ${part} after`] = metrics(rows, after);
  }
}
console.table(table);

console.log('\nabstention threshold → share answered, accuracy of answered (after):');
for (const t of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]) {
  const line = sets.map((set) => {
    const rows = all.filter((r) => r.set === set.name);
    const answered = rows.filter((r) => r.features && after(r) >= t);
    return `${set.name} ${pct(answered.length / rows.length)} answered, ${pct(answered.length ? answered.filter((r) => r.correct).length / answered.length : null)} right, ${rows.filter((r) => r.correct && !(r.features && after(r) >= t)).length} right ones withheld`;
  });
  console.log(`  ${t.toFixed(2)}: ${line.join('; ')}`);
}

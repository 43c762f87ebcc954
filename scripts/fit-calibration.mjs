#!/usr/bin/env node
// Fits the offline answerer's confidence calibration and prints what it fitted, before and after.
//
//   npx tsc -p tsconfig.json && node scripts/fit-calibration.mjs ../shared/bench \
//     [--keep DIR] [--top-k 8] [--mode hybrid] [--l2 0.001] [--weighting question|set] [--dump F.json] [--features F.json]
//
// Data: the sample validation set (rawdoc/validation.csv over rawdoc/) and FinanceIQ fund dev
// (<bench>/financeiq-fund/dev.csv over <bench>/fund-laws/pdf-combined/fund-laws-combined.pdf), each ingested
// into a fresh temp root (or into DIR/sample and DIR/fiq with --keep, reused when already there: drop DIR after
// a change to ingest or chunking). Every question is answered offline through the same answerer `eval` uses,
// with abstention off; each answer's calibration features and correctness are collected (--dump writes them,
// --features refits from such a file without answering again).
// Split: every third question of each set (index % 3 == 0) is held out; the logistic model is fitted on the rest
// with an L2 penalty (--l2, default 0.001). Weighting: each question counts once (default); `--weighting set`
// gives the two sets equal total weight instead. The sample is the tuning set of the solver's weights, so its
// accuracy at a given support is optimistic; counting each of its questions six times would let that optimism
// set the confidence where the two sets overlap.
// Output: the model (paste it into FITTED_CALIBRATION in src/answer/offline-answerer.ts); per set the metrics on
// the fitted part (in-fit), the held-out third, the whole set, and 3-fold cross-validation (each third predicted by
// a model fitted on the other two: what new questions see), before (the confidence the current build gives) and
// after; and the share answered per abstention threshold. "ECE floor" is the ECE a perfectly calibrated confidence
// would show on that many questions by chance alone: an ECE near it is as good as that many questions can show.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    l2: { type: 'string', default: '0.001' },
    weighting: { type: 'string', default: 'question' },
    dump: { type: 'string' },
    features: { type: 'string' },
  },
});
const bench = path.resolve(positionals[0] ?? path.join(repo, '..', 'shared', 'bench'));
const dist = (p) => import(path.join(repo, 'dist', 'src', p));
const { loadConfig } = await dist('config/load-config.js');
const { runIngest } = await dist('ingest/run-ingest.js');
const { createAnswerer } = await dist('answer/create-answerer.js');
const { questionFromParts } = await dist('answer/parse-question.js');
const { fitCalibration, calibratedConfidence, crossValidatedConfidences, logLoss, FEATURE_NAMES } = await dist('answer/calibration.js');
const { brierScore, expectedCalibrationError, expectedCalibrationErrorFloor, selectiveAccuracy, aurc } = await dist('evaluate/metrics.js');

const topK = Number(values['top-k']);
const l2 = Number(values.l2);
if (!Number.isFinite(topK) || topK < 1 || !Number.isFinite(l2) || l2 < 0 || !['question', 'set'].includes(values.weighting)) {
  console.error('--top-k must be a positive number, --l2 a number >= 0, --weighting question or set');
  process.exit(2);
}
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
for (const s of values.features ? [] : sets) {
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

const all = values.features ? JSON.parse(readFileSync(values.features, 'utf8')) : [];
for (const set of values.features ? [] : sets) {
  const { root, config } = await rootFor(set);
  // The same answerer eval and ask use, with abstention off so every answer carries its letter and features.
  const answerConfig = { ...config, answer: { ...config.answer, abstainBelow: 0 } };
  const answerer = await createAnswerer({
    root,
    config: answerConfig,
    answerer: 'offline',
    retrieval: true,
    topK,
    rerank: false,
    cache: false,
  });
  const questions = readQuestions(set.csv);
  const t0 = Date.now();
  for (const [i, q] of questions.entries()) {
    const parsed = questionFromParts(q.question, q.options);
    // `before` is the confidence as shipped.
    const r = await answerer.answer(parsed, values.mode);
    const letters = [...new Set(r.answer.replace(/[^A-H]/g, ''))].sort().join('');
    all.push({
      set: set.name,
      id: q.id,
      fold: i % 3,
      heldOut: i % 3 === 0,
      features: r.calibration ?? null,
      correct: letters !== '' && letters === q.answer,
      before: r.confidence,
      chance: 1 / Math.max(2, parsed.options.length),
    });
  }
  console.log(`${set.name}: ${questions.length} questions answered in ${((Date.now() - t0) / 1000).toFixed(1)} s (${root})`);
  answerer.close();
  // A temp root is this run's only: remove it (a --keep root stays for the next run).
  if (!values.keep) rmSync(root, { recursive: true, force: true });
}

// Dumps written before folds were recorded: the fold is the question's index in its set, mod 3.
const seenPerSet = {};
for (const r of all) {
  const i = (seenPerSet[r.set] = (seenPerSet[r.set] ?? -1) + 1);
  r.fold ??= i % 3;
}
if (values.dump) writeFileSync(values.dump, JSON.stringify(all));
const withFeatures = all.filter((r) => r.features);
const train = withFeatures.filter((r) => !r.heldOut);
const weightFor = (rows) => {
  if (values.weighting === 'question') return () => 1;
  const per = Object.fromEntries(
    sets.map((s) => [s.name, rows.length / sets.length / Math.max(1, rows.filter((r) => r.set === s.name).length)]),
  );
  return (r) => per[r.set];
};
const asExamples = (rows) => {
  const w = weightFor(rows);
  return rows.map((r) => ({ features: r.features, correct: r.correct, weight: w(r) }));
};
const model = fitCalibration(asExamples(train), { l2 });
const after = (r) => (r.features ? calibratedConfidence(r.features, model) : r.chance);
// 3-fold cross-validation over both sets at once, folds by index % 3 within each set (fold 0 is the held-out third).
const cvAll = crossValidatedConfidences(asExamples(withFeatures), 3, (i) => withFeatures[i].fold, { l2 });
const cvOf = new Map(withFeatures.map((r, i) => [r, cvAll[i]]));
console.log(
  `\nfitted on ${train.length} answers (${withFeatures.length - train.length} held out; ${all.length - withFeatures.length} without a letter keep chance confidence), L2 ${l2}, weighting ${values.weighting}:`,
);
const coef = FEATURE_NAMES.map((n) => `    ${n}: ${model.coefficients[n].toFixed(4)},`).join('\n');
console.log(`{\n  intercept: ${model.intercept.toFixed(4)},\n  coefficients: {\n${coef}\n  },\n}`);
const plain = (rows) => rows.map((r) => ({ features: r.features, correct: r.correct }));
console.log(
  `log-loss in-fit ${logLoss(plain(train), model).toFixed(4)}, held-out ${logLoss(plain(withFeatures.filter((r) => r.heldOut)), model).toFixed(4)}`,
);

const pct = (x) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);
// The most confident tenth; with `groupOf`, the most confident tenth of each group, pooled (cross-validation: each
// fold is ranked by its own model, as one model ranks a new set; one ranking across three models would mix scales).
function metrics(rows, conf, groupOf = () => 0) {
  const items = rows.map((r) => ({ confidence: conf(r), correct: r.correct, group: groupOf(r) }));
  const top = [...new Set(items.map((x) => x.group))].flatMap((g) => {
    const sorted = items.filter((x) => x.group === g).sort((a, b) => b.confidence - a.confidence);
    return sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 10)));
  });
  const topAcc = top.filter((x) => x.correct).length / top.length;
  const topConf = top.reduce((s, x) => s + x.confidence, 0) / top.length;
  return {
    n: items.length,
    acc: pct(items.filter((x) => x.correct).length / items.length),
    ECE15: expectedCalibrationError(items, 15).toFixed(3),
    'ECE floor': expectedCalibrationErrorFloor(
      items.map((x) => x.confidence),
      15,
    ).toFixed(3),
    Brier: brierScore(items).toFixed(3),
    'acc@25%': pct(selectiveAccuracy(items, 0.25)),
    'acc@50%': pct(selectiveAccuracy(items, 0.5)),
    'acc@75%': pct(selectiveAccuracy(items, 0.75)),
    'acc@100%': pct(selectiveAccuracy(items, 1)),
    AURC: aurc(items).toFixed(3),
    'top10% right/stated': `${pct(topAcc)} / ${pct(topConf)}`,
  };
}
const table = {};
const parts = {
  'in-fit': (r) => !r.heldOut,
  'held-out': (r) => r.heldOut,
  all: () => true,
};
for (const set of sets) {
  for (const [part, keep] of Object.entries(parts)) {
    const rows = all.filter((r) => r.set === set.name && keep(r));
    table[`${set.name} ${part} before`] = metrics(rows, (r) => r.before);
    table[`${set.name} ${part} after`] = metrics(rows, after);
  }
  table[`${set.name} 3-fold CV after`] = metrics(
    all.filter((r) => r.set === set.name),
    (r) => cvOf.get(r) ?? r.chance,
    (r) => r.fold,
  );
}
console.table(table);

console.log('\nabstention threshold → share answered, accuracy of answered (after):');
for (const t of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]) {
  const line = sets.map((set) => {
    const rows = all.filter((r) => r.set === set.name);
    const answered = rows.filter((r) => r.features && after(r) >= t);
    const withheld = rows.filter((r) => r.correct && !(r.features && after(r) >= t)).length;
    return `${set.name} ${pct(answered.length / rows.length)} answered, ${pct(answered.length ? answered.filter((r) => r.correct).length / answered.length : null)} right, ${withheld} right ones withheld`;
  });
  console.log(`  ${t.toFixed(2)}: ${line.join('; ')}`);
}

#!/usr/bin/env node
// Fits the offline answerer's confidence calibration and prints what it fitted, before and after.
//
//   npx tsc -p tsconfig.json && node scripts/fit-calibration.mjs ../shared/bench [--keep DIR] [--top-k 8] [--mode hybrid]
//     [--knot K] [--l2 L] [--repeats 20] [--weighting question|set] [--dump F.json] [--features F.json]
//
// Data: the sample validation set (rawdoc/validation.csv over rawdoc/), FinanceIQ fund dev
// (<bench>/financeiq-fund/dev.csv over <bench>/fund-laws/pdf-combined/fund-laws-combined.pdf), a set whose book rarely
// holds the answer, and meta-cert-fund dev (<bench>/meta-cert-fund/dev.csv over its notes/), whose book covers its
// questions, each ingested into a fresh temp root (or into DIR/sample, DIR/fiq and DIR/meta with --keep, reused when
// already there: drop DIR after
// a change to ingest or chunking). Every question is answered offline through the same answerer `eval` uses,
// with abstention off; each answer's calibration features and correctness are collected (--dump writes them,
// --features refits from such a file without answering again).
// Choice: the support knot and the L2 penalty (or the given --knot / --l2) by repeated stratified 3-fold
// cross-validation (--repeats random partitions, folds within each set): the smallest cross-validated log-loss among
// the candidates whose cross-validated 10% most confident FinanceIQ answers are right at least as often as stated
// minus 5 points. One split is too noisy for that: the top tenth of a third of FinanceIQ is 15 questions.
// Fit: the logistic model on every answered question of both sets. Weighting: each question counts once (default);
// `--weighting set` gives the two sets equal total weight instead. The sample is the tuning set of the solver's
// weights, so its accuracy at a given support is optimistic; counting each of its questions six times would let
// that optimism set the confidence where the two sets overlap.
// Output: the model (paste it into FITTED_CALIBRATION in src/answer/solver-weights.ts); per set the metrics before
// (the confidence the current build gives), after in-fit, and after cross-validated (each question predicted by a
// model fitted on the other two folds: what new questions see) as mean ± standard deviation over the repeats; and
// the share answered per abstention threshold. "ECE floor" is the ECE a perfectly calibrated confidence would show
// on that many questions by chance alone: an ECE near it is as good as that many questions can show.
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
    knot: { type: 'string' },
    l2: { type: 'string' },
    repeats: { type: 'string', default: '20' },
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
const { fitCalibration, calibratedConfidence, selectCalibration, logLoss, FEATURE_NAMES } = await dist('answer/calibration.js');
const { brierScore, expectedCalibrationError, expectedCalibrationErrorFloor, selectiveAccuracy, aurc } = await dist('evaluate/metrics.js');

const topK = Number(values['top-k']);
const repeats = Number(values.repeats);
const nonNegative = (v) => v === undefined || (Number.isFinite(Number(v)) && Number(v) >= 0);
if (
  !Number.isFinite(topK) ||
  topK < 1 ||
  !Number.isInteger(repeats) ||
  repeats < 1 ||
  !nonNegative(values.l2) ||
  !nonNegative(values.knot) ||
  !['question', 'set'].includes(values.weighting)
) {
  console.error(
    '--top-k must be a positive number, --repeats a positive integer, --l2 and --knot numbers >= 0, --weighting question or set',
  );
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
  {
    // A book that covers its questions: the confidence must be honest there too, not only where answers are rare.
    name: 'meta',
    csv: path.join(bench, 'meta-cert-fund', 'dev.csv'),
    sources: [
      ...['基金法律法规.md', '证券投资基金基础知识.md', '私募股权投资基金基础知识.md'].map((f) => [
        path.join(bench, 'meta-cert-fund', 'notes', f),
        f,
      ]),
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
  for (const q of questions) {
    const parsed = questionFromParts(q.question, q.options);
    // `before` is the confidence as shipped.
    const r = await answerer.answer(parsed, values.mode);
    const letters = [...new Set(r.answer.replace(/[^A-H]/g, ''))].sort().join('');
    all.push({
      set: set.name,
      id: q.id,
      features: r.calibration ?? null,
      correct: letters !== '' && letters === q.answer,
      before: r.confidence,
      chance: 1 / Math.max(2, parsed.options.length),
    });
  }
  // The folder only when kept: a temporary one says nothing to a reader.
  console.log(
    `${set.name}: ${questions.length} questions answered in ${((Date.now() - t0) / 1000).toFixed(1)} s${values.keep ? ` (${root})` : ''}`,
  );
  answerer.close();
  // A temp root is this run's only: remove it (a --keep root stays for the next run).
  if (!values.keep) rmSync(root, { recursive: true, force: true });
}

if (values.dump) writeFileSync(values.dump, JSON.stringify(all));
const withFeatures = all.filter((r) => r.features);
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
const pct = (x) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);

// The most confident tenth of each group (cross-validation: of each fold, ranked by its own model, as one model ranks
// a new set), pooled: its share right and its mean stated confidence. Confidences are compared as shown (3 decimals);
// a tie across the cut counts with the tied answers' mean accuracy, not an arbitrary order among equals.
function topTenth(items) {
  const right = [];
  const stated = [];
  for (const g of new Set(items.map((x) => x.group))) {
    const group = items.filter((x) => x.group === g).map((x) => ({ ...x, confidence: Math.round(x.confidence * 1000) / 1000 }));
    const k = Math.max(1, Math.ceil(group.length / 10));
    const cut = [...group].sort((a, b) => b.confidence - a.confidence)[k - 1].confidence;
    const above = group.filter((x) => x.confidence > cut);
    const tied = group.filter((x) => x.confidence === cut);
    const tiedRight = tied.filter((x) => x.correct).length / tied.length;
    for (const x of above) (right.push(x.correct ? 1 : 0), stated.push(x.confidence));
    for (let i = above.length; i < k; i++) (right.push(tiedRight), stated.push(cut));
  }
  const avg = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return { right: avg(right), stated: avg(stated) };
}
function metrics(rows, conf, groupOf = () => 0) {
  const items = rows.map((r) => ({ confidence: conf(r), correct: r.correct, group: groupOf(r) }));
  const top = topTenth(items);
  return {
    n: items.length,
    acc: items.filter((x) => x.correct).length / items.length,
    'mean conf': items.reduce((sum, x) => sum + x.confidence, 0) / items.length,
    ECE15: expectedCalibrationError(items, 15),
    'ECE floor': expectedCalibrationErrorFloor(
      items.map((x) => x.confidence),
      15,
    ),
    Brier: brierScore(items),
    'acc@25%': selectiveAccuracy(items, 0.25),
    'acc@50%': selectiveAccuracy(items, 0.5),
    'acc@75%': selectiveAccuracy(items, 0.75),
    'acc@100%': selectiveAccuracy(items, 1),
    AURC: aurc(items),
    'top10% right': top.right,
    'top10% stated': top.stated,
  };
}
const isShare = (k) => k === 'acc' || k === 'mean conf' || k.startsWith('acc@') || k.startsWith('top10%');
function formatted(m) {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, k === 'n' ? v : isShare(k) ? pct(v) : v.toFixed(3)]));
}
// Mean ± standard deviation over the repeats of cross-validation.
function spread(list) {
  return Object.fromEntries(
    Object.keys(list[0]).map((k) => {
      const xs = list.map((m) => m[k]).filter((x) => x !== null);
      const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
      if (k === 'n') return [k, mean];
      return [k, isShare(k) ? `${(100 * mean).toFixed(1)}±${(100 * sd).toFixed(1)}` : `${mean.toFixed(3)}±${sd.toFixed(3)}`];
    }),
  );
}

// Knot and L2: the given ones, or chosen by repeated stratified 3-fold cross-validation (folds within each set) by
// log-loss, among the candidates whose cross-validated top tenth on FinanceIQ is right at least as often as it
// states minus 5 points (the target); every question weighted as --weighting says.
const examples = asExamples(withFeatures);
const fiqRows = withFeatures.map((r) => r.set === 'fiq');
const selection = selectCalibration(examples, {
  knots: values.knot === undefined ? [0.3, 0.35, 0.4, 0.45, 0.5] : [Number(values.knot)],
  l2s: values.l2 === undefined ? [0.0003, 0.001, 0.003] : [Number(values.l2)],
  folds: 3,
  repeats,
  seed: 1,
  strata: withFeatures.map((r) => r.set),
  constraint: {
    measure: (confidences, folds) => {
      const items = withFeatures.flatMap((r, i) =>
        fiqRows[i] ? [{ confidence: confidences[i], correct: r.correct, group: folds[i] }] : [],
      );
      const top = topTenth(items);
      return top.right - top.stated;
    },
    atLeast: -0.05,
  },
});
console.log(
  `\nknot and L2 by ${repeats} × 3-fold cross-validated log-loss (FinanceIQ top tenth right − stated ≥ −5 points; within 0.001 of the smallest log-loss, the most honest top tenth):`,
);
console.table(
  selection.candidates.map((c) => ({
    knot: c.knot,
    l2: c.l2,
    'CV log-loss': c.logLoss.toFixed(4),
    'fiq top10% right−stated': `${(100 * c.measure).toFixed(1)} pts`,
    admissible: c.admissible,
    chosen: c === selection.best ? '←' : '',
  })),
);
if (!selection.best.admissible) console.log('no candidate meets the top-tenth target: the smallest log-loss is chosen');
const { knot, l2 } = selection.best;
// The shipped model is fitted on every answered question of both sets; cross-validation says what new ones see.
const model = fitCalibration(examples, { l2, knot });
const after = (r) => (r.features ? calibratedConfidence(r.features, model) : r.chance);
console.log(
  `\nfitted on ${withFeatures.length} answers (${all.length - withFeatures.length} without a letter keep chance confidence), knot ${knot}, L2 ${l2}, weighting ${values.weighting}:`,
);
const coef = FEATURE_NAMES.map((n) => `    ${n}: ${model.coefficients[n].toFixed(4)},`).join('\n');
console.log(`{\n  intercept: ${model.intercept.toFixed(4)},\n  knot: ${knot},\n  coefficients: {\n${coef}\n  },\n}`);
const plain = (rows) => rows.map((r) => ({ features: r.features, correct: r.correct }));
console.log(`log-loss in-fit ${logLoss(plain(withFeatures), model).toFixed(4)}, cross-validated ${selection.best.logLoss.toFixed(4)}`);

const table = {};
for (const set of sets) {
  const rows = all.filter((r) => r.set === set.name);
  if (rows.length === 0) continue;
  table[`${set.name} before`] = formatted(metrics(rows, (r) => r.before));
  table[`${set.name} after, in-fit`] = formatted(metrics(rows, after));
  // Each repeat: every answered question predicted by the model fitted on the other two folds.
  const perRepeat = selection.confidences.map((cv, rep) => {
    const cvOf = new Map(withFeatures.map((r, i) => [r, { confidence: cv[i], fold: selection.folds[rep][i] }]));
    return metrics(
      rows,
      (r) => cvOf.get(r)?.confidence ?? r.chance,
      (r) => cvOf.get(r)?.fold ?? 0,
    );
  });
  table[`${set.name} after, CV ${repeats}×3 mean±sd`] = spread(perRepeat);
}
console.table(table);

console.log('\nabstention threshold → share answered, accuracy of answered (after, in-fit):');
for (const t of [0.2, 0.25, 0.28, 0.3, 0.31, 0.35, 0.4, 0.45, 0.5]) {
  const line = sets.map((set) => {
    const rows = all.filter((r) => r.set === set.name);
    const answered = rows.filter((r) => r.features && after(r) >= t);
    const withheld = rows.filter((r) => r.correct && !(r.features && after(r) >= t)).length;
    return `${set.name} ${pct(answered.length / rows.length)} answered, ${pct(answered.length ? answered.filter((r) => r.correct).length / answered.length : null)} right, ${withheld} right ones withheld`;
  });
  console.log(`  ${t.toFixed(2)}: ${line.join('; ')}`);
}

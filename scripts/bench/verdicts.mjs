#!/usr/bin/env node
// Per-option verdicts of the offline answerer, per set and mode: accuracy (abstentions as not right, and with every
// question given its best letter), gold-chapter hit@8 where the set names the chapter, ECE and mean confidence
// against accuracy, the share of options with a verdict other than not_found, for right answers the share whose
// deciding quote lies in the gold chapter (also among those whose right option the gold chapter writes at all), and
// the share of per-option quotes verbatim in their cited passage.
//
//   npm run build && node scripts/bench/verdicts.mjs ../shared/bench [--only sample,meta,financeiq] [--modes hybrid]
//     [--keep DIR] [--half all|even|odd] [--limit N] [--top-k 8] [--misses]
//
// Sets: the sample (rawdoc/validation.csv over rawdoc/); meta-cert-fund (<bench>/meta-cert-fund/dev.csv over its
// notes/, with the project's userdict.txt); FinanceIQ fund dev over fund-laws-combined.pdf, with abstention off (as
// the accuracy of every answered question). Each set is ingested into a temp root, or into DIR/<set> with --keep
// (reused when there). `--half even|odd` keeps the questions at even or odd positions (dev halves of the dev sets).
// `--misses` prints each right answer whose deciding quote lies outside the gold chapter: the quote with its headings,
// and a sentence of the gold chapter that writes the right option (whether the answerer read its passage), if any.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';

const repo = path.resolve(import.meta.dirname, '..', '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    only: { type: 'string', default: 'sample,meta,financeiq' },
    modes: { type: 'string', default: 'keyword,vector,hybrid' },
    keep: { type: 'string' },
    half: { type: 'string', default: 'all' },
    limit: { type: 'string' },
    'top-k': { type: 'string', default: '8' },
    misses: { type: 'boolean', default: false },
  },
});
const bench = path.resolve(positionals[0] ?? path.join(repo, '..', 'shared', 'bench'));
const dist = (p) => import(path.join(repo, 'dist', 'src', p));
const { loadConfig } = await dist('config/load-config.js');
const { runIngest } = await dist('ingest/run-ingest.js');
const { createAnswerer } = await dist('answer/create-answerer.js');
const { questionFromParts } = await dist('answer/parse-question.js');
const { flattenText, readerForm } = await dist('answer/evidence.js');
const { expectedCalibrationError } = await dist('evaluate/metrics.js');
const { exactForm } = await dist('answer/claim-forms.js');

const topK = Number(values['top-k']);
const limit = values.limit ? Number(values.limit) : Infinity;
const modes = values.modes.split(',');

async function rootFor(name, files) {
  const root = values.keep ? path.resolve(values.keep, name) : mkdtempSync(path.join(os.tmpdir(), `exam-copilot-verdicts-${name}-`));
  const ready = values.keep && existsSync(path.join(root, 'index'));
  if (!ready) {
    mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
    for (const [src, dest] of files) cpSync(src, path.join(root, 'rawdoc', dest), { recursive: true });
    const { config } = loadConfig({ root, env: {} });
    await runIngest({ root, config });
  }
  return { root, temporary: !values.keep };
}

function readQuestions(file) {
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true, bom: true });
  const kept = rows.filter((_, i) => values.half === 'all' || (values.half === 'even' ? i % 2 === 0 : i % 2 === 1));
  return kept.slice(0, limit).map((r) => ({
    id: r.id,
    question: r.question,
    options: Object.fromEntries(['A', 'B', 'C', 'D', 'E'].filter((l) => r[l]).map((l) => [l, r[l]])),
    answer: String(r.answer).trim().toUpperCase(),
    book: r.book ?? '',
    chapter: r.chapter ?? '',
  }));
}

/** Whether a chunk (or evidence item) lies in the gold book and chapter. */
function inGold(item, q) {
  if (!q.chapter) return false;
  const headings = [item.chapter ?? '', item.section ?? '', ...(item.headings ?? [])];
  const chapterOk = headings.some((h) => h.includes(q.chapter));
  return chapterOk && (!q.book || String(item.book ?? '').includes(q.book));
}

const pct = (n, d) => (d === 0 ? '   –  ' : `${((100 * n) / d).toFixed(1).padStart(5)}%`);

async function evaluate(name, root, questions, abstainBelow) {
  const { config } = loadConfig({ root, env: {} });
  if (abstainBelow !== undefined) config.answer = { ...config.answer, abstainBelow };
  const answerer = await createAnswerer({ root, config, answerer: 'offline', retrieval: true, topK, rerank: false, cache: false });
  // Whether the gold chapter writes the right option at all: where it does not (the fact is written only in another
  // chapter or book, or the option is the one a negated stem excludes), no deciding quote can lie in it.
  const chunks = readFileSync(path.join(root, 'data', 'chunks.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  const compact = chunks.map((chunk) => exactForm(flattenText(readerForm(chunk, chunk.text))).replace(/\s+/gu, ''));
  const goldWrites = (q) => {
    const option = exactForm(q.options[q.answer] ?? '').replace(/\s+/gu, '');
    return option !== '' && chunks.some((chunk, i) => inGold(chunk, q) && compact[i].includes(option));
  };
  // A miss: the deciding quote's place, and the first sentence of the gold chapter holding the right option as written.
  const printMiss = (q, item, r) => {
    const option = exactForm(q.options[q.answer] ?? '').replace(/\s+/gu, '');
    const read = new Set(r.context.map((h) => h.chunk.chunk_id));
    const gold = chunks.flatMap((chunk, i) => {
      if (!inGold(chunk, q) || option === '' || !compact[i].includes(option)) return [];
      const sentence = flattenText(readerForm(chunk, chunk.text))
        .split(/(?<=[。；;\n])/u)
        .find((x) => exactForm(x).replace(/\s+/gu, '').includes(option));
      // A table flattens into one long line: its first 160 characters are enough to find it.
      return sentence ? [{ chunk, sentence: sentence.trim().slice(0, 160) }] : [];
    })[0];
    console.log(`  miss ${q.id} [${q.book} ${q.chapter}] ${q.answer}: ${q.options[q.answer]}`);
    console.log(`    quoted   ${item.book} | ${(item.headings ?? []).join(' > ')}: ${item.quote}`);
    console.log(
      gold
        ? `    in gold  ${gold.chunk.headings.join(' > ')} (${read.has(gold.chunk.chunk_id) ? 'read' : 'not read'}): ${gold.sentence}`
        : '    in gold  (no sentence of the gold chapter writes the option as written)',
    );
  };
  const out = [];
  for (const mode of modes) {
    let right = 0;
    let rightAll = 0;
    let goldHit = 0;
    let goldSet = 0;
    let options = 0;
    let settled = 0;
    let quotes = 0;
    let verbatim = 0;
    let decidingInGold = 0;
    let rightWithGold = 0;
    let writtenInGold = 0;
    let decidingWhereWritten = 0;
    const cal = [];
    for (const q of questions) {
      const parsed = questionFromParts(q.question, q.options);
      const r = await answerer.answer(parsed, mode);
      const letter = r.answer || r.guess?.answer || '';
      const ok = letter === q.answer;
      if (r.answer === q.answer) right++;
      if (ok) rightAll++;
      cal.push({ confidence: r.answer ? r.confidence : (r.guess?.confidence ?? 0), correct: ok });
      if (q.chapter) {
        goldSet++;
        if (r.context.slice(0, 8).some((h) => inGold(h.chunk, q))) goldHit++;
      }
      const chunks = new Map(r.context.map((h) => [h.chunk.chunk_id, h.chunk]));
      for (const v of r.verdicts ?? []) {
        if (v.target !== 'option') continue;
        options++;
        if (v.verdict !== 'not_found') settled++;
      }
      for (const v of r.verdicts ?? []) {
        if (!v.evidence) continue;
        quotes++;
        const chunk = chunks.get(v.evidence.chunk_id);
        // Verbatim in the passage as its reader sees it (a note's quote is taken without its Markdown).
        const flat = chunk ? flattenText(readerForm(chunk, chunk.text)) : '';
        const parts = v.evidence.quote.split('…').filter((p) => p.trim() !== '');
        if (chunk && parts.every((p) => flat.includes(p.trim()))) verbatim++;
      }
      if (ok && q.chapter) {
        const deciding = (r.verdicts ?? []).find((v) => v.target === 'option' && letter.includes(v.label) && v.evidence);
        const item = deciding?.evidence ?? r.evidence[0];
        if (item) {
          rightWithGold++;
          if (inGold(item, q)) decidingInGold++;
          else if (values.misses) printMiss(q, item, r);
          if (goldWrites(q)) {
            writtenInGold++;
            if (inGold(item, q)) decidingWhereWritten++;
          }
        }
      }
    }
    const n = questions.length;
    const meanConf = cal.reduce((s, c) => s + c.confidence, 0) / Math.max(1, n);
    const ece = expectedCalibrationError(cal);
    out.push(
      `${name.padEnd(10)} ${mode.padEnd(8)} n ${String(n).padStart(3)}  accuracy ${pct(right, n)} (every question answered ${pct(rightAll, n)})  ` +
        `hit@8 ${pct(goldHit, goldSet)}  ECE ${ece.toFixed(3)}  mean conf ${meanConf.toFixed(3)} vs ${(rightAll / Math.max(1, n)).toFixed(3)}  ` +
        `settled options ${pct(settled, options)}  deciding quote in gold chapter ${pct(decidingInGold, rightWithGold)} ` +
        `(of the right answers the gold chapter writes, ${writtenInGold}/${rightWithGold}: ${pct(decidingWhereWritten, writtenInGold)})  ` +
        `quotes verbatim ${pct(verbatim, quotes)} (${quotes})`,
    );
    console.log(out.at(-1));
  }
  answerer.close();
  return out;
}

const only = new Set(values.only.split(','));
console.log(`offline answerer, top-k ${topK}, half ${values.half}; ECE over 10 bins, on the confidence of the letter or of the guess`);
if (only.has('sample')) {
  const { root, temporary } = await rootFor('sample', [[path.join(repo, 'rawdoc'), '.']]);
  await evaluate('sample', root, readQuestions(path.join(repo, 'rawdoc', 'validation.csv')));
  if (temporary) rmSync(root, { recursive: true, force: true });
}
if (only.has('meta')) {
  const notes = path.join(bench, 'meta-cert-fund', 'notes');
  const { readdirSync } = await import('node:fs');
  const files = readdirSync(notes).map((f) => [path.join(notes, f), f]);
  files.push([path.join(repo, 'rawdoc', 'userdict.txt'), 'userdict.txt']);
  const { root, temporary } = await rootFor('meta', files);
  await evaluate('meta-cert', root, readQuestions(path.join(bench, 'meta-cert-fund', 'dev.csv')));
  if (temporary) rmSync(root, { recursive: true, force: true });
}
if (only.has('financeiq')) {
  const pdf = path.join(bench, 'fund-laws', 'pdf-combined', 'fund-laws-combined.pdf');
  const { root, temporary } = await rootFor('financeiq', [
    [pdf, 'fund-laws-combined.pdf'],
    [path.join(repo, 'rawdoc', 'userdict.txt'), 'userdict.txt'],
  ]);
  await evaluate('financeiq', root, readQuestions(path.join(bench, 'financeiq-fund', 'dev.csv')), 0);
  if (temporary) rmSync(root, { recursive: true, force: true });
}

#!/usr/bin/env node
// STARD benchmark: real lay legal questions over the Civil Code. Ingests stard-civil/民法典.pdf into a temp root,
// runs every retrieval mode with the batch search code (`search --queries`), and prints the table next to a plain
// Okapi BM25 computed here over the same chunks in the same run, with the ratio.
// Usage: node scripts/bench/stard.mjs [../shared/bench] [--queries FILE] [--root DIR (reuse an ingested root)] [-k 10]
// Imports the compiled code from dist/ (run `npx tsc -p tsconfig.json` first). Writes only to temp folders.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, importDist } from './lib/bench-args.mjs';

const { opt, bench } = benchArgs();
const queriesFile = path.resolve(opt('--queries', path.join(bench, 'stard-civil', 'dev.tsv')));
const k = Number(opt('-k', '10'));
const keepRoot = opt('--root', null);
const MODES = ['keyword', 'vector', 'hybrid'];

const { loadConfig } = await importDist('src/config/load-config.js');
const { runIngest } = await importDist('src/ingest/run-ingest.js');
const { openRetriever } = await importDist('src/retrieve/open-retriever.js');
const { runBatchSearch } = await importDist('src/evaluate/run-batch-search.js');
const { loadQueries } = await importDist('src/evaluate/load-queries.js');
const { judgeRanking, retrievalScores } = await importDist('src/evaluate/retrieval-metrics.js');
const { Jieba } = await import('@node-rs/jieba');
const { dict } = await import('@node-rs/jieba/dict.js');

const root = keepRoot ? path.resolve(keepRoot) : mkdtempSync(path.join(os.tmpdir(), 'bench-stard-'));
const config = loadConfig({ root, env: {} }).config;
try {
  if (!existsSync(path.join(root, 'index'))) {
    mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
    cpSync(path.join(bench, 'stard-civil', '民法典.pdf'), path.join(root, 'rawdoc', '民法典.pdf'));
    const t0 = performance.now();
    const r = await runIngest({ root, config });
    console.log(`ingest: ${r.totals.pages} pages, ${r.totals.chunks} chunks, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const retriever = await openRetriever({ root, config });
  try {
    const report = await runBatchSearch({ root, config, file: queriesFile, modes: MODES, k, retriever });
    const chunks = retriever.chunks;

    // Plain Okapi BM25 (Robertson et al., TREC-3): k1 1.2, b 0.75, jieba search-mode words, a ten-word stoplist,
    // no field weights, idf = ln(1 + (N − n + 0.5)/(n + 0.5)) as Lucene. The reference the project must beat.
    const jieba = Jieba.withDict(dict);
    const STOP = new Set(['的', '了', '是', '在', '吗', '呢', '和', '与', '或', '有']);
    const tokens = (s) =>
      jieba
        .cutForSearch(s.normalize('NFKC').toLowerCase(), true)
        .map((t) => t.trim())
        .filter((t) => /[\p{L}\p{N}]/u.test(t) && !STOP.has(t));
    const K1 = 1.2;
    const B = 0.75;
    const docs = chunks.map((c) => {
      const tf = new Map();
      const ts = tokens(c.text);
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      return { chunk: c, tf, len: ts.length };
    });
    const avgLen = docs.reduce((s, d) => s + d.len, 0) / Math.max(1, docs.length);
    const df = new Map();
    for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    const idf = (t) => Math.log(1 + (docs.length - df.get(t) + 0.5) / (df.get(t) + 0.5));
    const bm25 = (query) => {
      // Every query word counts, repeats included (query term frequency, as Lucene sums its clauses).
      const terms = tokens(query).filter((t) => df.has(t));
      const scored = [];
      for (const d of docs) {
        let s = 0;
        for (const t of terms) {
          const f = d.tf.get(t);
          if (f) s += (idf(t) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.len) / avgLen));
        }
        if (s > 0) scored.push({ d, s });
      }
      return scored
        .sort((a, b) => b.s - a.s)
        .slice(0, 200)
        .map((x) => x.d.chunk.text);
    };
    const { queries } = await loadQueries(queriesFile);
    const judged = queries.filter((q) => q.relevant?.length).map((q) => judgeRanking(bm25(q.query), q.relevant));
    const ref = retrievalScores(judged);

    const f = (x) => x.toFixed(3);
    const avgChars = Math.round(chunks.reduce((s, c) => s + c.text.length, 0) / Math.max(1, chunks.length));
    console.log(
      `\n${path.relative(bench, queriesFile)}: ${report.judged} judged queries over ${chunks.length} chunks (avg ${avgChars} chars), k = ${k}, ${os.cpus().length} cores`,
    );
    console.log('| mode | R@1 | R@5 | R@10 | MRR@10 | nDCG@10 | R@4k | R@10 / BM25 | MRR@10 / BM25 | R@4k / BM25 | p50 ms | p95 ms |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    const row = (name, s, p50, p95) =>
      console.log(
        `| ${name} | ${f(s.recall['1'])} | ${f(s.recall['5'])} | ${f(s.recall['10'])} | ${f(s.mrr10)} | ${f(s.ndcg10)} | ${f(s.recallBudget)} | ${f(s.recall['10'] / ref.recall['10'])} | ${f(s.mrr10 / ref.mrr10)} | ${f(s.recallBudget / ref.recallBudget)} | ${p50} | ${p95} |`,
      );
    for (const m of report.modes) row(m.mode, m.scores, m.p50Ms.toFixed(1), m.p95Ms.toFixed(1));
    row('plain BM25 (reference)', ref, '', '');
  } finally {
    retriever.close();
  }
} finally {
  if (!keepRoot) rmSync(root, { recursive: true, force: true });
}

#!/usr/bin/env node
// Vector-mode retrieval quality of the offline embedder (LSA), on real lay questions and on the sample.
// Usage: node scripts/bench/vector.mjs ../shared/bench [--variants bm25:256:2,tfidf:256:2,log-entropy:256:2+3] [--skip sample]
//   STARD: ingests stard-civil/民法典.pdf into a temp root and scores `vector` mode on stard-civil/dev.tsv (k = 10):
//          a chunk is relevant when its text, normalised (NFKC, CJK radicals mapped to the standard character,
//          only letters and digits kept), contains any gold string of the query. Recall@1/5/10 and MRR@10.
//   sample: rawdoc/ with the gold evidence of rawdoc/validation.csv (query = stem + options), as retrieval.mjs judges it.
//   --variants: also refits LSA with other settings on the same chunks (weighting:dimension:ngram lengths joined by +)
//          and scores exact nearest neighbours, to compare settings without re-ingesting.
// Imports the compiled code from dist/ (run `npx tsc -p tsconfig.json` first). Writes only to temp folders.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { benchArgs, importDist, repo } from './lib/bench-args.mjs';

const { opt, bench, skip } = benchArgs();
const variants = opt('--variants', '')
  .split(',')
  .filter(Boolean)
  .map((v) => {
    const [weighting, dimension, ngrams] = v.split(':');
    return { label: v, weighting, dimension: Number(dimension ?? 256), ngrams: (ngrams ?? '2').split('+').filter(Boolean).map(Number) };
  });
const K = 10;

const { loadConfig } = await importDist('src/config/load-config.js');
const { runIngest } = await importDist('src/ingest/run-ingest.js');
const { analyzerFromConfig } = await importDist('src/text/analyzer-from-config.js');
const { normalizeForJudge } = await importDist('src/evaluate/retrieval-metrics.js');
const { loadQueries } = await importDist('src/evaluate/load-queries.js');
const { openRetriever } = await importDist('src/retrieve/open-retriever.js');
const { fitLsa } = await importDist('src/indexing/embedders/lsa-fit.js');
const { projectPaths } = await importDist('src/paths.js');

const pct = (x) => x.toFixed(3);

function metrics(ranks) {
  const at = (k) => ranks.filter((r) => r !== null && r <= k).length / ranks.length;
  const mrr = ranks.reduce((s, r) => s + (r !== null && r <= K ? 1 / r : 0), 0) / ranks.length;
  return { r1: at(1), r5: at(5), r10: at(10), mrr };
}
function row(label, m, n) {
  return `| ${label} | ${n} | ${pct(m.r1)} | ${pct(m.r5)} | ${pct(m.r10)} | ${pct(m.mrr)} |`;
}
function header(title) {
  console.log(`\n${title}\n| run | queries | R@1 | R@5 | R@10 | MRR@10 |\n|---|---|---|---|---|---|`);
}

/** Exact nearest neighbours of each query among the fitted corpus vectors, for variant comparisons. */
async function variantRanks(analyzer, texts, chunks, queries, isRelevant, v) {
  const { model, vectors } = fitLsa(analyzer, texts, { dimension: v.dimension, weighting: v.weighting, ngrams: v.ngrams });
  const ranks = [];
  for (const [qi, q] of queries.entries()) {
    const qv = await model.embedQuery(q);
    const scored = vectors.map((d, i) => {
      let s = 0;
      for (let c = 0; c < d.length; c++) s += d[c] * qv[c];
      return [s, i];
    });
    scored.sort((x, y) => y[0] - x[0] || x[1] - y[1]);
    const at = scored.slice(0, K).findIndex(([, i]) => isRelevant(qi, chunks[i]));
    ranks.push(at < 0 ? null : at + 1);
  }
  return ranks;
}

async function evaluate(title, root, queries, isRelevant) {
  const config = loadConfig({ root, env: {} }).config;
  const t0 = performance.now();
  const ingest = await runIngest({ root, config });
  const ingestMs = performance.now() - t0;
  header(
    `${title}: ${queries.length} queries, ${ingest.totals.chunks} chunks, vector mode, k = ${K} (ingest ${(ingestMs / 1000).toFixed(1)} s, fit+embed ${((ingest.index?.timingsMs?.embedder ?? 0) / 1000).toFixed(1)} s, ${ingest.index?.embedderId})`,
  );
  const retriever = await openRetriever({ root, config });
  try {
    // The vector searcher alone, then the full retrieval (exam-priority rule, deduplication of overlapping chunks).
    const ranks = { searcher: [], retriever: [] };
    for (const [qi, q] of queries.entries()) {
      const raw = await retriever.searchers.vector.search(q, K);
      const hits = await retriever.search(q, { mode: 'vector', k: K });
      for (const [name, list] of [
        ['searcher', raw],
        ['retriever', hits],
      ]) {
        const at = list.findIndex((h) => isRelevant(qi, h.chunk));
        ranks[name].push(at < 0 ? null : at + 1);
      }
    }
    console.log(row('vector searcher (FAISS top-k)', metrics(ranks.searcher), queries.length));
    console.log(row('vector retrieval (after dedupe of overlapping chunks)', metrics(ranks.retriever), queries.length));
  } finally {
    retriever.close();
  }
  if (variants.length > 0) {
    const paths = projectPaths(root);
    const chunks = readFileSync(paths.chunks, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const texts = readFileSync(paths.docsForIndex, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).text);
    const { analyzer } = analyzerFromConfig(root, config);
    for (const v of variants) {
      const t = performance.now();
      const ranks = await variantRanks(analyzer, texts, chunks, queries, isRelevant, v);
      console.log(row(`lsa ${v.label} (exact NN, ${((performance.now() - t) / 1000).toFixed(1)} s)`, metrics(ranks), queries.length));
    }
  }
}

// (1) STARD lay questions over the Civil Code.
{
  // The batch-search reader and the judge's normal form, as `search --queries` and stard.mjs judge.
  const { queries: rows } = await loadQueries(path.join(bench, 'stard-civil', 'dev.tsv'));
  const gold = rows.map((r) => (r.relevant ?? []).map(normalizeForJudge).filter(Boolean));
  const normCache = new Map();
  const isRelevant = (qi, chunk) => {
    let t = normCache.get(chunk.chunk_id);
    if (t === undefined) normCache.set(chunk.chunk_id, (t = normalizeForJudge(chunk.text)));
    return gold[qi].some((g) => t.includes(g));
  };
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-vector-stard-'));
  try {
    mkdirSync(path.join(root, 'rawdoc'));
    cpSync(path.join(bench, 'stard-civil', '民法典.pdf'), path.join(root, 'rawdoc', '民法典.pdf'));
    await evaluate(
      'STARD dev (stard-civil/dev.tsv over 民法典.pdf)',
      root,
      rows.map((r) => r.query),
      isRelevant,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// (2) The sample textbook's gold evidence.
if (!skip.has('sample')) {
  const rows = parse(readFileSync(path.join(repo, 'rawdoc', 'validation.csv')), { columns: true, bom: true, skip_empty_lines: true });
  const norm = (s) =>
    String(s)
      .normalize('NFKC')
      .replace(/[\s\p{P}\p{S}]/gu, '');
  const isRelevant = (qi, c) => {
    const r = rows[qi];
    if (r.figure_ref && c.figure_ref && norm(c.figure_ref) === norm(r.figure_ref)) return true;
    const page = Number(r.page);
    return c.book === r.book && /^\d+$/.test(c.page_start) && Number(c.page_start) <= page && page <= Number(c.page_end || c.page_start);
  };
  const root = mkdtempSync(path.join(os.tmpdir(), 'bench-vector-sample-'));
  try {
    cpSync(path.join(repo, 'rawdoc'), path.join(root, 'rawdoc'), { recursive: true });
    const queries = rows.map((r) => [r.question, `A.${r.A}`, `B.${r.B}`, `C.${r.C}`, `D.${r.D}`].join(' '));
    await evaluate('sample gold evidence (rawdoc/validation.csv)', root, queries, isRelevant);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

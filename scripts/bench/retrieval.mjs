#!/usr/bin/env node
// Retrieval benchmark: Recall@1/5/10 + MRR on the sample's gold evidence, an answer-text proxy on the
// fund-laws corpus with FinanceIQ questions, known-item look-ups of article phrases, and search latency p50/p95 at 1k/10k/100k chunks (faiss vs js).
// Usage: node scripts/bench/retrieval.mjs [--bench ../shared/bench] [--scales 1000,10000,100000] [--skip sample,laws,latency]
// Imports the compiled code from dist/ (run `npx tsc -p tsconfig.json` first). Writes only to temp folders.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { benchArgs, importDist, repo } from './lib/bench-args.mjs';
import { searchLatency } from './lib/search-latency.mjs';

const { opt, bench, skip } = benchArgs();
const scales = opt('--scales', '1000,10000,100000').split(',').map(Number);
const MODES = ['keyword', 'vector', 'hybrid'];

const { loadConfig } = await importDist('src/config/load-config.js');
const { runIngest } = await importDist('src/ingest/run-ingest.js');
const { buildIndexes } = await importDist('src/indexing/build-indexes.js');
const { analyzerFromConfig } = await importDist('src/text/analyzer-from-config.js');
const { openRetriever } = await importDist('src/retrieve/open-retriever.js');
const { writeFtsIndex } = await importDist('src/indexing/fts-writer.js');
const { applyFaissThreadDefaults } = await importDist('src/indexing/load-faiss.js');
// As the CLI entry does: FAISS's thread libraries read these when they load.
applyFaissThreadDefaults(process.env);
const { createVectorIndex } = await importDist('src/indexing/vector-index.js');
const { loadLsa } = await importDist('src/indexing/embedders/lsa-store.js');
const { readVectorMeta, writeVectorMeta } = await importDist('src/indexing/vector-meta.js');
const { projectPaths } = await importDist('src/paths.js');

const tempRoot = () => mkdtempSync(path.join(os.tmpdir(), 'bench-retrieval-'));
const config = (root) => loadConfig({ root, env: {} }).config;
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const questionText = (r) => [r.question, `A.${r.A}`, `B.${r.B}`, `C.${r.C}`, `D.${r.D}`].join(' ');
const norm = (s) =>
  String(s)
    .normalize('NFKC')
    .replace(/[\s\p{P}\p{S}]/gu, '');
function table(title, header, rows) {
  console.log(`\n${title}\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

/** Chunks from the Markdown laws: one chunk per article (第X条), with 章/节 as chapter/section (stopgap when PDF ingest fails). */
function markdownChunks(mdDir) {
  const chunks = [];
  const docs = [];
  for (const file of readdirSync(mdDir)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const book = file.replace(/\(.*$/, '').replace(/\.md$/, '');
    const body = readFileSync(path.join(mdDir, file), 'utf8').split('<!-- INFO END -->').pop();
    let chapter = '';
    let section = '';
    let seq = 0;
    let offset = 0;
    let current = null;
    const flush = () => {
      if (!current) return;
      const text = current.text.trim();
      const c = {
        chunk_id: `${book}-${seq}`,
        book,
        chapter: current.chapter,
        section: current.section,
        subsection: '',
        figure_ref: '',
        page_start: '',
        page_end: '',
        pdf_page_start: null,
        pdf_page_end: null,
        chunk_type: 'text',
        exam_priority: 1,
        source: `md/${file}`,
        char_start: current.start,
        char_end: current.start + text.length,
        seq: seq++,
        text,
      };
      chunks.push(c);
      docs.push({ chunk_id: c.chunk_id, text: `${[book, c.chapter, c.section].filter(Boolean).join(' | ')}\n${text}` });
      current = null;
    };
    for (const line of body.split('\n')) {
      const t = line.trim();
      if (t.startsWith('## ')) {
        flush();
        chapter = t.slice(3);
        section = '';
      } else if (t.startsWith('### ')) {
        flush();
        section = t.slice(4);
      } else if (/^第[一二三四五六七八九十百零]+条/.test(t)) {
        flush();
        current = { chapter, section, start: offset, text: t };
      } else if (t && current) current.text += `\n${t}`;
      offset += line.length + 1;
    }
    flush();
  }
  return { chunks, docs };
}

async function ingestRoot(root, label) {
  const r = await runIngest({ root, config: config(root) });
  console.log(
    `${label}: ingest ${r.totals.files} files (${r.totals.failed} failed), ${r.totals.chunks} chunks, index ${JSON.stringify(r.index)}`,
  );
  return r;
}

async function evaluateModes(root, rows, isHit, k = 10) {
  const retriever = await openRetriever({ root, config: config(root) });
  const out = {};
  try {
    for (const mode of MODES) {
      const ranks = [];
      for (const row of rows) {
        const hits = await retriever.search(questionText(row), { mode, k });
        const at = hits.findIndex((h) => isHit(row, h.chunk, hits));
        ranks.push(at < 0 ? null : at + 1);
      }
      out[mode] = ranks;
    }
  } finally {
    retriever.close();
  }
  return out;
}

// (1) The sample textbook with gold evidence.
if (!skip.has('sample')) {
  const root = tempRoot();
  try {
    cpSync(path.join(repo, 'rawdoc'), path.join(root, 'rawdoc'), { recursive: true });
    const ing = await ingestRoot(root, 'sample');
    const rows = parse(readFileSync(path.join(repo, 'rawdoc', 'validation.csv')), { columns: true, bom: true, skip_empty_lines: true });
    const isGold = (row, c) => {
      if (row.figure_ref && c.figure_ref && norm(c.figure_ref) === norm(row.figure_ref)) return true;
      const page = Number(row.page);
      const a = Number(c.page_start);
      const b = Number(c.page_end || c.page_start);
      return c.book === row.book && /^\d+$/.test(c.page_start) && a <= page && page <= b;
    };
    if (ing.totals.chunks === 0) console.log('sample: no chunks, skipped');
    else {
      const ranks = await evaluateModes(root, rows, isGold);
      table(
        `Sample textbook (${rows.length} questions with gold evidence; query = stem + options; ${ing.totals.chunks} chunks${ing.totals.failed ? `, ${ing.totals.failed} source files FAILED to ingest` : ''})`,
        ['mode', 'R@1', 'R@5', 'R@10', 'MRR@10'],
        MODES.map((m) => {
          const r = ranks[m];
          const at = (k) => pct(r.filter((x) => x !== null && x <= k).length / r.length);
          return [m, at(1), at(5), at(10), (r.reduce((s, x) => s + (x ? 1 / x : 0), 0) / r.length).toFixed(3)];
        }),
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// (2) fund-laws + FinanceIQ: does the top-k evidence contain the correct option's text?
let lawsCorpus = null;
if (!skip.has('laws') || !skip.has('latency')) {
  const root = tempRoot();
  try {
    mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
    cpSync(path.join(repo, 'rawdoc', 'userdict.txt'), path.join(root, 'rawdoc', 'userdict.txt'));
    for (const f of readdirSync(path.join(bench, 'fund-laws', 'pdf')))
      cpSync(path.join(bench, 'fund-laws', 'pdf', f), path.join(root, 'rawdoc', f));
    let ing = null;
    try {
      ing = await ingestRoot(root, 'fund-laws (PDF ingest)');
    } catch (error) {
      console.log(`fund-laws: PDF ingest failed (${error.message}); using the Markdown stopgap`);
    }
    if (!ing || ing.totals.chunks < 50) {
      console.log('fund-laws: STOPGAP: chunks made from fund-laws/md/ (one per article), indexed with buildIndexes');
      lawsCorpus = markdownChunks(path.join(bench, 'fund-laws', 'md'));
      await buildIndexes({
        root,
        config: config(root),
        chunks: lawsCorpus.chunks,
        docs: lawsCorpus.docs,
        indexDir: projectPaths(root).index,
      });
    } else {
      const chunks = readFileSync(projectPaths(root).chunks, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const docs = readFileSync(projectPaths(root).docsForIndex, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      lawsCorpus = { chunks, docs };
    }
    if (!skip.has('laws')) {
      const rows = parse(readFileSync(path.join(bench, 'financeiq-fund', 'dev.csv')), { columns: true, bom: true, skip_empty_lines: true });
      const bigrams = (s) => {
        const out = new Set();
        for (let i = 0; i + 1 < s.length; i++) out.add(s.slice(i, i + 2));
        return out;
      };
      // k hits, or (k = null) the first 4,000 characters of ranked text, the equal evidence budget of R@4k.
      const contains = (row, hits, k) => {
        const answer = norm(row[row.answer] ?? '');
        if (!answer) return false;
        const ranked = hits
          .slice(0, k ?? hits.length)
          .map((h) => h.chunk.text)
          .join('');
        const evidence = norm(k === null ? ranked.slice(0, 4000) : ranked);
        if (evidence.includes(answer)) return true;
        const b = bigrams(answer);
        if (b.size === 0) return false;
        let n = 0;
        for (const x of b) if (evidence.includes(x)) n++;
        return n / b.size >= 0.6;
      };
      const retriever = await openRetriever({ root, config: config(root) });
      const result = [];
      try {
        for (const mode of MODES) {
          let k5 = 0;
          let k10 = 0;
          let budget = 0;
          for (const row of rows) {
            const hits = await retriever.search(questionText(row), { mode, k: 100 });
            if (contains(row, hits, 5)) k5++;
            if (contains(row, hits, 10)) k10++;
            if (contains(row, hits, null)) budget++;
          }
          result.push([mode, pct(k5 / rows.length), pct(k10 / rows.length), pct(budget / rows.length)]);
        }
      } finally {
        retriever.close();
      }
      table(
        `fund-laws (${lawsCorpus.chunks.length} chunks) × FinanceIQ dev (${rows.length} questions): correct option's text in top-k evidence and in the first 4,000 characters (proxy; no gold evidence)`,
        ['mode', 'top-5', 'top-10', '4k chars'],
        result,
      );
      // Known items: a reader remembers a 30-character phrase of an article and looks it up. Every 10th article of
      // fund-laws/md (after its 第X条 number); a hit is a chunk holding the phrase's first 15 normalised characters.
      const articles = markdownChunks(path.join(bench, 'fund-laws', 'md')).chunks.filter((c, i) => i % 10 === 0);
      const items = articles
        .map((c) => c.text.replace(/^第[一二三四五六七八九十百零]+条\s*/, '').slice(0, 30))
        .filter((q) => norm(q).length >= 20);
      const known = [];
      const kr = await openRetriever({ root, config: config(root) });
      try {
        for (const mode of MODES) {
          const ranks = [];
          for (const q of items) {
            const key = norm(q).slice(0, 15);
            const hits = await kr.search(q, { mode, k: 10 });
            const at = hits.findIndex((h) => norm(h.chunk.text).includes(key));
            ranks.push(at < 0 ? null : at + 1);
          }
          const at = (k) => pct(ranks.filter((x) => x !== null && x <= k).length / ranks.length);
          known.push([mode, at(1), at(10), (ranks.reduce((s, x) => s + (x ? 1 / x : 0), 0) / ranks.length).toFixed(3)]);
        }
      } finally {
        kr.close();
      }
      table(
        `fund-laws known items (${items.length} phrases of 30 characters from every 10th article)`,
        ['mode', 'R@1', 'R@10', 'MRR@10'],
        known,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// (3) Latency at scale: the laws corpus replicated with perturbations.
if (!skip.has('latency') && lawsCorpus) {
  const questions = parse(readFileSync(path.join(bench, 'financeiq-fund', 'dev.csv')), { columns: true, bom: true }).map(questionText);
  const queries = questions.slice(0, 60);
  // Warmed with 100 other questions, none of the measured ones (see searchLatency).
  const warmUp = questions.slice(100, 200);
  const rows = [];
  for (const n of scales) {
    const root = tempRoot();
    try {
      mkdirSync(path.join(root, 'rawdoc'), { recursive: true });
      cpSync(path.join(repo, 'rawdoc', 'userdict.txt'), path.join(root, 'rawdoc', 'userdict.txt'));
      const cfg = config(root);
      cfg.vector.backend = 'faiss';
      // Fit LSA once on the real corpus (as ingest does), then add synthetic copies embedded with that model.
      const base = lawsCorpus;
      await buildIndexes({ root, config: cfg, chunks: base.chunks, docs: base.docs, indexDir: projectPaths(root).index });
      const { analyzer } = analyzerFromConfig(root, cfg);
      const paths = projectPaths(root);
      const lsa = loadLsa(path.join(paths.faissDir, 'embedder'), analyzer);
      const chunks = [];
      const texts = [];
      for (let i = 0; i < n; i++) {
        const src = base.chunks[i % base.chunks.length];
        const copy = Math.floor(i / base.chunks.length);
        // Perturb: rotate the sentences and drop one, so copies are not identical texts.
        const parts = src.text.split(/(?<=[。；])/).filter(Boolean);
        const rot = parts.length > 1 ? [...parts.slice(copy % parts.length), ...parts.slice(0, copy % parts.length)] : parts;
        const text = copy === 0 ? src.text : rot.filter((_, j) => parts.length < 3 || j !== copy % parts.length).join('');
        chunks.push({ ...src, chunk_id: `${src.chunk_id}#${copy}`, source: `${src.source}#${copy}`, text });
        texts.push(`${src.book} | ${src.chapter}\n${text}`);
      }
      const t0 = performance.now();
      writeFtsIndex(paths.ftsDb, chunks, analyzer);
      const vectors = texts.map((t) => lsa.embed(t));
      const index = await createVectorIndex({ dimension: lsa.dimension, kind: 'flat', backend: 'faiss' });
      index.add(vectors);
      index.write(path.join(paths.faissDir, 'index.faiss'));
      const { meta } = readVectorMeta(paths.faissDir);
      writeVectorMeta(
        paths.faissDir,
        { ...meta, count: n },
        chunks.map((c) => c.chunk_id),
      );
      const buildMs = performance.now() - t0;
      for (const backend of ['faiss', 'js']) {
        for (const mode of MODES) {
          const { p50, p95 } = await searchLatency({ root, config: cfg, backend, mode, warmUp, queries });
          rows.push([n, backend, mode, p50.toFixed(1), p95.toFixed(1), (buildMs / 1000).toFixed(1)]);
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  table(
    `search latency (ms, ${queries.length} FinanceIQ questions, k=10, ${os.cpus().length} cores; synthetic scale-up of fund-laws)`,
    ['chunks', 'backend', 'mode', 'p50', 'p95', 'build s'],
    rows,
  );
}

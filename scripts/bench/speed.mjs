#!/usr/bin/env node
// Speed benchmark, in one run:
//   1. one offline `ask` vs the CLI's own start-up (`--version`), whole processes, paired, median of 7;
//   2. `eval` answers/s: the 436 FinanceIQ questions over fund-laws-combined.pdf in keyword, vector and hybrid
//      (offline answerer); the run files are kept in the printed folder so two runs can be diffed;
//   3. ingest of the whole law library (1,512 Markdown files): wall time and peak RSS of the process;
//   4. search latency p50/p95 per mode on that library with the STARD dev queries (a loop in one process, k = 10), next
//      to LanceDB's full-text search over the same units and the same jieba tokens (the ratios printed);
//   5. building the indexes from the library's units (buildIndexes: keyword index, LSA fit and embedding, vectors) next
//      to building LanceDB's FTS index over the same tokens; `--build-units N` repeats the units up to N (e.g. 100000);
//   6. one offline ask on the library vs `--version` (as step 1; needs the library root).
// Usage: node scripts/bench/speed.mjs ../shared/bench [--skip ask,eval,library,search,build,library-ask] [--runs 7]
//   [--library-root DIR] [--build-units N] [--eval-runs-before DIR] [--keep]
//   --library-root: search an already ingested library root instead of the one step 3 builds.
//   --eval-runs-before: the eval run folder of an earlier run (kept with --keep): counts the records whose prediction
//     differs (every field but latency_ms and finished_at), to show that a speed change kept the answers.
// Imports the compiled code from dist/ (run `npx tsc -p tsconfig.json` first). Writes only to temp folders.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { benchArgs, importDist, repo } from './lib/bench-args.mjs';
import { indexedTokens, lanceFts } from './lib/lancedb-fts.mjs';
import { searchLatency } from './lib/search-latency.mjs';

const { args, opt, bench, skip } = benchArgs();
// As bin/exam-copilot.js does, before FAISS loads (here and in the ingest child, which inherits the environment):
// without it libgomp's spin-waiting turns a sub-millisecond HNSW query into tens of milliseconds on a busy machine.
const { applyFaissThreadDefaults } = await importDist('src/indexing/load-faiss.js');
applyFaissThreadDefaults(process.env);
const runs = Number(opt('--runs', '7'));
const bin = path.join(repo, 'bin', 'exam-copilot.js');
const env = { ...process.env, NO_COLOR: '1', EXAM_COPILOT_LLM_MODEL: '', OPENAI_MODEL: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };

const { loadConfig } = await importDist('src/config/load-config.js');
const { runIngest } = await importDist('src/ingest/run-ingest.js');
const { runEval } = await importDist('src/evaluate/run-eval.js');
const { percentile } = await importDist('src/evaluate/metrics.js');

const median = (xs) => percentile(xs, 0.5);
const out = mkdtempSync(path.join(os.tmpdir(), 'bench-speed-'));
console.log(
  `exam-copilot speed benchmark: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, temp ${out}`,
);
const results = [];

// A root holding fund-laws-combined.pdf, for ask and eval.
const fundRoot = path.join(out, 'fund-laws');
if (!skip.has('ask') || !skip.has('eval')) {
  mkdirSync(path.join(fundRoot, 'rawdoc'), { recursive: true });
  cpSync(path.join(bench, 'fund-laws', 'pdf-combined', 'fund-laws-combined.pdf'), path.join(fundRoot, 'rawdoc', 'fund-laws-combined.pdf'));
  cpSync(path.join(repo, 'rawdoc', 'userdict.txt'), path.join(fundRoot, 'rawdoc', 'userdict.txt'));
  const t = performance.now();
  const r = await runIngest({ root: fundRoot, config: { ...loadConfig({ root: fundRoot, env: {} }).config, llm: null } });
  console.log(`fund-laws-combined.pdf: ${r.totals.chunks} chunks, ingest ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

// (1) ask vs --version, paired whole-process runs.
const question =
  '基金托管人应当履行的职责不包括（ ）。A.安全保管基金财产 B.办理与基金托管业务活动有关的信息披露事项 C.对基金财务会计报告出具意见 D.决定基金收益分配方案';
function askVersusVersion(root, label) {
  const wall = (argv) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [bin, ...argv], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    return performance.now() - t;
  };
  wall(['--version']);
  wall(['--root', root, 'ask', '--answerer', 'offline', question]); // warm the file cache
  const version = [];
  const ask = [];
  for (let i = 0; i < runs; i++) {
    version.push(wall(['--version']));
    ask.push(wall(['--root', root, 'ask', '--answerer', 'offline', question]));
  }
  const ratios = ask.map((a, i) => a / version[i]);
  results.push({ measure: `ask ${label} (offline, hybrid) wall ms, median`, value: median(ask).toFixed(0) });
  results.push({ measure: '--version wall ms, median', value: median(version).toFixed(0) });
  results.push({ measure: `ask ${label} / --version (median of paired ratios)`, value: median(ratios).toFixed(2) });
}
if (!skip.has('ask')) askVersusVersion(fundRoot, 'on fund-laws-combined.pdf');

// (2) eval answers/s.
if (!skip.has('eval')) {
  const config = { ...loadConfig({ root: fundRoot, env: {} }).config, llm: null };
  const runDir = path.join(out, 'eval-runs');
  const t = performance.now();
  const report = await runEval({
    root: fundRoot,
    config,
    file: path.join(bench, 'financeiq-fund', 'dev.csv'),
    modes: ['keyword', 'vector', 'hybrid'],
    answerer: 'offline',
    runDir,
  });
  const seconds = (performance.now() - t) / 1000;
  const answers = report.total * report.modes.length;
  results.push({
    measure: `eval answers/s (${report.total} questions × ${report.modes.length} modes, ${answers} answers in ${seconds.toFixed(1)} s)`,
    value: (answers / seconds).toFixed(1),
  });
  results.push({ measure: 'eval accuracy keyword / vector / hybrid', value: report.modes.map((m) => m.accuracy.toFixed(3)).join(' / ') });
  console.log(`eval run files (diff them across versions, ignoring latency_ms and finished_at): ${runDir}`);
  const before = opt('--eval-runs-before', '');
  if (before) {
    const records = (dir, mode) =>
      new Map(
        readFileSync(path.join(dir, `dev.${mode}.jsonl`), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const { latency_ms: _l, finished_at: _f, ...rest } = JSON.parse(line);
            return [rest.id, JSON.stringify(rest)];
          }),
      );
    let compared = 0;
    let differ = 0;
    for (const mode of ['keyword', 'vector', 'hybrid']) {
      const [a, b] = [records(before, mode), records(runDir, mode)];
      for (const [id, r] of a) {
        compared++;
        if (b.get(id) !== r) differ++;
      }
      differ += [...b.keys()].filter((id) => !a.has(id)).length;
    }
    results.push({ measure: `eval records differing from ${before} (of ${compared})`, value: String(differ) });
  }
}

// (3) library ingest: a separate process, so its peak RSS is its own.
const libRoot = path.resolve(opt('--library-root', path.join(out, 'law-library')));
if (!skip.has('library') && !args.includes('--library-root')) {
  mkdirSync(libRoot, { recursive: true });
  const wrapper = `process.on('exit', () => process.stderr.write('\\nPEAK_RSS_KB ' + process.resourceUsage().maxRSS + '\\n'));
const { main } = await import(${JSON.stringify(path.join(repo, 'dist/src/cli/main.js'))});
await main([process.argv[0], 'exam-copilot', '--root', ${JSON.stringify(libRoot)}, 'ingest', ${JSON.stringify(path.join(bench, 'law-library'))}]);`;
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', wrapper], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - t) / 1000;
  const rss = Number(/PEAK_RSS_KB (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const summary = /total\s+\S+ failed\s+(\d+)\s+(\d+)/.exec(r.stdout);
  results.push({ measure: `library ingest wall s (${summary ? `${summary[2]} chunks` : `exit ${r.status}`})`, value: seconds.toFixed(1) });
  results.push({ measure: 'library ingest peak RSS MB', value: (rss / 1024).toFixed(0) });
  if (r.status !== 0 && r.status !== 3) console.log(r.stderr.slice(-2000));
}

// (4) search latency on the library, STARD dev queries.
if (!skip.has('search') && existsSync(path.join(libRoot, 'index'))) {
  const lines = readFileSync(path.join(bench, 'stard-civil', 'dev.tsv'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1);
  const queries = lines.map((l) => l.split('\t')[1]);
  // Warmed with 100 FinanceIQ stems, none of the measured questions (see searchLatency).
  const warmUp = parse(readFileSync(path.join(bench, 'financeiq-fund', 'dev.csv')), { columns: true, bom: true })
    .slice(0, 100)
    .map((r) => [r.question, r.A, r.B, r.C, r.D].join(' '));
  const config = loadConfig({ root: libRoot, env: {} }).config;
  const latency = {};
  for (const mode of ['keyword', 'vector', 'hybrid']) {
    const { p50, p95, chunks } = await searchLatency({ root: libRoot, config, mode, warmUp, queries });
    latency[mode] = { p50, p95 };
    results.push({
      measure: `search ${mode} p50 / p95 ms (${queries.length} STARD queries, ${chunks} chunks)`,
      value: `${p50.toFixed(1)} / ${p95.toFixed(1)}`,
    });
  }
  // LanceDB over the units' stored jieba tokens, queried with the analyzer's tokens of the same questions.
  const { analyzerFromConfig } = await importDist('src/text/analyzer-from-config.js');
  const { analyzer } = analyzerFromConfig(libRoot, config);
  const tokens = (q) => analyzer.tokens(q).join(' ');
  const { p50, p95 } = lanceFts(indexedTokens(path.join(libRoot, 'index', 'sqlite_fts.db')), warmUp.map(tokens), queries.map(tokens));
  results.push({ measure: 'LanceDB FTS p50 / p95 ms (same units, same tokens)', value: `${p50.toFixed(1)} / ${p95.toFixed(1)}` });
  for (const mode of ['keyword', 'vector', 'hybrid']) {
    results.push({
      measure: `search ${mode} / LanceDB FTS, p50 / p95`,
      value: `${(latency[mode].p50 / p50).toFixed(1)} / ${(latency[mode].p95 / p95).toFixed(1)}`,
    });
  }
}

// (5) building the indexes from the library's units, vs LanceDB's FTS index over the same tokens.
if (!skip.has('build') && existsSync(path.join(libRoot, 'data', 'chunks.jsonl'))) {
  const { buildIndexes } = await importDist('src/indexing/build-indexes.js');
  const readJsonl = (file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  let chunks = readJsonl(path.join(libRoot, 'data', 'chunks.jsonl'));
  let docs = readJsonl(path.join(libRoot, 'data', 'docs_for_index.jsonl'));
  const units = Number(opt('--build-units', String(chunks.length)));
  // Ingest's keyword index thread reads the chunks from their JSON-lines file: the library's own, or the repeated
  // units written out below.
  let chunksFile = path.join(libRoot, 'data', 'chunks.jsonl');
  if (units !== chunks.length) {
    // Repeated units get ids of their own (a larger corpus of the same text).
    const cycle = (xs) =>
      Array.from({ length: units }, (_, i) =>
        i < xs.length ? xs[i] : { ...xs[i % xs.length], chunk_id: `${xs[i % xs.length].chunk_id}~${Math.floor(i / xs.length)}` },
      );
    chunks = cycle(chunks);
    docs = cycle(docs);
    chunksFile = path.join(out, 'build-chunks.jsonl');
    writeFileSync(chunksFile, chunks.map((c) => `${JSON.stringify(c)}\n`).join(''));
  }
  const config = { ...loadConfig({ root: libRoot, env: {} }).config, llm: null };
  const indexDir = path.join(out, 'build-index');
  const t = performance.now();
  // As ingest builds them: the keyword index on its own thread when there is a second core.
  const keywordThread = os.availableParallelism() > 1 ? { chunksFile } : undefined;
  const built = await buildIndexes({ root: libRoot, config, chunks, docs, indexDir, keywordThread });
  const seconds = (performance.now() - t) / 1000;
  const ms = built.timingsMs;
  results.push({
    measure: `build ${units} units s (keyword ${(ms.fts / 1000).toFixed(1)}, LSA fit ${(ms.embedder / 1000).toFixed(1)}, embed ${(ms.embed / 1000).toFixed(1)}, vectors ${(ms.vector / 1000).toFixed(1)})`,
    value: seconds.toFixed(1),
  });
  const texts = indexedTokens(path.join(indexDir, 'sqlite_fts.db'));
  chunks = docs = null;
  const lance = lanceFts(texts);
  results.push({ measure: `LanceDB FTS build ${units} units s`, value: lance.seconds.toFixed(1) });
  results.push({ measure: 'build / LanceDB build', value: (seconds / lance.seconds).toFixed(1) });
}

// (6) one offline ask on the library.
if (!skip.has('library-ask') && existsSync(path.join(libRoot, 'index'))) askVersusVersion(libRoot, 'on the law library');

console.log(`\n| measure | value |\n|---|---|`);
for (const r of results) console.log(`| ${r.measure} | ${r.value} |`);
if (!args.includes('--keep')) rmSync(out, { recursive: true, force: true });
else console.log(`kept ${out}`);

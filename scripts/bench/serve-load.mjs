#!/usr/bin/env node
// Load on `serve` across re-ingests: a scratch root built from the sample (rawdoc/ of the repo), the built CLI's
// `serve` on 127.0.0.1, N concurrent clients asking (offline, every retrieval mode) and searching while
// `ingest --force` swaps the index `--swaps` times, and one slow LLM question (a scripted OpenAI-compatible server in
// this script, each reply delayed `--llm-delay` ms) in flight across the first swap. Prints requests, failures, 5xx,
// p50/p95 latency, the slow question's outcome, and the server's RSS before the load, at its end and after it settled.
// Target: 0 failed requests, and an RSS that levels off: the caches (searches, tokens, passages) and the V8 heap keep
// the server near its working size after the load, but a generation left open by a swap would add to it at every swap.
//
// Usage: node scripts/bench/serve-load.mjs [--clients 4] [--seconds 40] [--swaps 2] [--llm-delay 7000]
// Needs a build (npm run build). Everything listens on 127.0.0.1; the run is bounded by --seconds plus the ingests.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(repo, 'bin', 'exam-copilot.js');
const args = process.argv.slice(2);
const numberFlag = (name, fallback, max, min = 1) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`${name} needs a whole number from ${min} to ${max}, got "${args[i + 1]}"`);
    process.exit(2);
  }
  return n;
};
const clients = numberFlag('--clients', 4, 64);
const seconds = numberFlag('--seconds', 40, 600);
// 0 swaps measures the same load without re-ingests, for comparison.
const swaps = numberFlag('--swaps', 2, 10, 0);
const llmDelay = numberFlag('--llm-delay', 7000, 60_000);
if (!existsSync(path.join(repo, 'dist', 'src', 'cli', 'main.js'))) {
  console.error('no build: run `npm run build` (or npx tsc -p tsconfig.json) first');
  process.exit(2);
}

/** Questions (stem with options) and search queries from the sample's validation set. */
function sampleInputs() {
  const lines = readFileSync(path.join(repo, 'rawdoc', 'validation.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1);
  const questions = [];
  for (const line of lines.slice(0, 40)) {
    const [, stem, a, b, c, d] = line.split(',');
    if (stem && a && b) questions.push(`${stem} A.${a} B.${b}${c ? ` C.${c}` : ''}${d ? ` D.${d}` : ''}`);
  }
  return { questions, queries: questions.map((q) => q.slice(0, 16)) };
}

/** A scripted OpenAI-compatible endpoint whose every chat reply takes `delay` ms: rerank `[1]`, answer A citing [1]. */
async function startSlowLlm(initialDelay) {
  let calls = 0;
  let delay = initialDelay;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls++;
      const rerank = /Rank the \d+ passages/.test(body);
      if (args.includes('--verbose'))
        console.log(`  llm call ${calls}: ${rerank ? 'rerank' : 'answer'} ${body.slice(0, 200).replace(/\s+/g, ' ')}`);
      const content = rerank
        ? '[1]'
        : JSON.stringify({ answer: 'A', confidence: 0.7, evidence_ids: [1], status: 'answered', explanation: 'scripted' });
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'load',
            object: 'chat.completion',
            created: 0,
            model: 'scripted',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      }, delay);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    calls: () => calls,
    setDelay: (ms) => (delay = ms),
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

function runCli(root, cliArgs, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [cli, '--root', root, ...cliArgs], { env: { ...process.env, ...env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    child.on('exit', (code) => resolve({ code, stderr, ms: Date.now() - started }));
  });
}

/** The server's open files under the root's index (the current generation holds one of each). */
function indexHandles(pid, root) {
  const counts = new Map();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.startsWith(root) || !/sqlite_fts\.db|lsa-projection|index\.faiss/.test(target)) continue;
    const key = `${path.basename(target.replace(/ \(deleted\)$/, ''))}${target.endsWith('(deleted)') ? ' (deleted)' : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 102.4) / 10;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const root = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-serve-load-'));
const llm = await startSlowLlm(llmDelay);
const env = {
  EXAM_COPILOT_LLM_BASE_URL: llm.baseURL,
  EXAM_COPILOT_LLM_API_KEY: 'sk-load',
  EXAM_COPILOT_LLM_MODEL: 'scripted',
};
let server = null;
try {
  cpSync(path.join(repo, 'rawdoc'), path.join(root, 'rawdoc'), { recursive: true });
  const first = await runCli(root, ['ingest'], env);
  if (first.code !== 0) throw new Error(`ingest failed (${first.code}): ${first.stderr.trim()}`);
  console.log(`scratch root ${root}: first ingest ${(first.ms / 1000).toFixed(1)} s`);
  // The slow question makes five calls in a row (four rerank batches, the answer), each taking at least a third of
  // an ingest, so it spans the swap.
  const replyDelay = Math.max(llmDelay, Math.ceil(first.ms / 3));
  llm.setDelay(replyDelay);
  // The delayed replies (rerank, answer, a repair if any) must fit in one question's deadline, each in one attempt.
  env.EXAM_COPILOT_LLM_DEADLINE_MS = String(8 * replyDelay + 10_000);
  env.EXAM_COPILOT_LLM_TIMEOUT_MS = String(replyDelay + 5_000);

  server = spawn(process.execPath, [cli, '--root', root, 'serve', '--port', '0'], { env: { ...process.env, ...env, NO_COLOR: '1' } });
  let serverErr = '';
  server.stderr.on('data', (d) => (serverErr += d));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve printed no address in 30 s: ${serverErr}`)), 30_000);
    server.stdout.on('data', (d) => {
      out += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.once('exit', (code) => reject(new Error(`serve exited (${code}): ${serverErr}`)));
  });
  const { questions, queries } = sampleInputs();

  const latencies = [];
  const failures = [];
  let requests = 0;
  let serverErrors = 0;
  const call = async (label, input, init = {}) => {
    const started = performance.now();
    requests++;
    try {
      const res = await fetch(url + input, { ...init, signal: AbortSignal.timeout(120_000) });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      if (res.status >= 500) serverErrors++;
      if (res.status !== 200) failures.push(`${label}: HTTP ${res.status}`);
      return res.status;
    } catch (error) {
      failures.push(`${label}: ${error.message}`);
      return 0;
    }
  };
  const ask = (question, body = {}) =>
    call(`ask ${body.answerer ?? 'offline'} ${body.mode ?? 'hybrid'}`, '/api/ask', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question, ...body }),
    });

  // Warm up: open the index and each mode's session, so "before" is the server's working size.
  for (const mode of ['keyword', 'vector', 'hybrid']) await ask(questions[0], { mode });
  await call('search', `/api/search?q=${encodeURIComponent(queries[0])}`);
  const rssBefore = rssMb(server.pid);
  const handlesBefore = indexHandles(server.pid, root);
  latencies.length = 0;
  requests = 0;

  const deadline = Date.now() + seconds * 1000;
  const modes = ['hybrid', 'keyword', 'vector'];
  const worker = async (w) => {
    for (let i = w; Date.now() < deadline; i += clients) {
      if (i % 3 === 2) await call('search', `/api/search?q=${encodeURIComponent(queries[i % queries.length])}&mode=${modes[i % 3]}`);
      else if (i % 7 === 0) await call('page', `/ask?q=${encodeURIComponent(questions[i % questions.length])}`);
      else await ask(questions[i % questions.length], { mode: modes[i % 3] });
    }
  };
  const ingests = [];
  const swapper = async () => {
    for (let s = 1; s <= swaps; s++) {
      await sleep(Math.max(0, deadline - Date.now() - ((swaps - s + 1) * seconds * 1000) / (swaps + 1)));
      const r = await runCli(root, ['ingest', '--force'], env);
      ingests.push({ ...r, swappedAt: performance.now(), rss: rssMb(server.pid) });
      if (r.code !== 0) failures.push(`ingest --force: exit ${r.code} ${r.stderr.trim().split('\n')[0]}`);
    }
  };
  // The slow question starts with the first ingest and spans its swap (rerank and answer each wait replyDelay).
  const slow = (async () => {
    await sleep(Math.max(0, deadline - Date.now() - (swaps * seconds * 1000) / (swaps + 1)));
    const started = performance.now();
    const res = await fetch(`${url}/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: `${questions[1]}（慢）`, answerer: 'llm' }),
      signal: AbortSignal.timeout(180_000),
    }).catch((error) => ({ status: 0, json: async () => ({ error: error.message }) }));
    const body = await res.json().catch(() => ({}));
    return {
      status: res.status,
      started,
      ended: performance.now(),
      answerer: body.answerer,
      fallback: body.fallback ?? null,
      error: body.error ?? (body.fallback ? body.message : undefined),
    };
  })();
  await Promise.all([...Array.from({ length: clients }, (_, w) => worker(w)), swapper()]);
  const slowResult = await slow;
  const rssEnd = rssMb(server.pid);
  await sleep(5000);
  // One search opens the last build (retiring the one the slow question held); the load's garbage is collected when
  // V8 next needs room, which a few light requests give it the chance to do.
  await call('search', `/api/search?q=${encodeURIComponent(queries[0])}`);
  for (let i = 0; i < 20; i++) await fetch(`${url}/api/toc`).then((r) => r.arrayBuffer());
  await sleep(2000);
  const rssAfter = rssMb(server.pid);

  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(
    `clients ${clients}, ${seconds} s, ${swaps} swaps (ingest --force: ${ingests.map((r) => `${(r.ms / 1000).toFixed(1)} s`).join(', ')})`,
  );
  console.log(`requests ${requests}, failed ${failures.length}, 5xx ${serverErrors}`);
  console.log(
    `latency p50 ${percentile(sorted, 50).toFixed(0)} ms, p95 ${percentile(sorted, 95).toFixed(0)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0)} ms`,
  );
  const spanned = ingests.some((r) => r.swappedAt > slowResult.started && r.swappedAt < slowResult.ended);
  console.log(
    `slow LLM question (replies ${(replyDelay / 1000).toFixed(1)} s each): HTTP ${slowResult.status} in ${((slowResult.ended - slowResult.started) / 1000).toFixed(1)} s, ` +
      `answerer ${slowResult.answerer}, fallback ${slowResult.fallback}, ${spanned ? 'spanned a swap' : 'did NOT span a swap'}` +
      `${slowResult.error ? `, error ${slowResult.error}` : ''} (LLM calls ${llm.calls()})`,
  );
  console.log(
    `server RSS: before ${rssBefore} MB, after each swap ${ingests.map((r) => `${r.rss} MB`).join(', ')}, at the end ${rssEnd} MB, settled ${rssAfter} MB`,
  );
  console.log(`server's open index files: before ${handlesBefore}; settled ${indexHandles(server.pid, root)}`);
  for (const f of failures.slice(0, 10)) console.log(`  failure: ${f}`);
  if (serverErr.trim()) console.log(`server stderr:\n${serverErr.trim().split('\n').slice(0, 10).join('\n')}`);
  process.exitCode = failures.length > 0 || slowResult.status !== 200 ? 1 : 0;
} finally {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT');
    await Promise.race([exited, sleep(15_000)]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  await llm.close();
  rmSync(root, { recursive: true, force: true });
}

#!/usr/bin/env node
// Latency of one query (k=10) over N×D L2-normalised random vectors: FAISS flat vs JS flat vs the 8-bit scan with
// exact rescoring (what a search uses from vector.quantizeAbove vectors) vs FAISS HNSW, and how often the scan's top k
// is the exact flat index's (k = 10 and 50).
// Synthetic vectors: latency depends on N and D only, so the bench folder argument (accepted for symmetry with
// the other benchmarks) is not read.
// Usage: npm run build && node scripts/bench/vector-latency.mjs [benchDir] [--n 100000] [--d 256] [--queries 200] [--clustered]
// --clustered draws vectors around 1000 random centres, closer to real embeddings than uniform noise (on which
// HNSW recall collapses in high dimensions because all neighbours are nearly equidistant).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const N = opt('n', 100_000);
const D = opt('d', 256);
const Q = opt('queries', 200);
const K = 10;

const repo = path.resolve(import.meta.dirname, '..', '..');
const { applyFaissThreadDefaults } = await import(path.join(repo, 'dist', 'src', 'indexing', 'load-faiss.js'));
// As the CLI entry does: FAISS's thread libraries read these when they load.
applyFaissThreadDefaults(process.env);
const { createVectorIndex, faissStatus, openVectorIndex } = await import(path.join(repo, 'dist', 'src', 'indexing', 'vector-index.js'));
const { writeQuantizedCodes } = await import(path.join(repo, 'dist', 'src', 'indexing', 'scalar-quantizer.js'));
const { percentile } = await import(path.join(repo, 'dist', 'src', 'evaluate', 'metrics.js'));

let seed = 12345;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296) * 2 - 1;
function unit() {
  const v = new Float32Array(D);
  let n = 0;
  for (let j = 0; j < D; j += 1) {
    v[j] = rand();
    n += v[j] * v[j];
  }
  n = Math.sqrt(n);
  for (let j = 0; j < D; j += 1) v[j] /= n;
  return v;
}
const clustered = args.includes('--clustered');
const centres = clustered ? Array.from({ length: 1000 }, unit) : [];
function sample() {
  if (!clustered) return unit();
  const c = centres[Math.floor(((rand() + 1) / 2) * centres.length) % centres.length];
  const noise = unit();
  const v = new Float32Array(D);
  let n = 0;
  for (let j = 0; j < D; j += 1) {
    v[j] = c[j] + 0.5 * noise[j];
    n += v[j] * v[j];
  }
  n = Math.sqrt(n);
  for (let j = 0; j < D; j += 1) v[j] /= n;
  return v;
}
const vectors = Array.from({ length: N }, sample);
const queries = Array.from({ length: Q }, sample);

async function measure(label, options) {
  const t0 = performance.now();
  const index = await createVectorIndex({ dimension: D, ...options });
  index.add(vectors);
  return timed(label, index, t0);
}

function timed(label, index, t0, k = K) {
  index.search(queries[0], k); // warm-up (also applies HNSW efSearch)
  const buildMs = performance.now() - t0;
  const times = [];
  const results = [];
  for (const q of queries) {
    const s = performance.now();
    results.push(index.search(q, k).ids);
    times.push(performance.now() - s);
  }
  console.log(
    `${label.padEnd(12)} build+add ${(buildMs / 1000).toFixed(1).padStart(6)} s   p50 ${percentile(times, 0.5).toFixed(2).padStart(7)} ms   p95 ${percentile(times, 0.95).toFixed(2).padStart(7)} ms`,
  );
  return results;
}

console.log(`vector-latency: ${N}×${D}${clustered ? ' (clustered)' : ' (uniform)'}, ${Q} queries, k=${K}, node ${process.version}`);
const status = await faissStatus();
const exact = await measure('js flat', { kind: 'flat', backend: 'js' });
{
  // The flat file and its codes as ingest writes them, searched as a search from vector.quantizeAbove vectors does.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vector-latency-'));
  try {
    const t0 = performance.now();
    const flat = await createVectorIndex({ dimension: D, kind: 'flat', backend: 'js' });
    flat.add(vectors);
    flat.write(path.join(dir, 'index.faiss'));
    writeQuantizedCodes(path.join(dir, 'index-sq8.faiss'), vectors, D);
    const scanned = await openVectorIndex(path.join(dir, 'index.faiss'), { backend: 'auto', quantized: path.join(dir, 'index-sq8.faiss') });
    const quick = timed('sq8 scan', scanned, t0);
    console.log(
      `sq8 scan vs js flat: identical top-${K} for ${quick.filter((ids, i) => ids.join() === exact[i].join()).length}/${Q} queries`,
    );
    const deep = queries.map((q) => scanned.search(q, 50).ids.join());
    const truth = queries.map((q) => flat.search(q, 50).ids.join());
    console.log(`sq8 scan vs js flat: identical top-50 for ${deep.filter((ids, i) => ids === truth[i]).length}/${Q} queries`);
    scanned.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (!status.available) {
  console.log(`FAISS unavailable (${status.reason}); only the JS backend was measured`);
} else {
  const faissFlat = await measure('faiss flat', { kind: 'flat', backend: 'faiss' });
  const agree = faissFlat.filter((ids, i) => ids.join() === exact[i].join()).length;
  console.log(`faiss flat vs js flat: identical top-${K} for ${agree}/${Q} queries`);
  const hnsw = await measure('faiss hnsw', { kind: 'hnsw', backend: 'faiss', hnswM: 32 });
  let found = 0;
  hnsw.forEach((ids, i) => {
    const truth = new Set(exact[i]);
    found += ids.filter((id) => truth.has(id)).length;
  });
  console.log(`hnsw (M=32, efConstruction=40, efSearch=128) recall@${K}: ${(found / (Q * K)).toFixed(3)}`);
}

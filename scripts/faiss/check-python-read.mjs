#!/usr/bin/env node
// Checks that Python's faiss.read_index reads index files written by both backends and finds the same
// neighbours. Not part of `npm test` (needs python3-faiss: `apt-get install python3-faiss python3-numpy`).
// Usage: npm run build && node scripts/faiss/check-python-read.mjs [python executable, default /usr/bin/python3]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const python = process.argv[2] ?? '/usr/bin/python3';
const repo = path.resolve(import.meta.dirname, '..', '..');
const { createVectorIndex } = await import(path.join(repo, 'dist', 'src', 'indexing', 'vector-index.js'));

let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296) * 2 - 1;
const unit = (d) => {
  const v = Float32Array.from({ length: d }, rand);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const d = 32;
const vectors = Array.from({ length: 500 }, () => unit(d));
const queries = Array.from({ length: 5 }, () => unit(d));

const dir = mkdtempSync(path.join(os.tmpdir(), 'faiss-py-check-'));
const cases = [];
for (const [backend, kind] of [
  ['js', 'flat'],
  ['faiss', 'flat'],
  ['faiss', 'hnsw'],
]) {
  const index = await createVectorIndex({ dimension: d, kind, backend });
  index.add(vectors);
  const file = path.join(dir, `${backend}-${kind}.faiss`);
  index.write(file);
  cases.push({ file, kind, size: index.size, expected: queries.map((q) => index.search(q, 5).ids) });
}

const script = `
import json, sys, faiss, numpy as np
data = json.load(sys.stdin)
q = np.array(data["queries"], dtype="float32")
for c in data["cases"]:
    idx = faiss.read_index(c["file"])
    _, labels = idx.search(q, 5)
    ok = idx.ntotal == c["size"] and idx.d == ${d} and labels.tolist() == c["expected"]
    print(("OK  " if ok else "FAIL"), type(idx).__name__, c["file"].rsplit("/", 1)[-1], "ntotal", idx.ntotal)
    if not ok: sys.exit(1)
print("faiss", faiss.__version__)
`;
const result = spawnSync(python, ['-c', script], {
  input: JSON.stringify({ queries: queries.map((q) => Array.from(q)), cases }),
  encoding: 'utf8',
});
process.stdout.write(result.stdout ?? '');
process.stderr.write(result.stderr ?? '');
rmSync(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);

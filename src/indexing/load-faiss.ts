import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Result arrays of a faiss-node search: `k` entries per query, padded with label -1. */
export interface FaissSearchResult {
  distances: number[];
  labels: number[];
}

/**
 * The part of a faiss-node `Index` this project uses. Declared here rather than imported from faiss-node's
 * typings because faiss-node is an optional dependency that may be absent when this compiles or runs.
 */
export interface FaissIndexHandle {
  ntotal(): number;
  getDimension(): number;
  add(x: number[]): void;
  search(x: number[], k: number): FaissSearchResult;
  write(fname: string): void;
  toBuffer(): Buffer;
}

/** The faiss-node module surface this project uses. */
export interface FaissModule {
  IndexFlatIP: new (d: number) => FaissIndexHandle;
  Index: {
    read(fname: string): FaissIndexHandle;
    fromBuffer(src: Buffer): FaissIndexHandle;
    fromFactory(dims: number, descriptor: string, metric?: number): FaissIndexHandle;
  };
  MetricType: { METRIC_INNER_PRODUCT: number };
}

/** Either the loaded module, or why it could not be loaded and how to fix that. */
export type FaissLoadResult = { available: true; faiss: FaissModule; version: string } | { available: false; reason: string; fix: string };

/** Loads faiss-node on demand; injectable so callers and tests can force the JS fallback. */
export type FaissLoader = () => Promise<FaissLoadResult>;

/** How to get the native binding; shared by every "FAISS unavailable" message. */
export const FAISS_FIX =
  'apt-get install libfaiss-dev libopenblas-dev, then `npm rebuild exam-copilot` (in a checkout: `node scripts/install-faiss.mjs`)';

/**
 * Thread settings for the libraries behind faiss-node, which read them from the environment when they load.
 * One query at a time is this tool's pattern. faiss runs an OpenMP team per call, and libgomp's default
 * spin-waiting made a 0.3 ms HNSW query take 10-20 ms on a busy 2-core machine (measured with
 * scripts/bench/vector-latency.mjs); passive waiting keeps parallel index builds but stops the spinning.
 * Debian's pthreads OpenBLAS adds its own spinning workers next to that team; faiss parallelises itself, so
 * keep BLAS single-threaded.
 */
export const FAISS_THREAD_DEFAULTS: Readonly<Record<string, string>> = { OMP_WAIT_POLICY: 'PASSIVE', OPENBLAS_NUM_THREADS: '1' };

/**
 * Fills `FAISS_THREAD_DEFAULTS` into an environment where the user has not set them. The process entry
 * (`bin/exam-copilot.js`, a benchmark) calls it on `process.env` before anything loads FAISS; loading never
 * changes the environment by itself.
 */
export function applyFaissThreadDefaults(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(FAISS_THREAD_DEFAULTS)) env[name] ??= value;
}

/**
 * Loads faiss-node lazily (never at import time, so `--help` stays fast). Nothing is remembered here: Node's
 * module cache already loads the native binding once per process, so a second call only re-reads the outcome.
 * Forcing the JS fallback is a configuration choice (`vector.backend: "js"`, `EXAM_COPILOT_DISABLE_FAISS=1`),
 * made by `loadConfig`, not read here.
 */
export const loadFaiss: FaissLoader = () => Promise.resolve().then(tryLoad);

function tryLoad(): FaissLoadResult {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = path.dirname(require.resolve('faiss-node/package.json'));
  } catch {
    return {
      available: false,
      reason: 'faiss-node is not installed',
      fix: `npm install (faiss-node is an optional dependency); ${FAISS_FIX}`,
    };
  }
  try {
    const faiss = require('faiss-node') as FaissModule;
    if (typeof faiss.IndexFlatIP !== 'function' || typeof faiss.Index?.read !== 'function') {
      return { available: false, reason: 'faiss-node loaded but lacks IndexFlatIP/Index.read', fix: FAISS_FIX };
    }
    const pkg = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version?: string };
    return { available: true, faiss, version: `faiss-node ${pkg.version ?? 'unknown'}` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason = message.includes('Could not locate the bindings file')
      ? 'the faiss-node native binding is not built'
      : `faiss-node failed to load: ${message.split('\n')[0] ?? message}`;
    return { available: false, reason, fix: FAISS_FIX };
  }
}

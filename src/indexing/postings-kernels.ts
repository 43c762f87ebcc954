/**
 * The keyword postings' kernel (`wasm/postings-kernels.wat`, assembled into the shipped `wasm/postings-kernels.wasm`
 * by `scripts/build-wasm.mjs`): bm25()'s sum over a term's postings, and the best k rows of a query, in WebAssembly,
 * which runs compiled from its first call where the same loops in JavaScript run interpreted in a one-shot ask. A
 * `PostingsWorkspace` holds one query's state in the kernel's memory: every row's length term, its running score, the
 * rows reached, one term's postings and the kept rows.
 */
import { UserError } from '../errors.js';
import { packageFile } from '../paths.js';
import { bestFirst } from './best-rows.js';
import { kernelExports, loadKernelModule } from './compile-wasm.js';

/** One ranked query's state; `add` each term's postings in query order, then `best` (which also resets it). */
export interface PostingsWorkspace {
  /**
   * The bytes of the rows' length terms (`lengthNorm`, f64 by row), in the kernel's memory: fill them once, before the
   * first `add` (whose memory growth detaches the view, keeping what was written).
   */
  normBytes(): Uint8Array;
  /**
   * Adds idf · ((f · (k1 + 1)) / (f + norms[row])), f = doubled[p] / 2, to each posting's row `repeat` times, as
   * bm25() sums a phrase written `repeat` times.
   */
  add(rows: Uint32Array, doubled: Uint16Array, idf: number, k1: number, repeat: number): void;
  /** How many rows the query has reached so far. */
  readonly matched: number;
  /**
   * The best `k` (≥ 1) rows reached, best first (higher score, then lower row), with their scores; every score is
   * set back to 0, ready for the next query.
   */
  best(k: number): { rows: number[]; scores: number[] };
}

const PAGE = 65536;

/** The kernel's exports. */
interface PostingsKernels {
  accumulate: (
    rows: number,
    doubled: number,
    n: number,
    idf: number,
    k1p1: number,
    repeat: number,
    norms: number,
    scores: number,
    touched: number,
    matched: number,
  ) => number;
  best: (touched: number, matched: number, scores: number, k: number, heapScores: number, heapRows: number) => number;
}

const KERNEL_NAMES = ['accumulate', 'best'] as const;

/** The shipped kernel's file. */
export function postingsKernelsFile(): string {
  return packageFile('wasm', 'postings-kernels.wasm');
}

/** Compiles the kernel once per process; throws a one-line `UserError` naming the file when it does not load. */
export function loadPostingsKernels(file: string = postingsKernelsFile()): WebAssembly.Module {
  return loadKernelModule(file, 'the keyword postings kernel', KERNEL_NAMES);
}

/** A workspace for rows 0 … maxRow. */
export function postingsWorkspace(maxRow: number, file: string = postingsKernelsFile()): PostingsWorkspace {
  const instance = new WebAssembly.Instance(loadPostingsKernels(file));
  const memory = instance.exports.memory as WebAssembly.Memory;
  const kernels = kernelExports<PostingsKernels>(instance.exports, file, KERNEL_NAMES);
  const align = (n: number): number => Math.ceil(n / 16) * 16;
  const rowCount = maxRow + 1;
  const normsAt = memory.buffer.byteLength;
  const scoresAt = normsAt + align(8 * rowCount);
  const touchedAt = scoresAt + align(8 * rowCount);
  // Then the growing part: one term's postings (rows, then frequencies), or the kept rows of `best`.
  const scratchAt = touchedAt + align(4 * rowCount);
  const reserve = (bytes: number): void => {
    const end = scratchAt + bytes;
    if (end > 2 ** 32) throw new UserError(`keyword postings of ${rowCount} rows are over the kernel's 4 GiB`);
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
  };
  reserve(0);
  let matched = 0;
  return {
    normBytes: () => new Uint8Array(memory.buffer, normsAt, 8 * rowCount),
    get matched() {
      return matched;
    },
    add(rows, doubled, idf, k1, repeat) {
      const n = rows.length;
      if (doubled.length !== n) throw new RangeError(`${n} posting rows but ${doubled.length} frequencies`);
      const frequenciesAt = scratchAt + align(4 * n);
      reserve(frequenciesAt - scratchAt + 2 * n);
      new Uint32Array(memory.buffer, scratchAt, n).set(rows);
      new Uint16Array(memory.buffer, frequenciesAt, n).set(doubled);
      // k1 + 1 as bm25() writes it, formed here once: the same double in either language.
      matched = kernels.accumulate(scratchAt, frequenciesAt, n, idf, k1 + 1.0, repeat, normsAt, scoresAt, touchedAt, matched);
    },
    best(k) {
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`best keeps at least one row, not ${k}`);
      const keep = Math.min(k, matched);
      if (keep === 0) return { rows: [], scores: [] };
      const rowsAt = scratchAt + align(8 * keep);
      reserve(rowsAt - scratchAt + 4 * keep);
      const kept = kernels.best(touchedAt, matched, scoresAt, keep, scratchAt, rowsAt);
      matched = 0;
      return bestFirst(new Int32Array(memory.buffer, rowsAt, kept), new Float64Array(memory.buffer, scratchAt, kept));
    },
  };
}

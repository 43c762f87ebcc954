/**
 * The quantized vector scan's kernel (`wasm/scan-kernels.wat`, assembled into the shipped `wasm/scan-kernels.wasm`
 * by `scripts/build-wasm.mjs`): integer dot products of 8-bit codes with 16-bit query weights, eight dimensions at a
 * time, for up to `SCAN_QUERIES` queries in one pass over the codes. `QuantizedVectorIndex` holds its codes in the
 * kernel's own memory, read there straight from the file, or, streamed, reads them window by window into one
 * window of that memory at each scan.
 */
import { UserError } from '../errors.js';
import { packageFile } from '../paths.js';
import { kernelExports, loadKernelModule } from './compile-wasm.js';

/** Queries one pass over the codes scores at most. */
export const SCAN_QUERIES = 8;

/**
 * One scan instance: its memory holds the codes (all of them, or one window of them), up to `SCAN_QUERIES` queries'
 * weights and their scores.
 */
export interface ScanWorkspace {
  /**
   * The code bytes scanned: every vector's (`count × dimension`: fill them before the first scan), or, in a windowed
   * workspace, one window's (`window × dimension`), which each scan's `load` fills.
   */
  readonly codes: Uint8Array;
  /** How many vectors' codes `codes` holds: `count`, or the window's. */
  readonly window: number;
  /** The query weights the next scan uses: query t's `dimension` weights from t · dimension. */
  readonly weights: Int16Array;
  /** The scores of the last scan: query t's, one per vector, from t · count. */
  readonly scores: Int32Array;
  /**
   * scores[t · count + v] = Σ_j codes[v][j] · weights[t · dimension + j], for every vector and the first `queries`.
   * A windowed workspace (`window` < count) needs `load(from, n)`, which writes the codes of vectors [from, from + n)
   * at the start of `codes` (n ≤ `window`) before they are scored; one that holds every code never calls it.
   */
  scan(queries?: number, load?: (from: number, n: number) => void): void;
  /**
   * The vectors of the `depth` best scores of query `query` in the last scan, best first (higher score, then lower
   * vector): what offering every vector to a `BestRows(depth)` returns.
   */
  best(query: number, depth: number): number[];
}

const PAGE = 65536;
/** Vectors per call: V8 optimises a WebAssembly function for its later calls, so one call over every vector would stay in baseline code. */
const SLICE_VECTORS = 2048;

/** The shipped kernel's file. */
export function scanKernelsFile(): string {
  return packageFile('wasm', 'scan-kernels.wasm');
}

/** Compiles the kernel once per process; throws a one-line `UserError` naming the file when it does not load. */
export function loadScanKernels(file: string = scanKernelsFile()): WebAssembly.Module {
  return loadKernelModule(file, 'the vector scan kernel', KERNEL_NAMES);
}

/** The kernel's exports. */
interface ScanKernels {
  /** (codes, n, d, weights, queries, out, stride): the scores of every vector for each query. */
  scanCodesMany: (codes: number, n: number, d: number, weights: number, queries: number, out: number, stride: number) => void;
  /** (scores, n, out): the smallest and largest of n scores, stored at out. */
  scoreRange: (scores: number, n: number, out: number) => void;
  /** (scores, n, lo, hi, shift, counts): each score in [lo, hi] counted in bucket (score − lo) >> shift. */
  countScores: (scores: number, n: number, lo: number, hi: number, shift: number, counts: number) => void;
  /** (scores, n, floor, rows): the indexes of the scores ≥ floor written to rows; returns how many. */
  rowsFrom: (scores: number, n: number, floor: number, rows: number) => number;
}

const KERNEL_NAMES = ['scanCodesMany', 'scoreRange', 'countScores', 'rowsFrom'] as const;

/** The kernel's exports, or a `UserError` naming the file when one is missing. */
function scanKernels(exports: Record<string, unknown>, file: string): ScanKernels {
  return kernelExports<ScanKernels>(exports, file, KERNEL_NAMES);
}

/** Buckets of one counting pass of the best-rows selection. */
const SELECT_BUCKETS = 1024;

/** Where the kernel comes from, and how many vectors' codes the workspace holds at once (all of them unless given). */
export interface ScanWorkspaceOptions {
  file?: string;
  /** Hold the codes of this many vectors (at least one), which each scan's `load` fills window by window. */
  window?: number;
}

/** A workspace for `count` vectors of `dimension` bytes. */
export function scanWorkspace(count: number, dimension: number, options: ScanWorkspaceOptions = {}): ScanWorkspace {
  const file = options.file ?? scanKernelsFile();
  if (options.window !== undefined && !(Number.isInteger(options.window) && options.window >= 1)) {
    throw new RangeError(`a scan window holds at least one vector, not ${options.window}`);
  }
  const window = Math.min(options.window ?? count, count);
  const windowed = window < count;
  const instance = new WebAssembly.Instance(loadScanKernels(file));
  const memory = instance.exports.memory as WebAssembly.Memory;
  const kernels = scanKernels(instance.exports, file);
  const align = (n: number): number => Math.ceil(n / 16) * 16;
  const codesAt = memory.buffer.byteLength;
  const weightsAt = codesAt + align(window * dimension);
  const scoresAt = weightsAt + align(2 * dimension * SCAN_QUERIES);
  // The selection's own space: the bucket counts, the score range, and the rows it keeps.
  const countsAt = scoresAt + align(4 * count * SCAN_QUERIES);
  const rangeAt = countsAt + 4 * SELECT_BUCKETS;
  const rowsAt = rangeAt + 16;
  const end = rowsAt + 4 * count;
  if (end > 2 ** 32) throw new UserError(`a quantized vector index of ${count}×${dimension} is over the scan's 4 GiB`);
  memory.grow(Math.ceil(end / PAGE) - memory.buffer.byteLength / PAGE);
  const codes = new Uint8Array(memory.buffer, codesAt, window * dimension);
  const weights = new Int16Array(memory.buffer, weightsAt, dimension * SCAN_QUERIES);
  const scores = new Int32Array(memory.buffer, scoresAt, count * SCAN_QUERIES);
  const counts = new Int32Array(memory.buffer, countsAt, SELECT_BUCKETS);
  const range = new Int32Array(memory.buffer, rangeAt, 2);
  const rows = new Int32Array(memory.buffer, rowsAt, count);
  return {
    codes,
    window,
    weights,
    scores,
    scan(queries = 1, load) {
      if (!Number.isInteger(queries) || queries < 1 || queries > SCAN_QUERIES) {
        throw new RangeError(`a scan scores 1 to ${SCAN_QUERIES} queries, not ${queries}`);
      }
      if (windowed && !load) throw new RangeError('a windowed scan needs the codes of each window (load)');
      for (let start = 0; start < count; start += window) {
        const held = Math.min(window, count - start);
        if (windowed) load!(start, held);
        for (let at = 0; at < held; at += SLICE_VECTORS) {
          const n = Math.min(SLICE_VECTORS, held - at);
          const from = start + at;
          kernels.scanCodesMany(codesAt + at * dimension, n, dimension, weightsAt, queries, scoresAt + 4 * from, 4 * count);
        }
      }
    },
    best(query, depth) {
      if (!Number.isInteger(query) || query < 0 || query >= SCAN_QUERIES) {
        throw new RangeError(`a scan holds the scores of queries 0 to ${SCAN_QUERIES - 1}, not ${query}`);
      }
      const take = Math.min(depth, count);
      if (take <= 0) return [];
      const at = scoresAt + 4 * count * query;
      kernels.scoreRange(at, count, rangeAt);
      let lo = range[0] as number;
      let hi = range[1] as number;
      // Narrow [lo, hi] to the bucket holding the take-th best score, until few rows are left in it; the rows above
      // hi (`above` of them) are all kept.
      let above = 0;
      while (hi > lo) {
        let shift = 0;
        while ((hi - lo) / 2 ** shift >= SELECT_BUCKETS) shift++;
        counts.fill(0);
        kernels.countScores(at, count, lo, hi, shift, countsAt);
        let bucket = Math.floor((hi - lo) / 2 ** shift);
        let reached = above + (counts[bucket] as number);
        while (reached < take && bucket > 0) {
          bucket--;
          reached += counts[bucket] as number;
        }
        const inBucket = counts[bucket] as number;
        above = reached - inBucket;
        const bucketLo = lo + bucket * 2 ** shift;
        hi = Math.min(hi, bucketLo + 2 ** shift - 1);
        lo = bucketLo;
        if (inBucket <= 4 * take || shift === 0) break;
      }
      const kept = kernels.rowsFrom(at, count, lo, rowsAt);
      const found = Array.from(rows.subarray(0, kept));
      const s = scores.subarray(count * query, count * (query + 1));
      found.sort((a, b) => (s[b] as number) - (s[a] as number) || a - b);
      return found.slice(0, take);
    },
  };
}

import { NotReadyError } from '../errors.js';
import { readFully } from '../read-fully.js';
import type { Warning } from '../types.js';
import { BestRows } from './best-rows.js';
import { checkScalarQuantizer8, fileSource, type FlatIPLayout, type ScalarQuantizer8Layout } from './faiss-format.js';
import { innerProduct } from './flat-vector-index.js';
import { SCAN_QUERIES, scanWorkspace, type ScanWorkspace } from './scan-kernels.js';
import { checkDimension, checkK, type VectorIndex, type VectorSearchResult } from './vector-index-contract.js';

/** Where a file's vectors are: the file open as `fd`, and the byte offset of its first vector. */
export interface VectorsAt {
  fd: number;
  start: number;
}

/** Where the exact vectors are: an open flat index file and the byte offset of its first vector. */
export type ExactVectorFile = VectorsAt;

/**
 * The header of the codes file open as `fd` (`file` names it), checked against the flat index it belongs to; a
 * `NotReadyError` naming the file when it is not FAISS's 8-bit quantizer of that index (another build, truncated).
 */
export function checkCodesFile(fd: number, file: string, flat: FlatIPLayout): ScalarQuantizer8Layout {
  const codes = checkScalarQuantizer8(fileSource(fd), file);
  if (codes.dimension !== flat.dimension || codes.count !== flat.count) {
    throw new NotReadyError({
      file,
      problem: `holds ${codes.count}×${codes.dimension} codes for a ${flat.count}×${flat.dimension} index`,
      fix: 're-run `exam-copilot ingest --force` to rewrite it',
    });
  }
  return codes;
}

/**
 * Reads the codes of the file open as `codesFd` (checked by `checkCodesFile`) straight into a scan kernel's memory,
 * and returns the index searching them, with the exact vectors read from `exact` at each search.
 */
export function readQuantizedVectorIndex(
  codesFd: number,
  codes: ScalarQuantizer8Layout,
  exact: ExactVectorFile,
  warnings: readonly Warning[] = [],
): QuantizedVectorIndex {
  const scan = scanWorkspace(codes.count, codes.dimension);
  readFully(codesFd, scan.codes, 0, scan.codes.length, codes.codesStart, 'the vector file');
  return new QuantizedVectorIndex(codes.dimension, codes.count, codes.trained, scan, exact, warnings);
}

/** Vectors whose codes a streamed index holds at once: half a megabyte at 256 dimensions, reused by every window. */
const STREAM_WINDOW = 2048;

/**
 * The index of the codes file open as `codesFd` (checked by `checkCodesFile`), which reads its codes window by window
 * at each search instead of holding them: for a process that searches a few times and exits (a one-shot ask). There,
 * reading every code into fresh memory costs more than the scans themselves (on the 66,634-vector law library, 17 MB:
 * some 4,000 page faults, and a slow first pass over the new pages), while a window's half megabyte is faulted in
 * once and then read from the cache. The file is read through once now, into the window, so that codes not in the
 * page cache come from the disk while the caller is still busy, not at the first search. The index keeps `codesFd`:
 * the caller closes it after the index.
 */
export function streamQuantizedVectorIndex(codesFd: number, codes: ScalarQuantizer8Layout, exact: ExactVectorFile): QuantizedVectorIndex {
  const scan = scanWorkspace(codes.count, codes.dimension, { window: STREAM_WINDOW });
  const source = { fd: codesFd, start: codes.codesStart, dimension: codes.dimension };
  for (let from = 0; from < codes.count; from += scan.window) {
    readWindow(scan, source, from, Math.min(scan.window, codes.count - from));
  }
  return new QuantizedVectorIndex(codes.dimension, codes.count, codes.trained, scan, exact, [], source);
}

/** Where a streamed index reads its codes: an open codes file, the byte offset of the first vector's, and their bytes each. */
interface CodesFile extends VectorsAt {
  dimension: number;
}

/** The codes of vectors [from, from + n) read from `file` to the start of the workspace's window. */
function readWindow(scan: ScanWorkspace, file: CodesFile, from: number, n: number): void {
  const d = file.dimension;
  readFully(file.fd, scan.codes, 0, n * d, file.start + from * d, 'the vector codes file');
}

/**
 * How many rows of the 8-bit scan are rescored exactly for `take` wanted. The scan's error is a few thousandths of a
 * score (one 255th of each dimension's range, and the query weights' rounding), so the true best `take` lie well
 * inside twice as many rows plus a margin; scripts/bench/vector-latency.mjs counts how often the top `take` comes out
 * other than the flat index's.
 */
export function rescoreDepth(take: number, count: number): number {
  return Math.min(count, Math.max(2 * take, take + 64));
}

/**
 * A flat inner-product index searched through its 8-bit codes (FAISS's scalar quantizer, written next to the flat
 * file at ingest): one scan of a quarter of the bytes, in WebAssembly integer dot products, picks the candidates, and
 * their exact vectors, read from the flat file, give the ranking and the scores, as FAISS's `IndexRefineFlat` does.
 * What it returns is what the exact flat index returns whenever the true best rows are among the candidates, and it
 * never reads the whole flat file: on the 66,634-vector law library a one-shot ask reads 17 MB instead of 68 MB.
 * Read-only: an index is rebuilt by ingest.
 */
export class QuantizedVectorIndex implements VectorIndex {
  readonly backend = 'sq8' as const;
  readonly kind = 'flat' as const;

  constructor(
    readonly dimension: number,
    readonly size: number,
    /** vmin[d] then vdiff[d] of the quantizer. */
    private readonly trained: Float32Array,
    private readonly workspace: ScanWorkspace,
    private readonly exact: ExactVectorFile,
    readonly warnings: readonly Warning[] = [],
    /** Where each scan reads the codes, window by window (`streamQuantizedVectorIndex`); absent: they are in the workspace. */
    private readonly stream?: CodesFile,
  ) {}

  add(): void {
    throw new Error('a quantized vector index is read-only; ingest rebuilds it');
  }

  write(): void {
    throw new Error('a quantized vector index is read-only; ingest rebuilds it');
  }

  search(query: Float32Array, k: number): VectorSearchResult {
    return this.searchMany([query], k)[0]!;
  }

  searchMany(queries: readonly Float32Array[], k: number): VectorSearchResult[] {
    for (const q of queries) checkDimension(q, this.dimension, 'query vector');
    checkK(k);
    const take = Math.min(k, this.size);
    if (take === 0) return queries.map(() => ({ ids: [], scores: [] }));
    const depth = rescoreDepth(take, this.size);
    // Up to SCAN_QUERIES queries share one pass over the codes (a one-shot ask's stem and options: one pass, not five).
    const candidates: number[][] = [];
    for (let from = 0; from < queries.length; from += SCAN_QUERIES)
      candidates.push(...this.scan(queries.slice(from, from + SCAN_QUERIES), depth));
    const rows = [...new Set(candidates.flat())].sort((a, b) => a - b);
    const vectors = this.readRows(rows);
    const at = new Map(rows.map((row, i) => [row, i * this.dimension] as const));
    return queries.map((q, i) => {
      const best = new BestRows(take);
      for (const row of candidates[i]!) best.offer(row, innerProduct(vectors, at.get(row)!, q, this.dimension));
      const found = best.sorted();
      // Rounded through float32, as the flat indexes report scores.
      return { ids: found.rows, scores: found.scores.map((s) => Math.fround(s)) };
    });
  }

  /** For each query (at most SCAN_QUERIES), the `depth` rows with the best approximate scores, from one scan. */
  private scan(queries: readonly Float32Array[], depth: number): number[][] {
    const d = this.dimension;
    const weights = this.workspace.weights;
    queries.forEach((query, t) => {
      // A vector's approximate score is Σ q_j·(vmin_j + (c_j + ½)/255·vdiff_j): a constant plus Σ (q_j·vdiff_j)·c_j, so
      // ranking by the integer Σ w_j·c_j, with w_j = q_j·vdiff_j scaled to 16 bits, ranks by the decoded vectors.
      const w = new Float64Array(d);
      let largest = 0;
      let total = 0;
      for (let j = 0; j < d; j++) {
        w[j] = (query[j] as number) * (this.trained[d + j] as number);
        largest = Math.max(largest, Math.abs(w[j] as number));
        total += Math.abs(w[j] as number);
      }
      // 16 bits per weight, and no sum of up to 255 · Σ|w| past 2³¹.
      const scale = largest > 0 ? Math.min(16383 / largest, (2 ** 31 - 1) / (255 * total)) : 0;
      for (let j = 0; j < d; j++) weights[t * d + j] = Math.round((w[j] as number) * scale);
    });
    const stream = this.stream;
    this.workspace.scan(queries.length, stream && ((from, n) => readWindow(this.workspace, stream, from, n)));
    return queries.map((_, t) => this.workspace.best(t, depth));
  }

  /** The exact vectors of `rows` (ascending), one after the other, read from the flat file. */
  private readRows(rows: readonly number[]): Float32Array {
    const d = this.dimension;
    const out = new Float32Array(rows.length * d);
    const bytes = new Uint8Array(out.buffer);
    const rowBytes = d * 4;
    // Consecutive rows are read in one call.
    for (let i = 0; i < rows.length;) {
      let j = i + 1;
      while (j < rows.length && rows[j] === (rows[j - 1] as number) + 1) j++;
      readFully(
        this.exact.fd,
        bytes,
        i * rowBytes,
        (j - i) * rowBytes,
        this.exact.start + (rows[i] as number) * rowBytes,
        'the vector file',
      );
      i = j;
    }
    return out;
  }
}

/**
 * The quantized vector scan's kernel (`wasm/scan-kernels.wat`, assembled into the shipped `wasm/scan-kernels.wasm`
 * by `scripts/build-wasm.mjs`): integer dot products of 8-bit codes with 16-bit query weights, eight dimensions at a
 * time, for up to `SCAN_QUERIES` queries in one pass over the codes. `QuantizedVectorIndex` holds its codes in the
 * kernel's own memory, read there straight from the file.
 */
import { UserError } from '../errors.js';
import { packageFile } from '../paths.js';
import { compileWasm } from './compile-wasm.js';

/** Queries one pass over the codes scores at most. */
export const SCAN_QUERIES = 8;

/** One scan instance: its memory holds the codes, up to `SCAN_QUERIES` queries' weights and their scores. */
export interface ScanWorkspace {
  /** `count × dimension` code bytes: fill them before the first scan. */
  readonly codes: Uint8Array;
  /** The query weights the next scan uses: query t's `dimension` weights from t · dimension. */
  readonly weights: Int16Array;
  /** The scores of the last scan: query t's, one per vector, from t · count. */
  readonly scores: Int32Array;
  /** scores[t · count + v] = Σ_j codes[v][j] · weights[t · dimension + j], for every vector and the first `queries`. */
  scan(queries?: number): void;
}

const PAGE = 65536;
/** Vectors per call: V8 optimises a WebAssembly function for its later calls, so one call over every vector would stay in baseline code. */
const SLICE_VECTORS = 2048;

/** Compiled modules by file, once per process. */
const compiled = new Map<string, WebAssembly.Module>();

/** The shipped kernel's file. */
export function scanKernelsFile(): string {
  return packageFile('wasm', 'scan-kernels.wasm');
}

/** Compiles the kernel once per process; throws a one-line `UserError` naming the file when it does not load. */
export function loadScanKernels(file: string = scanKernelsFile()): WebAssembly.Module {
  let module = compiled.get(file);
  if (!module) {
    module = compileWasm(file, 'the vector scan kernel');
    scanFunction(new WebAssembly.Instance(module).exports, file);
    compiled.set(file, module);
  }
  return module;
}

/** The kernel's export: (codes, n, d, weights, queries, out, stride). */
type ScanCodesMany = (codes: number, n: number, d: number, weights: number, queries: number, out: number, stride: number) => void;

/** The kernel's one export, or a `UserError` naming the file. */
function scanFunction(exports: Record<string, unknown>, file: string): ScanCodesMany {
  const raw = exports.scanCodesMany;
  if (typeof raw !== 'function') throw new UserError(`${file} has no scanCodesMany: rebuild it with node scripts/build-wasm.mjs`);
  return raw as ScanCodesMany;
}

/** A workspace for `count` vectors of `dimension` bytes. */
export function scanWorkspace(count: number, dimension: number, file: string = scanKernelsFile()): ScanWorkspace {
  const instance = new WebAssembly.Instance(loadScanKernels(file));
  const memory = instance.exports.memory as WebAssembly.Memory;
  const scanCodes = scanFunction(instance.exports, file);
  const align = (n: number): number => Math.ceil(n / 16) * 16;
  const codesAt = memory.buffer.byteLength;
  const weightsAt = codesAt + align(count * dimension);
  const scoresAt = weightsAt + align(2 * dimension * SCAN_QUERIES);
  const end = scoresAt + 4 * count * SCAN_QUERIES;
  if (end > 2 ** 32) throw new UserError(`a quantized vector index of ${count}×${dimension} is over the scan's 4 GiB`);
  memory.grow(Math.ceil(end / PAGE) - memory.buffer.byteLength / PAGE);
  const codes = new Uint8Array(memory.buffer, codesAt, count * dimension);
  const weights = new Int16Array(memory.buffer, weightsAt, dimension * SCAN_QUERIES);
  const scores = new Int32Array(memory.buffer, scoresAt, count * SCAN_QUERIES);
  return {
    codes,
    weights,
    scores,
    scan(queries = 1) {
      if (!Number.isInteger(queries) || queries < 1 || queries > SCAN_QUERIES) {
        throw new RangeError(`a scan scores 1 to ${SCAN_QUERIES} queries, not ${queries}`);
      }
      for (let from = 0; from < count; from += SLICE_VECTORS) {
        const n = Math.min(SLICE_VECTORS, count - from);
        scanCodes(codesAt + from * dimension, n, dimension, weightsAt, queries, scoresAt + 4 * from, 4 * count);
      }
    },
  };
}

/**
 * The LSA fit's dense kernels, compiled to WebAssembly (`wasm/dense-kernels.wat`, assembled into the shipped
 * `wasm/dense-kernels.wasm` by `scripts/build-wasm.mjs`). They do the products of the randomized SVD and the folding-in
 * of every document, which were most of an ingest's time in plain JavaScript. Each kernel performs the same
 * floating-point operations in the same order as the JavaScript loops it replaced (two lanes at once, never a fused
 * or reassociated sum), so a fit, its model id and every vector are bit for bit what they were.
 */
import { UserError } from '../../errors.js';
import { packageFile } from '../../paths.js';
import { compileWasm } from '../compile-wasm.js';

/** The kernels; every matrix argument is the byte offset of a block in the workspace's memory. */
export interface DenseKernels {
  /** Y += X · W: X sparse in compressed rows (row starts i32, column indices i32, values f64), W (cols × l), Y (rows × l). */
  csrTimesDense(rows: number, rowStart: number, indices: number, values: number, w: number, y: number, l: number): void;
  /** Z += Xᵀ · Q: X as above, Q (rows × l), Z (cols × l). */
  csrTransposedTimesDense(rows: number, rowStart: number, indices: number, values: number, q: number, z: number, l: number): void;
  /** Orthonormalises `l` columns of length `m`, stored one after the other (modified Gram-Schmidt, twice); dependent columns become zero. */
  orthonormalizeColumns(columns: number, m: number, l: number): void;
  /** C += Qᵀ · Y for Q and Y (m × l), C (l × l). */
  crossProduct(q: number, y: number, c: number, m: number, l: number): void;
  /** W[i][k] = (Q[i] · U[k]) / s[k] for Q (m × l), U (r × l), s (r), W (m × r). */
  projectRows(q: number, u: number, s: number, w: number, m: number, r: number, l: number): void;
  /** Out += X · P in float32: X as above, P (cols × d) and Out (rows × d) Float32 (each element summed in doubles, rounded once). */
  embedRows(rows: number, rowStart: number, indices: number, values: number, p: number, out: number, d: number): void;
}

/** A block's element type. */
export type BlockKind = 'f64' | 'f32' | 'i32';
/** The blocks of a workspace: name → element type and length. */
export type WorkspaceLayout = Record<string, readonly [BlockKind, number]>;
type ArrayOf<K extends BlockKind> = K extends 'f64' ? Float64Array : K extends 'f32' ? Float32Array : Int32Array;

/** Kernels with their own memory, sized once for the named blocks. */
export interface KernelWorkspace<L extends WorkspaceLayout> {
  /** Each block as a typed array on the memory: read and write them directly. */
  readonly arrays: { [N in keyof L]: ArrayOf<L[N][0]> };
  /** Each block's byte offset, which is how the kernels take it. */
  readonly at: { [N in keyof L]: number };
  readonly kernels: DenseKernels;
}

const PAGE = 65536;
/** A 32-bit WebAssembly memory addresses at most 4 GiB. */
const MAX_BYTES = 2 ** 32;
const BYTES: Record<BlockKind, number> = { f64: 8, f32: 4, i32: 4 };

let compiled: WebAssembly.Module | undefined;

/**
 * A workspace holding the given blocks, zero-filled, on a fresh instance of the kernels (compiled once per process).
 * Its memory never grows after this, so the arrays stay valid; it is garbage once the caller drops the workspace.
 */
export function kernelWorkspace<L extends WorkspaceLayout>(layout: L): KernelWorkspace<L> {
  compiled ??= compileKernels(kernelsFile());
  const instance = new WebAssembly.Instance(compiled);
  const memory = instance.exports.memory as WebAssembly.Memory;
  const at: Record<string, number> = {};
  // Blocks start on 16 bytes (one SIMD register) after what the module's memory already holds.
  let end = memory.buffer.byteLength;
  for (const [name, [kind, length]] of Object.entries(layout)) {
    at[name] = end;
    end += Math.ceil((length * BYTES[kind]) / 16) * 16;
  }
  if (end > MAX_BYTES) {
    throw new UserError(
      `the LSA fit needs ${(end / 2 ** 30).toFixed(1)} GiB of kernel memory, over the 4 GiB limit; lower the embedder's dimension in exam-copilot.config.json`,
    );
  }
  const pages = Math.ceil(end / PAGE) - memory.buffer.byteLength / PAGE;
  if (pages > 0) memory.grow(pages);
  const arrays: Record<string, Float64Array | Float32Array | Int32Array> = {};
  for (const [name, [kind, length]] of Object.entries(layout)) {
    const offset = at[name]!;
    arrays[name] =
      kind === 'f64'
        ? new Float64Array(memory.buffer, offset, length)
        : kind === 'f32'
          ? new Float32Array(memory.buffer, offset, length)
          : new Int32Array(memory.buffer, offset, length);
  }
  const kernels = slicedKernels(instance.exports);
  return {
    arrays: arrays as KernelWorkspace<L>['arrays'],
    at: at as KernelWorkspace<L>['at'],
    kernels,
  };
}

/** The shipped kernels' file. */
export function kernelsFile(): string {
  return packageFile('wasm', 'dense-kernels.wasm');
}

/**
 * Compiles and instantiates the kernels of `file` and checks that it exports every one, as a fit would before its
 * first product; throws a `UserError` naming the file otherwise (`doctor` runs it).
 */
export function checkKernels(file: string = kernelsFile()): void {
  slicedKernels(new WebAssembly.Instance(compileKernels(file)).exports);
}

/** The kernels' module (`compileWasm`): a package without its `wasm/` folder, or with a damaged one, says so on one line. */
export function compileKernels(file: string): WebAssembly.Module {
  return compileWasm(file, "the LSA fit's kernels");
}

/** Rows per call of a row-wise kernel: enough work per call to make the call's cost nothing, small enough to tier up. */
const SLICE_ROWS = 16;

/**
 * The kernels as `DenseKernels` describes them, each called on `SLICE_ROWS` rows (or one column) at a time. V8 runs a
 * WebAssembly function in its baseline compiler until a later call finds it optimised; one call over a whole matrix
 * would stay in baseline code throughout (the fold-in of the 252-page book's 1,472 chunks took about twice as long).
 * Slices are visited in order, so every sum is formed in the same order as in a single call.
 */
function slicedKernels(exports: Record<string, unknown>): DenseKernels {
  const kernel = (name: keyof DenseKernels): ((...args: number[]) => void) => {
    const f = exports[name];
    if (typeof f !== 'function') throw new UserError(`wasm/dense-kernels.wasm has no ${name}: rebuild it with node scripts/build-wasm.mjs`);
    return f as (...args: number[]) => void;
  };
  const raw = {
    csrTimesDense: kernel('csrTimesDense'),
    csrTransposedTimesDense: kernel('csrTransposedTimesDense'),
    orthonormalizeColumns: kernel('orthonormalizeColumns'),
    crossProduct: kernel('crossProduct'),
    projectRows: kernel('projectRows'),
    embedRows: kernel('embedRows'),
  };
  const slices = (rows: number, each: (from: number, count: number) => void): void => {
    for (let from = 0; from < rows; from += SLICE_ROWS) each(from, Math.min(SLICE_ROWS, rows - from));
  };
  return {
    csrTimesDense: (rows, rowStart, indices, values, w, y, l) =>
      slices(rows, (from, count) => raw.csrTimesDense(count, rowStart + 4 * from, indices, values, w, y + 8 * l * from, l)),
    csrTransposedTimesDense: (rows, rowStart, indices, values, q, z, l) =>
      slices(rows, (from, count) => raw.csrTransposedTimesDense(count, rowStart + 4 * from, indices, values, q + 8 * l * from, z, l)),
    orthonormalizeColumns: (columns, m, l) => {
      for (let j = 0; j < l; j++) raw.orthonormalizeColumns(columns, m, j, j + 1);
    },
    crossProduct: (q, y, c, m, l) => slices(m, (from, count) => raw.crossProduct(q + 8 * l * from, y + 8 * l * from, c, count, l)),
    projectRows: (q, u, s, w, m, r, l) =>
      slices(m, (from, count) => raw.projectRows(q + 8 * l * from, u, s, w + 8 * r * from, count, r, l)),
    embedRows: (rows, rowStart, indices, values, p, out, d) =>
      slices(rows, (from, count) => raw.embedRows(count, rowStart + 4 * from, indices, values, p, out + 4 * d * from, d)),
  };
}

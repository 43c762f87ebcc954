import { seededRandom } from '../../seeded-random.js';

/**
 * Truncated SVD of a sparse matrix by the randomized range finder of Halko, Martinsson & Tropp
 * (2011, "Finding structure with randomness", Alg. 4.4 with subspace iteration). Deterministic for a
 * given seed, so the same corpus always fits the same LSA model (and the same embedder id).
 */

/** A sparse matrix in compressed-row form: row i holds `indices/values[rowStart[i] .. rowStart[i+1])`. */
export interface CsrMatrix {
  rows: number;
  cols: number;
  rowStart: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

export interface TruncatedSvd {
  /** Right singular vectors, `cols × rank`, row-major: row j is the latent vector of column (term) j. */
  v: Float64Array;
  singularValues: Float64Array;
  rank: number;
}


function gaussian(rand: () => number): number {
  // Box-Muller; 1 - u keeps log() away from 0.
  const u = 1 - rand();
  const v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Y = X · W, with W `cols × l` column-major (array of columns); Y returned column-major `rows × l`. */
function multiply(x: CsrMatrix, w: Float64Array[]): Float64Array[] {
  const l = w.length;
  const y = Array.from({ length: l }, () => new Float64Array(x.rows));
  for (let i = 0; i < x.rows; i++) {
    const end = x.rowStart[i + 1]!;
    for (let p = x.rowStart[i]!; p < end; p++) {
      const j = x.indices[p]!;
      const v = x.values[p]!;
      for (let c = 0; c < l; c++) y[c]![i]! += v * w[c]![j]!;
    }
  }
  return y;
}

/** Z = Xᵀ · Q, with Q column-major `rows × l`; Z column-major `cols × l`. */
function multiplyTransposed(x: CsrMatrix, q: Float64Array[]): Float64Array[] {
  const l = q.length;
  const z = Array.from({ length: l }, () => new Float64Array(x.cols));
  for (let i = 0; i < x.rows; i++) {
    const end = x.rowStart[i + 1]!;
    for (let p = x.rowStart[i]!; p < end; p++) {
      const j = x.indices[p]!;
      const v = x.values[p]!;
      for (let c = 0; c < l; c++) z[c]![j]! += v * q[c]![i]!;
    }
  }
  return z;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Orthonormalises columns in place (modified Gram-Schmidt, twice for stability); dependent columns become zero. */
function orthonormalize(cols: Float64Array[]): void {
  for (let j = 0; j < cols.length; j++) {
    const cj = cols[j]!;
    const before = Math.sqrt(dot(cj, cj));
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < j; i++) {
        const ci = cols[i]!;
        const r = dot(ci, cj);
        if (r !== 0) for (let t = 0; t < cj.length; t++) cj[t]! -= r * ci[t]!;
      }
    }
    const norm = Math.sqrt(dot(cj, cj));
    if (norm <= 1e-10 * Math.max(before, 1e-300)) cj.fill(0);
    else for (let t = 0; t < cj.length; t++) cj[t]! /= norm;
  }
}

/** Eigen-decomposition of a symmetric matrix (cyclic Jacobi). Returns eigenvalues and column eigenvectors, sorted descending. */
export function symmetricEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y]! - a[x * n + x]!);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = a[src * n + src]!;
    for (let k = 0; k < n; k++) vectors[k * n + dst] = v[k * n + src]!;
  });
  return { values, vectors };
}

/** Rank-`rank` truncated SVD of `x` (only V and Σ are kept: LSA folds documents and queries in with V). */
export function randomizedSvd(x: CsrMatrix, rank: number, options: { oversample?: number; powerIterations?: number; seed?: number } = {}): TruncatedSvd {
  const l = Math.max(1, Math.min(rank + (options.oversample ?? 10), x.rows, x.cols));
  const rand = seededRandom(options.seed ?? 42);
  const omega = Array.from({ length: l }, () => {
    const col = new Float64Array(x.cols);
    for (let j = 0; j < x.cols; j++) col[j] = gaussian(rand);
    return col;
  });
  let y = multiply(x, omega);
  orthonormalize(y);
  for (let it = 0; it < (options.powerIterations ?? 3); it++) {
    const z = multiplyTransposed(x, y);
    orthonormalize(z);
    y = multiply(x, z);
    orthonormalize(y);
  }
  // Bᵀ = Xᵀ Q (cols × l); B Bᵀ = Qᵀ X Xᵀ Q is small (l × l), and its eigenvectors give B's left singular vectors.
  const bt = multiplyTransposed(x, y);
  const c = new Float64Array(l * l);
  for (let i = 0; i < l; i++) for (let j = i; j < l; j++) c[i * l + j] = c[j * l + i] = dot(bt[i]!, bt[j]!);
  const { values, vectors } = symmetricEigen(c, l);
  const keep: number[] = [];
  const top = Math.sqrt(Math.max(values[0] ?? 0, 0));
  for (let i = 0; i < l && keep.length < rank; i++) {
    const s = Math.sqrt(Math.max(values[i]!, 0));
    if (s > 1e-8 * Math.max(top, 1e-300)) keep.push(i);
  }
  const r = keep.length;
  const v = new Float64Array(x.cols * r);
  const singularValues = new Float64Array(r);
  keep.forEach((e, outCol) => {
    const s = Math.sqrt(values[e]!);
    singularValues[outCol] = s;
    // V[:, e] = Bᵀ u_e / σ_e
    for (let j = 0; j < x.cols; j++) {
      let sum = 0;
      for (let i = 0; i < l; i++) sum += bt[i]![j]! * vectors[i * l + e]!;
      v[j * r + outCol] = sum / s;
    }
  });
  return { v, singularValues, rank: r };
}

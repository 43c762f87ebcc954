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

/**
 * Y = X · W for a dense `W` stored row-major (`cols × l`); Y row-major `rows × l`. Row-major keeps the inner
 * loop over one contiguous row of W and of Y, which is what makes this fast in JavaScript: the column-major
 * form touched l separate arrays per non-zero and spent its time in cache misses.
 */
export function multiplyDense(x: CsrMatrix, w: Float64Array, l: number): Float64Array {
  const y = new Float64Array(x.rows * l);
  for (let i = 0; i < x.rows; i++) {
    const end = x.rowStart[i + 1]!;
    const yo = i * l;
    for (let p = x.rowStart[i]!; p < end; p++) {
      const wo = x.indices[p]! * l;
      const v = x.values[p]!;
      for (let c = 0; c < l; c++) y[yo + c]! += v * w[wo + c]!;
    }
  }
  return y;
}

/** Z = Xᵀ · Q for a dense `Q` stored row-major (`rows × l`); Z row-major `cols × l`. */
export function multiplyTransposedDense(x: CsrMatrix, q: Float64Array, l: number): Float64Array {
  const z = new Float64Array(x.cols * l);
  for (let i = 0; i < x.rows; i++) {
    const end = x.rowStart[i + 1]!;
    const qo = i * l;
    for (let p = x.rowStart[i]!; p < end; p++) {
      const zo = x.indices[p]! * l;
      const v = x.values[p]!;
      for (let c = 0; c < l; c++) z[zo + c]! += v * q[qo + c]!;
    }
  }
  return z;
}

/** Row-major `m × l` → `l` columns of length `m`. */
function toColumns(a: Float64Array, m: number, l: number): Float64Array[] {
  const cols = Array.from({ length: l }, () => new Float64Array(m));
  for (let i = 0; i < m; i++) for (let c = 0; c < l; c++) cols[c]![i] = a[i * l + c]!;
  return cols;
}

/** `l` columns of length `m` → row-major `m × l`. */
function toRows(cols: readonly Float64Array[], m: number): Float64Array {
  const l = cols.length;
  const a = new Float64Array(m * l);
  for (let c = 0; c < l; c++) {
    const col = cols[c]!;
    for (let i = 0; i < m; i++) a[i * l + c] = col[i]!;
  }
  return a;
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

/**
 * Rank-`rank` truncated SVD of `x` (only V and Σ are kept: LSA folds documents and queries in with V).
 * Subspace iteration runs on the row (document) side: Y ← X (Xᵀ Y), re-orthonormalised each time, so the
 * O(m·l²) orthonormalisations cost rows, not the (usually larger) vocabulary. Σ and U come from the small
 * l × l matrix Qᵀ X Xᵀ Q, and V = Xᵀ Q U Σ⁻¹ is one more sparse product.
 */
export function randomizedSvd(
  x: CsrMatrix,
  rank: number,
  options: { oversample?: number; powerIterations?: number; seed?: number } = {},
): TruncatedSvd {
  const l = Math.max(1, Math.min(rank + (options.oversample ?? 10), x.rows, x.cols));
  const rand = seededRandom(options.seed ?? 42);
  const orthonormalRows = (a: Float64Array): Float64Array => {
    const cols = toColumns(a, x.rows, l);
    orthonormalize(cols);
    return toRows(cols, x.rows);
  };
  // The random test matrix (vocabulary × l, 128 MB for 60k terms) lives only inside this call, so it is garbage by
  // the time the power iterations allocate their own vocabulary-sized products.
  const sketch = (): Float64Array => {
    const omega = new Float64Array(x.cols * l);
    // Column by column, so the random stream (and the fit) does not depend on the storage layout.
    for (let c = 0; c < l; c++) for (let j = 0; j < x.cols; j++) omega[j * l + c] = gaussian(rand);
    return multiplyDense(x, omega, l);
  };
  let q = orthonormalRows(sketch());
  for (let it = 0; it < (options.powerIterations ?? 2); it++) {
    q = orthonormalRows(multiplyDense(x, multiplyTransposedDense(x, q, l), l));
  }
  // C = Qᵀ X Xᵀ Q (l × l): its eigenvectors are B's left singular vectors (B = Qᵀ X), its eigenvalues σ².
  const y = multiplyDense(x, multiplyTransposedDense(x, q, l), l);
  const c = new Float64Array(l * l);
  for (let i = 0; i < x.rows; i++) {
    const o = i * l;
    for (let a = 0; a < l; a++) {
      const qa = q[o + a]!;
      if (qa === 0) continue;
      for (let b = 0; b < l; b++) c[a * l + b]! += qa * y[o + b]!;
    }
  }
  for (let a = 0; a < l; a++) for (let b = a + 1; b < l; b++) c[a * l + b] = c[b * l + a] = (c[a * l + b]! + c[b * l + a]!) / 2;
  const { values, vectors } = symmetricEigen(c, l);
  const keep: number[] = [];
  const top = Math.sqrt(Math.max(values[0] ?? 0, 0));
  for (let i = 0; i < l && keep.length < rank; i++) {
    const s = Math.sqrt(Math.max(values[i]!, 0));
    if (s > 1e-8 * Math.max(top, 1e-300)) keep.push(i);
  }
  const r = keep.length;
  const singularValues = Float64Array.from(keep, (e) => Math.sqrt(values[e]!));
  // W = Q U Σ⁻¹ (rows × r), then V = Xᵀ W (cols × r).
  const w = new Float64Array(x.rows * Math.max(r, 1));
  for (let i = 0; i < x.rows; i++) {
    const o = i * l;
    for (let k = 0; k < r; k++) {
      const e = keep[k]!;
      let sum = 0;
      for (let a = 0; a < l; a++) sum += q[o + a]! * vectors[a * l + e]!;
      w[i * r + k] = sum / singularValues[k]!;
    }
  }
  const v = r > 0 ? multiplyTransposedDense(x, w, r) : new Float64Array(0);
  return { v, singularValues, rank: r };
}

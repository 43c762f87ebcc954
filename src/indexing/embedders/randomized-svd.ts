import { seededRandom } from '../../seeded-random.js';
import { kernelWorkspace } from './dense-kernels.js';

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
  /**
   * Right singular vectors, `cols × rank`, row-major: row j is the latent vector of column (term) j. A view on the
   * kernels' memory, which it keeps alive (about 130 MB for 60k terms): copy what is needed and drop the result.
   */
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
 * Eigen-decomposition of a symmetric matrix: Householder reduction to tridiagonal form, then the implicit QL
 * iteration (EISPACK's tred2 and tql2, as in JAMA's EigenvalueDecomposition). About 4n³ operations where the cyclic
 * Jacobi used before took some 3n³ per sweep and 6–10 sweeps: for the 266 × 266 matrix of an LSA fit, a second
 * instead of a tenth. Returns eigenvalues sorted descending and the eigenvectors as columns (row-major n × n), each
 * signed so that its largest component is positive (an eigenvector's sign is arbitrary; this one does not depend
 * on the method).
 */
export function symmetricEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  // The working matrix is held column by column, col[j][k] for EISPACK's V[k][j], so that every inner loop below, which
  // runs down a column, reads consecutive memory (row by row it took a 266 × 266 fit's eigenproblem some 170 ms). The
  // operations and their order are EISPACK's, so the results are the same to the bit. It ends as the eigenvectors
  // (col[k] for value d[k]); e holds the off-diagonal.
  const col: Float64Array[] = Array.from({ length: n }, (_, j) => Float64Array.from({ length: n }, (_, k) => matrix[k * n + j]!));
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalize(col, d, e, n);
  tridiagonalQl(col, d, e, n);
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => d[y]! - d[x]! || x - y);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = d[src]!;
    let big = 0;
    const vector = col[src]!;
    for (let k = 0; k < n; k++) if (Math.abs(vector[k]!) > Math.abs(big)) big = vector[k]!;
    const sign = big < 0 ? -1 : 1;
    for (let k = 0; k < n; k++) vectors[k * n + dst] = sign * vector[k]!;
  });
  return { values, vectors };
}

/**
 * Householder reduction of the symmetric matrix held by columns in `col` to tridiagonal form (d diagonal, e
 * sub-diagonal); EISPACK tred2, whose V[k][j] is col[j][k].
 */
function tridiagonalize(col: Float64Array[], d: Float64Array, e: Float64Array, n: number): void {
  const column = (j: number): Float64Array => col[j]!;
  for (let j = 0; j < n; j++) d[j] = column(j)[n - 1]!;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = column(j)[i - 1]!;
        column(j)[i] = 0;
        column(i)[j] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k]! /= scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        column(i)[j] = f;
        g = e[j]! + column(j)[j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += column(j)[k]! * d[k]!;
          e[k]! += column(j)[k]! * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j]! /= h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j]! -= hh * d[j]!;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        g = e[j]!;
        for (let k = j; k <= i - 1; k++) column(j)[k]! -= f * e[k]! + g * d[k]!;
        d[j] = column(j)[i - 1]!;
        column(j)[i] = 0;
      }
    }
    d[i] = h;
  }
  // Accumulate the transformations.
  for (let i = 0; i < n - 1; i++) {
    column(i)[n - 1] = column(i)[i]!;
    column(i)[i] = 1;
    const h = d[i + 1]!;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = column(i + 1)[k]! / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += column(i + 1)[k]! * column(j)[k]!;
        for (let k = 0; k <= i; k++) column(j)[k]! -= g * d[k]!;
      }
    }
    for (let k = 0; k <= i; k++) column(i + 1)[k] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = column(j)[n - 1]!;
    column(j)[n - 1] = 0;
  }
  column(n - 1)[n - 1] = 1;
  e[0] = 0;
}

/** Implicit QL iteration on the tridiagonal matrix (d, e), rotating the eigenvectors held by columns in `col`; EISPACK tql2. */
function tridiagonalQl(col: Float64Array[], d: Float64Array, e: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n && Math.abs(e[m]!) > eps * tst1) m++;
    if (m > l) {
      do {
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i]! -= h;
        f += h;
        p = d[m]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          const next = col[i + 1]!;
          const here = col[i]!;
          for (let k = 0; k < n; k++) {
            h = next[k]!;
            next[k] = s * here[k]! + c * h;
            here[k] = c * here[k]! - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > eps * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
}

/**
 * Rank-`rank` truncated SVD of `x` (only V and Σ are kept: LSA folds documents and queries in with V).
 * Subspace iteration runs on the row (document) side: Y ← X (Xᵀ Y), re-orthonormalised each time, so the
 * O(m·l²) orthonormalisations cost rows, not the (usually larger) vocabulary. Σ and U come from the small
 * l × l matrix Qᵀ X Xᵀ Q, and V = Xᵀ Q U Σ⁻¹ is one more sparse product. The products run in the dense kernels
 * (`dense-kernels.ts`), on one workspace whose vocabulary-sized block holds Ω, then each Xᵀ Q, then V.
 */
export function randomizedSvd(
  x: CsrMatrix,
  rank: number,
  options: { oversample?: number; powerIterations?: number; seed?: number } = {},
): TruncatedSvd {
  const m = x.rows;
  const n = x.cols;
  const l = Math.max(1, Math.min(rank + (options.oversample ?? 10), m, n));
  const rand = seededRandom(options.seed ?? 42);
  const nnz = x.rowStart[m]!;
  const {
    arrays: a,
    at,
    kernels: k,
  } = kernelWorkspace({
    rowStart: ['i32', m + 1],
    indices: ['i32', nnz],
    values: ['f64', nnz],
    // vocabulary × l: Ω, then Xᵀ Q, then V (vocabulary × r). 128 MB for 60k terms.
    wide: ['f64', n * l],
    y: ['f64', m * l],
    q: ['f64', m * l],
    columns: ['f64', m * l],
    c: ['f64', l * l],
    u: ['f64', l * l],
    s: ['f64', l],
  });
  a.rowStart.set(x.rowStart.subarray(0, m + 1));
  a.indices.set(x.indices.subarray(0, nnz));
  a.values.set(x.values.subarray(0, nnz));
  const times = (w: number, y: number, width: number): void => k.csrTimesDense(m, at.rowStart, at.indices, at.values, w, y, width);
  const transposedTimes = (q: number, z: number, width: number): void =>
    k.csrTransposedTimesDense(m, at.rowStart, at.indices, at.values, q, z, width);
  /** Q = the orthonormalised columns of Y (both row-major m × l). */
  const orthonormalizeY = (): void => {
    const { y, q, columns } = a;
    for (let i = 0; i < m; i++) for (let col = 0; col < l; col++) columns[col * m + i] = y[i * l + col]!;
    k.orthonormalizeColumns(at.columns, m, l);
    for (let col = 0; col < l; col++) for (let i = 0; i < m; i++) q[i * l + col] = columns[col * m + i]!;
  };
  /** Y = X Xᵀ Q. */
  const powerStep = (): void => {
    a.wide.fill(0);
    transposedTimes(at.q, at.wide, l);
    a.y.fill(0);
    times(at.wide, at.y, l);
  };
  // Ω column by column, so the random stream (and the fit) does not depend on the storage layout.
  for (let col = 0; col < l; col++) for (let j = 0; j < n; j++) a.wide[j * l + col] = gaussian(rand);
  times(at.wide, at.y, l);
  orthonormalizeY();
  for (let it = 0; it < (options.powerIterations ?? 2); it++) {
    powerStep();
    orthonormalizeY();
  }
  // C = Qᵀ X Xᵀ Q (l × l): its eigenvectors are B's left singular vectors (B = Qᵀ X), its eigenvalues σ².
  powerStep();
  k.crossProduct(at.q, at.y, at.c, m, l);
  const c = a.c;
  for (let i = 0; i < l; i++) for (let j = i + 1; j < l; j++) c[i * l + j] = c[j * l + i] = (c[i * l + j]! + c[j * l + i]!) / 2;
  const { values, vectors } = symmetricEigen(c, l);
  const keep: number[] = [];
  const top = Math.sqrt(Math.max(values[0] ?? 0, 0));
  for (let i = 0; i < l && keep.length < rank; i++) {
    const sv = Math.sqrt(Math.max(values[i]!, 0));
    if (sv > 1e-8 * Math.max(top, 1e-300)) keep.push(i);
  }
  const r = keep.length;
  const singularValues = Float64Array.from(keep, (e) => Math.sqrt(values[e]!));
  if (r === 0) return { v: new Float64Array(0), singularValues, rank: 0 };
  // W = Q U Σ⁻¹ (m × r, in the block Y held), then V = Xᵀ W (vocabulary × r). The kept eigenvectors as rows of U.
  for (let row = 0; row < r; row++) for (let col = 0; col < l; col++) a.u[row * l + col] = vectors[col * l + keep[row]!]!;
  a.s.set(singularValues);
  k.projectRows(at.q, at.u, at.s, at.y, m, r, l);
  a.wide.fill(0, 0, n * r);
  transposedTimes(at.y, at.wide, r);
  // A view, not a copy: the caller takes what it needs (the fit, a float32 copy) and lets the workspace go.
  return { v: a.wide.subarray(0, n * r), singularValues, rank: r };
}

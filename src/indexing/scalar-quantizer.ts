/**
 * FAISS's 8-bit scalar quantizer (`ScalarQuantizer`, QT_8bit, RS_minmax), computed as FAISS computes it in float32:
 * each dimension's range over the vectors (vmin, vdiff = vmax − vmin) and each component as
 * `(int)(255 · clamp((x − vmin) / vdiff, 0, 1))`. A file written from these is what FAISS writes for the same vectors
 * (test/indexing/quantized-vector-index.test.ts compares the bytes with faiss-node's).
 */
import { writeFileSync } from 'node:fs';
import { encodeScalarQuantizer8 } from './faiss-format.js';

const f = Math.fround;

/**
 * Writes the 8-bit codes of a flat index's vectors (FAISS's `IndexScalarQuantizer` file, readable by Python's
 * `faiss.read_index`), which `QuantizedVectorIndex` scans instead of the flat file.
 */
export function writeQuantizedCodes(file: string, vectors: readonly Float32Array[], dimension: number): void {
  const trained = trainScalarQuantizer8(vectors, dimension);
  writeFileSync(file, encodeScalarQuantizer8(dimension, vectors.length, trained, encodeScalarQuantizer8Codes(vectors, dimension, trained)));
}

/** The trained ranges: vmin[d] then vdiff[d], as FAISS stores them. */
export function trainScalarQuantizer8(vectors: readonly Float32Array[], dimension: number): Float32Array {
  const trained = new Float32Array(2 * dimension);
  if (vectors.length === 0) return trained;
  const vmin = trained.subarray(0, dimension);
  const vmax = new Float32Array(vectors[0]!.subarray(0, dimension));
  vmin.set(vmax);
  for (const v of vectors) {
    for (let j = 0; j < dimension; j++) {
      const x = v[j] as number;
      if (x < (vmin[j] as number)) vmin[j] = x;
      if (x > (vmax[j] as number)) vmax[j] = x;
    }
  }
  for (let j = 0; j < dimension; j++) trained[dimension + j] = f((vmax[j] as number) - (vmin[j] as number));
  return trained;
}

/** The codes of `vectors`, one byte per dimension, row after row. */
export function encodeScalarQuantizer8Codes(vectors: readonly Float32Array[], dimension: number, trained: Float32Array): Uint8Array {
  const codes = new Uint8Array(vectors.length * dimension);
  vectors.forEach((v, row) => {
    const base = row * dimension;
    for (let j = 0; j < dimension; j++) {
      const vdiff = trained[dimension + j] as number;
      let x = 0;
      if (vdiff !== 0) {
        x = f(f((v[j] as number) - (trained[j] as number)) / vdiff);
        if (x < 0) x = 0;
        if (x > 1) x = 1;
      }
      codes[base + j] = Math.trunc(f(255 * x));
    }
  });
  return codes;
}

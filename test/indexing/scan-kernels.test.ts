import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanWorkspace } from '../../src/indexing/scan-kernels.js';

/** A reproducible stream of integers in [0, bound). */
function numbers(seed: number): (bound: number) => number {
  let x = seed >>> 0;
  return (bound) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % bound;
  };
}

describe('the vector scan kernel', () => {
  it('gives every vector the exact integer dot product, for any dimension (a tail past the blocks of eight) and count (past one call of 2048)', () => {
    for (const d of [16, 48, 256, 8, 24, 7, 1]) {
      for (const count of [1, 2, 5, 2048, 2051]) {
        const next = numbers(d * 7919 + count);
        const scan = scanWorkspace(count, d);
        for (let i = 0; i < scan.codes.length; i++) scan.codes[i] = next(256);
        // Weights at the bound the index keeps (255 · Σ|w| < 2³¹), of both signs.
        const limit = Math.min(16383, Math.floor((2 ** 31 - 1) / (255 * d)));
        for (let j = 0; j < d; j++) scan.weights[j] = next(2 * limit + 1) - limit;
        scan.weights[0] = limit;
        scan.scan();
        for (let v = 0; v < count; v++) {
          let want = 0;
          for (let j = 0; j < d; j++) want += scan.codes[v * d + j]! * scan.weights[j]!;
          assert.equal(scan.scores[v], want, `d ${d}, ${count} vectors, vector ${v}`);
        }
      }
    }
  });
});

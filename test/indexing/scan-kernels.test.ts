import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BestRows } from '../../src/indexing/best-rows.js';
import { SCAN_QUERIES, scanWorkspace } from '../../src/indexing/scan-kernels.js';

/** A reproducible stream of integers in [0, bound). */
function numbers(seed: number): (bound: number) => number {
  let x = seed >>> 0;
  return (bound) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % bound;
  };
}

describe('the vector scan kernel', () => {
  it('gives every vector the exact integer dot product with each query, for any dimension (a tail past the blocks of eight), count (past one call of 2048) and number of queries in the pass', () => {
    for (const d of [16, 48, 256, 8, 24, 7, 1]) {
      for (const count of [1, 2, 5, 2048, 2051]) {
        const next = numbers(d * 7919 + count);
        const scan = scanWorkspace(count, d);
        for (let i = 0; i < scan.codes.length; i++) scan.codes[i] = next(256);
        // Weights at the bound the index keeps (255 · Σ|w| < 2³¹), of both signs.
        const limit = Math.min(16383, Math.floor((2 ** 31 - 1) / (255 * d)));
        for (let j = 0; j < scan.weights.length; j++) scan.weights[j] = next(2 * limit + 1) - limit;
        scan.weights[0] = limit;
        for (const queries of [1, 3, SCAN_QUERIES]) {
          scan.scores.fill(-1);
          scan.scan(queries);
          for (let t = 0; t < SCAN_QUERIES; t++) {
            for (let v = 0; v < count; v++) {
              let want = 0;
              for (let j = 0; j < d; j++) want += scan.codes[v * d + j]! * scan.weights[t * d + j]!;
              // Queries past those asked for are left as they were.
              assert.equal(
                scan.scores[t * count + v],
                t < queries ? want : -1,
                `d ${d}, ${count} vectors, query ${t} of ${queries}, vector ${v}`,
              );
            }
          }
        }
      }
    }
  });

  it("picks each query's best rows as a heap over every row does: higher score, then lower row, whatever the spread", () => {
    const count = 5000;
    const scan = scanWorkspace(count, 8);
    const spreads: Array<[string, (next: (bound: number) => number, v: number) => number]> = [
      ['wide, both signs', (next) => next(2 ** 31) - 2 ** 30],
      [
        'the extremes of 32 bits',
        (next) => (next(2) === 0 ? -(2 ** 31) : 2 ** 31 - 1) + (next(2) === 0 ? 0 : next(3) * (next(2) ? 1 : -1)),
      ],
      ['few values, many ties', (next) => next(7)],
      ['all equal', () => 42],
      ['a long tail under a few high scores', (next, v) => (v % 997 === 0 ? 10 ** 6 + next(1000) : next(1000))],
      ['ascending', (_, v) => v],
    ];
    for (const [name, score] of spreads) {
      const next = numbers(name.length * 31 + 7);
      for (let t = 0; t < SCAN_QUERIES; t++) {
        for (let v = 0; v < count; v++) {
          const x = score(next, v);
          scan.scores[t * count + v] = Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, x));
        }
      }
      for (const [t, depth] of [
        [0, 1],
        [1, 10],
        [2, 160],
        [3, 4999],
        [4, 5000],
        [5, 9000],
        [6, 0],
      ] as const) {
        const heap = new BestRows(Math.min(depth, count));
        for (let v = 0; v < count; v++) heap.offer(v, scan.scores[t * count + v]!);
        assert.deepEqual(scan.best(t, depth), heap.sorted().rows, `${name}, depth ${depth}`);
      }
    }
  });

  it('scores window by window, through `load`, exactly as with every code held, and picks the same best rows', () => {
    for (const [count, d] of [
      [2051, 24],
      [5000, 8],
      [3, 7],
    ] as const) {
      const next = numbers(count + d);
      const all = scanWorkspace(count, d);
      for (let i = 0; i < all.codes.length; i++) all.codes[i] = next(256);
      for (let j = 0; j < all.weights.length; j++) all.weights[j] = next(401) - 200;
      all.scan(SCAN_QUERIES);
      for (const window of [1, 7, 2048, 2050, count, count + 5]) {
        const streamed = scanWorkspace(count, d, { window });
        assert.equal(streamed.window, Math.min(window, count));
        assert.equal(streamed.codes.length, streamed.window * d);
        streamed.weights.set(all.weights);
        // A window as large as the index holds every code, filled once as an unwindowed workspace's are.
        if (streamed.window === count) streamed.codes.set(all.codes);
        const loads: number[][] = [];
        streamed.scan(SCAN_QUERIES, (from, n) => {
          loads.push([from, n]);
          streamed.codes.set(all.codes.subarray(from * d, (from + n) * d));
        });
        // Every vector loaded once, in order, a window at a time (none when the window holds them all).
        const windows = window >= count ? [] : Array.from({ length: Math.ceil(count / window) }, (_, w) => w * window);
        assert.deepEqual(
          loads,
          windows.map((from) => [from, Math.min(window, count - from)]),
          `${count}×${d}, window ${window}`,
        );
        assert.deepEqual(streamed.scores, all.scores, `${count}×${d}, window ${window}`);
        for (let t = 0; t < SCAN_QUERIES; t++) assert.deepEqual(streamed.best(t, 40), all.best(t, 40));
      }
    }
  });

  it('refuses a window of no vectors, and a windowed pass without the codes of its windows', () => {
    assert.throws(() => scanWorkspace(10, 8, { window: 0 }), RangeError);
    assert.throws(() => scanWorkspace(10, 8, { window: 2.5 }), RangeError);
    assert.throws(() => scanWorkspace(10, 8, { window: 4 }).scan(1), /needs the codes of each window/);
  });

  it('refuses a pass of no queries or of more than it has room for, and the best rows of a query it holds no scores for', () => {
    const scan = scanWorkspace(4, 8);
    assert.throws(() => scan.scan(0), RangeError);
    assert.throws(() => scan.scan(SCAN_QUERIES + 1), RangeError);
    assert.throws(() => scan.best(SCAN_QUERIES, 1), RangeError);
    assert.throws(() => scan.best(-1, 1), RangeError);
  });
});

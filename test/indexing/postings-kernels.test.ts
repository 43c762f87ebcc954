import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BestRows } from '../../src/indexing/best-rows.js';
import { postingsWorkspace } from '../../src/indexing/postings-kernels.js';

/** A reproducible stream of integers in [0, bound). */
function numbers(seed: number): (bound: number) => number {
  let x = seed >>> 0;
  return (bound) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % bound;
  };
}

interface Term {
  rows: Uint32Array;
  doubled: Uint16Array;
  idf: number;
  repeat: number;
}

/** A term's postings: distinct ascending rows out of 0 … maxRow, frequencies from ½ up. */
function term(next: (bound: number) => number, maxRow: number, count: number): Term {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(next(maxRow + 1));
  const rows = Uint32Array.from([...picked].sort((a, b) => a - b));
  return { rows, doubled: Uint16Array.from(rows, () => 1 + next(12)), idf: 0.1 + next(1000) / 97, repeat: 1 + next(3) };
}

/** bm25()'s sums and the best k, written out in JavaScript as keyword-postings.ts summed them before the kernel. */
function reference(norms: Float64Array, terms: readonly Term[], k: number, k1: number): { rows: number[]; scores: number[] } {
  const scores = new Map<number, number>();
  for (const { rows, doubled, idf, repeat } of terms) {
    rows.forEach((row, p) => {
      const f = doubled[p]! / 2;
      const part = idf * ((f * (k1 + 1.0)) / (f + norms[row]!));
      let s = scores.get(row) ?? 0;
      for (let r = 0; r < repeat; r++) s = s + part;
      scores.set(row, s);
    });
  }
  const best = new BestRows(k);
  for (const [row, s] of scores) best.offer(row, s);
  return best.sorted();
}

describe('the keyword postings kernel', () => {
  it('sums bm25 in query order to the same doubles as JavaScript, and keeps the best k with ties to the lower row', () => {
    const maxRow = 5000;
    const next = numbers(17);
    const space = postingsWorkspace(maxRow);
    const norms = new Float64Array(maxRow + 1).map(() => 0.3 + next(10_000) / 3333);
    // Rows 10–19 share one length, so equal frequencies give equal scores: ties the selection must break by row.
    norms.fill(1, 10, 20);
    space.normBytes().set(new Uint8Array(norms.buffer));
    // Queries that reuse the workspace (each starts from the scores the last one reset), with postings that outgrow its
    // memory (the first 40 postings, the last 4,000), and k below, at and above the rows reached.
    for (const [count, k] of [
      [40, 5],
      [300, 50],
      [4000, 4000],
      [20, 1000],
    ] as const) {
      const terms = [term(next, maxRow, count), term(next, maxRow, Math.ceil(count / 3)), term(next, maxRow, 7)];
      const tied: Term = {
        rows: Uint32Array.from({ length: 10 }, (_, i) => 19 - i),
        doubled: new Uint16Array(10).fill(4),
        idf: 2,
        repeat: 1,
      };
      terms.push(tied);
      for (const t of terms) space.add(t.rows, t.doubled, t.idf, 1.2, t.repeat);
      const reached = new Set(terms.flatMap((t) => [...t.rows])).size;
      assert.equal(space.matched, reached);
      const got = space.best(k);
      const want = reference(norms, terms, k, 1.2);
      assert.deepEqual(got.rows, want.rows, `${count} postings, k ${k}`);
      // Compared by SameValue: the same doubles, not merely close ones.
      assert.deepEqual(got.scores, want.scores);
      assert.equal(space.matched, 0, 'best resets the query');
    }
  });

  it('keeps the norms written before its memory grew, answers no rows for a query that reached none, and refuses k below 1', () => {
    const space = postingsWorkspace(3);
    space.normBytes().set(new Uint8Array(Float64Array.of(1, 2, 3, 4).buffer));
    // 100,000 postings over four rows: the scratch grows by pages, the norms stay.
    const rows = Uint32Array.from({ length: 100_000 }, (_, i) => i % 4);
    space.add(rows, new Uint16Array(rows.length).fill(2), 1, 1.2, 1);
    assert.deepEqual(Array.from(new Float64Array(space.normBytes().slice().buffer)), [1, 2, 3, 4]);
    const best = space.best(4);
    assert.deepEqual(best.rows, [0, 1, 2, 3]);
    const one = (norm: number): number => (1 * 2.2) / (1 + norm);
    best.scores.forEach((s, row) => {
      let want = 0;
      for (let i = 0; i < 25_000; i++) want += one(row + 1);
      assert.equal(s, want);
    });
    assert.deepEqual(space.best(3), { rows: [], scores: [] });
    assert.throws(() => space.best(0), /at least one row/);
    assert.throws(() => space.add(rows, new Uint16Array(3), 1, 1.2, 1), /100000 posting rows but 3 frequencies/);
  });
});

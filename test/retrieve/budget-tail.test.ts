import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { orderTailByBudget } from '../../src/retrieve/budget-tail.js';
import type { Hit } from '../../src/types.js';
import { chunk } from './make-chunk.js';

const ranking = (...lengths: number[]): Hit[] =>
  lengths.map((n, i) => ({ chunk: chunk(`r${i + 1}`, { text: '字'.repeat(n) }), score: 1 / (3 + i) }));
const ids = (hits: readonly Hit[]): string[] => hits.map((h) => h.chunk.chunk_id);

void describe('orderTailByBudget', () => {
  void it('keeps the head and orders the tail by rank prior per character (golden values)', () => {
    // Head of 2; the tail r3..r5 is worth 1/5/400, 1/6/100 and 1/7/200 (rrfK 2): r4, then r5, then r3.
    const out = orderTailByBudget(ranking(500, 500, 400, 100, 200), 2, 2);
    assert.deepEqual(ids(out), ['r1', 'r2', 'r4', 'r5', 'r3']);
    assert.equal(out[0]!.score, 1 / 3);
    assert.equal(out[1]!.score, 1 / 4);
    // The tail continues from the head's last score (1/4 × 4/5), scaled by value per character against r4's (1/600).
    assert.ok(Math.abs(out[2]!.score - 1 / 5) < 1e-15);
    assert.ok(Math.abs(out[3]!.score - (1 / 5) * (600 / 1400)) < 1e-15);
    assert.ok(Math.abs(out[4]!.score - (1 / 5) * (600 / 2000)) < 1e-15);
  });

  void it('keeps the ranking order among tail hits of equal length, and leaves a ranking no longer than the head', () => {
    assert.deepEqual(ids(orderTailByBudget(ranking(100, 50, 50, 50), 1, 2)), ['r1', 'r2', 'r3', 'r4']);
    assert.deepEqual(ids(orderTailByBudget(ranking(900, 10, 5), 2, 2)), ['r1', 'r2', 'r3']);
  });
});

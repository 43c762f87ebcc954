import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleRows } from '../../src/evaluate/select-rows.js';

void describe('sampleRows', () => {
  void it('is deterministic per seed, keeps file order, and has no duplicates', () => {
    const rows = Array.from({ length: 100 }, (_, i) => i);
    const a = sampleRows(rows, 10, 7);
    assert.deepEqual(a, sampleRows(rows, 10, 7));
    assert.notDeepEqual(a, sampleRows(rows, 10, 8));
    assert.equal(new Set(a).size, 10);
    assert.deepEqual(
      a,
      [...a].sort((x, y) => x - y),
    );
    assert.deepEqual(sampleRows(rows, 500, 1), rows);
  });
});

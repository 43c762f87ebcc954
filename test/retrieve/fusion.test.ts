import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { continueScores, rankPrior, reciprocalRankFusion } from '../../src/retrieve/fusion.js';
import type { Hit } from '../../src/types.js';
import { chunk } from './make-chunk.js';

const hits = (...ids: string[]): Hit[] => ids.map((id, i) => ({ chunk: chunk(id), score: 10 - i }));

describe('reciprocalRankFusion', () => {
  it('sums w / (k + rank) over runs (golden values, k = 60)', () => {
    const fused = reciprocalRankFusion([
      { name: 'keyword', hits: hits('a', 'b', 'c'), weight: 1 },
      { name: 'vector', hits: hits('c', 'a', 'd'), weight: 1 },
    ]);
    assert.deepEqual(
      fused.map((h) => h.chunk.chunk_id),
      ['a', 'c', 'b', 'd'],
    );
    assert.ok(Math.abs(fused[0]!.score - (1 / 61 + 1 / 62)) < 1e-12);
    assert.ok(Math.abs(fused[1]!.score - (1 / 63 + 1 / 61)) < 1e-12);
    assert.ok(Math.abs(fused[2]!.score - 1 / 62) < 1e-12);
  });

  it('honours weights and k; weight 0 drops a run', () => {
    const runs = (wk: number, wv: number) => [
      { name: 'keyword', hits: hits('a', 'b'), weight: wk },
      { name: 'vector', hits: hits('b', 'a'), weight: wv },
    ];
    assert.equal(reciprocalRankFusion(runs(1, 2))[0]!.chunk.chunk_id, 'b');
    assert.equal(reciprocalRankFusion(runs(2, 1))[0]!.chunk.chunk_id, 'a');
    assert.deepEqual(
      reciprocalRankFusion(runs(1, 0)).map((h) => h.chunk.chunk_id),
      ['a', 'b'],
    );
    assert.ok(Math.abs(reciprocalRankFusion(runs(1, 1), { k: 1 })[0]!.score - (1 / 2 + 1 / 3)) < 1e-12);
  });

  it('is deterministic on ties and counts a duplicate once', () => {
    const fused = reciprocalRankFusion([
      { name: 'x', hits: hits('a', 'a', 'b'), weight: 1 },
      { name: 'y', hits: hits('b', 'a'), weight: 1 },
    ]);
    assert.deepEqual(
      fused.map((h) => h.chunk.chunk_id),
      ['a', 'b'],
    );
    assert.ok(Math.abs(fused[0]!.score - (1 / 61 + 1 / 62)) < 1e-12);
    assert.deepEqual(reciprocalRankFusion([]), []);
  });

  it('keeps ties that integer weights balance exactly, in order of first appearance (the hybrid: 3 and 1, k = 2)', () => {
    // a: 3/4 + 1/10, b: 3/5 + 1/4. Computed as 3 × (1/5), b's sum would exceed a's by one rounding and jump ahead.
    const fused = reciprocalRankFusion(
      [
        { name: 'keyword', hits: hits('x', 'a', 'b'), weight: 3 },
        { name: 'vector', hits: hits('y', 'b', 'c', 'd', 'e', 'f', 'g', 'a'), weight: 1 },
      ],
      { k: 2 },
    );
    const a = fused.find((h) => h.chunk.chunk_id === 'a')!;
    const b = fused.find((h) => h.chunk.chunk_id === 'b')!;
    assert.equal(a.score, b.score);
    assert.ok(fused.indexOf(a) < fused.indexOf(b));
    assert.equal(rankPrior(2, 2, 3), 3 / 4);
    assert.equal(rankPrior(1, 60), 1 / 61);
  });
});

describe('continueScores', () => {
  it('scores the first placed hit as the next rank would, the rest by their ratio to it (golden values)', () => {
    // After rank 3 scoring 0.5, k = 2: the next rank scores 0.5 × 5 / 6; values 4 and 1 keep their ratio.
    const out = continueScores(0.5, 3, 2, [
      { chunk: chunk('a'), value: 4 },
      { chunk: chunk('b'), value: 1 },
    ]);
    assert.deepEqual(
      out.map((h) => h.chunk.chunk_id),
      ['a', 'b'],
    );
    assert.ok(Math.abs(out[0]!.score - (0.5 * 5) / 6) < 1e-12);
    assert.ok(Math.abs(out[1]!.score - (0.5 * 5) / 6 / 4) < 1e-12);
    assert.deepEqual(continueScores(0.5, 3, 2, []), []);
  });
});

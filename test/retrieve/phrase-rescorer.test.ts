import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CharacterStatistics } from '../../src/indexing/character-rescorer.js';
import { hanBigrams, rescoreByPhrases } from '../../src/retrieve/phrase-rescorer.js';
import type { Hit } from '../../src/types.js';
import { chunk } from './make-chunk.js';

/** Character statistics of a 100-row corpus: 抛 and 掷 rare, 物 and 品 common, anything else in half the rows. */
const stats: CharacterStatistics = {
  documents: 100,
  averageLength: 50,
  docFrequency: (ch) => ({ 抛: 1, 掷: 1, 物: 10, 品: 10 })[ch] ?? 50,
};
const hits = (...texts: [string, string][]): Hit[] => texts.map(([id, text], i) => ({ chunk: chunk(id, { text }), score: 1 / (3 + i) }));
const ids = (out: readonly Hit[]): string[] => out.map((h) => h.chunk.chunk_id);
const options = { depth: 20, weight: 0.5, rrfK: 2 };

void describe('rescoreByPhrases', () => {
  const ranking = hits(['scattered', '物品被抛，再掷'], ['phrase', '禁止抛掷物品'], ['none', '其他文字']);

  void it('lifts the hit holding the question’s adjacent characters (golden scores; both texts have 6 Han characters)', () => {
    const out = rescoreByPhrases('抛掷物品', ranking, stats, options);
    assert.deepEqual(ids(out), ['phrase', 'scattered', 'none']);
    // Bigram weights: 抛掷 = idf(抛) = ln(99.5 / 1.5); 掷物 = (idf(掷) + idf(物)) / 2; 物品 = idf(物) = ln(90.5 / 10.5).
    const rare = Math.log(99.5 / 1.5);
    const common = Math.log(90.5 / 10.5);
    const phrase = rare + (rare + common) / 2 + common;
    assert.ok(Math.abs(out[0]!.score - (1 / 4 + 0.5 / 3)) < 1e-12);
    assert.ok(Math.abs(out[1]!.score - (1 / 3 + (0.5 * (common / phrase)) / 3)) < 1e-12);
    assert.ok(Math.abs(out[2]!.score - 1 / 5) < 1e-12);
  });

  void it('re-scores only the first depth hits and keeps the rest in their order after them', () => {
    const out = rescoreByPhrases('抛掷物品', hits(['a', '其他'], ['b', '文字'], ['phrase', '禁止抛掷物品']), stats, {
      ...options,
      depth: 2,
    });
    assert.deepEqual(ids(out), ['a', 'b', 'phrase']);
  });

  void it('continues the head’s scores after it, so they keep descending (golden scores)', () => {
    const input = hits(['a', '其他'], ['phrase', '禁止抛掷物品'], ['c', '文字'], ['d', '更多']);
    const out = rescoreByPhrases('抛掷物品', input, stats, { ...options, depth: 2 });
    assert.deepEqual(ids(out), ['phrase', 'a', 'c', 'd']);
    // The head's last (a, rank 1, no phrase) scores 1 / 3; the next rank would score 1 / 3 × (2 + 2) / (2 + 3), and d
    // keeps its ratio to c (the fused scores were 1 / 5 and 1 / 6).
    assert.ok(Math.abs(out[1]!.score - 1 / 3) < 1e-12);
    assert.ok(Math.abs(out[2]!.score - 4 / 15) < 1e-12);
    assert.ok(Math.abs(out[3]!.score - ((4 / 15) * 5) / 6) < 1e-12);
  });

  void it('cuts the head at the hit whose text reaches `characters`, so long units are re-scored less deep', () => {
    const input = hits(['short', '其他文字其他文字其他'], ['long', '其他文字'.repeat(10)], ['phrase', '禁止抛掷物品']);
    // 10 characters, then 40: the head ends with the long hit once 15 are reached, and the phrase stays third.
    assert.deepEqual(ids(rescoreByPhrases('抛掷物品', input, stats, { ...options, characters: 15 })), ['short', 'long', 'phrase']);
    assert.deepEqual(ids(rescoreByPhrases('抛掷物品', input, stats, { ...options, characters: 51 })), ['phrase', 'short', 'long']);
    // A first hit as long as the budget leaves a head of one: nothing to re-order.
    assert.deepEqual(ids(rescoreByPhrases('抛掷物品', input, stats, { ...options, characters: 10 })), ['short', 'long', 'phrase']);
  });

  void it('normalises the phrase score by length: the same phrase in a short text counts more than in a long one', () => {
    const out = rescoreByPhrases(
      '抛掷物品',
      hits(['long', '禁止抛掷物品' + '其他文字'.repeat(30)], ['short', '禁止抛掷物品']),
      stats,
      options,
    );
    assert.deepEqual(ids(out), ['short', 'long']);
  });

  void it('finds a phrase across a line break of extracted text', () => {
    const out = rescoreByPhrases('抛掷物品', hits(['a', '物品'], ['broken', '禁止抛\n掷物品']), stats, options);
    assert.deepEqual(ids(out), ['broken', 'a']);
  });

  void it('changes nothing without Han bigrams in the question, with weight 0, or when no hit holds a bigram', () => {
    for (const [query, weight] of [
      ['NAV fund', 0.5],
      ['抛掷物品', 0],
      ['银行存款', 0.5],
    ] as const) {
      const out = rescoreByPhrases(query, ranking, stats, { ...options, weight });
      assert.deepEqual(ids(out), ['scattered', 'phrase', 'none'], query);
      assert.deepEqual(
        out.map((h) => h.score),
        ranking.map((h) => h.score),
      );
    }
  });

  void it('reads bigrams inside runs of Han characters only, after NFKC', () => {
    assert.deepEqual([...hanBigrams('基金A份额，⼈民')], ['基金', '份额', '人民']);
  });
});

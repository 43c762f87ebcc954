import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HybridSearcher } from '../../src/retrieve/hybrid-searcher.js';
import { PROMOTION_STEP, takeEvidence } from '../../src/retrieve/post-process.js';
import { applyQuotePriority } from '../../src/retrieve/quote-priority.js';
import type { Hit, Searcher } from '../../src/types.js';
import { chunk } from './make-chunk.js';

const hit = (id: string, text: string, score = 1): Hit => ({ chunk: chunk(id, { text }), score });

void describe('takeEvidence (small units counted by size)', () => {
  const unit = (id: string, chars: number): Hit => ({ chunk: chunk(id, { text: id.repeat(chars), articles: [`第${id}条`] }), score: 1 });
  const units = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => unit(id, 100));
  void it('counts an article unit shorter than unitChars as its share of a hit', () => {
    // 100 / 300 each: three units are worth one hit, so k = 2 takes six.
    assert.deepEqual(
      takeEvidence(units, 2, 300, 50).map((h) => h.chunk.chunk_id),
      ['a', 'b', 'c', 'd', 'e', 'f'],
    );
    assert.equal(takeEvidence(units, 1, 300, 50).length, 3);
  });
  void it('cuts windows (no article) and long units at k, stops at maxHits, and unitChars 0 is a plain cut', () => {
    const windows = ['a', 'b', 'c'].map((id) => ({ chunk: chunk(id, { text: id.repeat(100) }), score: 1 }));
    assert.equal(takeEvidence(windows, 2, 300, 50).length, 2);
    assert.equal(takeEvidence([unit('x', 400), unit('y', 400), unit('z', 400)], 2, 300, 50).length, 2);
    assert.equal(takeEvidence(units, 5, 300, 4).length, 5);
    assert.equal(takeEvidence(units, 1, 300, 2).length, 2);
    assert.equal(takeEvidence(units, 2, 0, 50).length, 2);
  });
});

void describe('applyQuotePriority', () => {
  const ranked = [
    hit('near', '第十六条 私募基金财产进行托管的，私募基金托管人应当依法履行职责。'),
    hit('quoted', '第四十七条 违反本条例第十六条第二款规定，私募基金托管人未建立业务隔离机制的，责令改正。'),
    hit('other', '第五十条 违反本条例第二十二条第一款规定的，处十万元以上罚款。'),
  ];
  void it('puts the passage that holds a long verbatim run of the query first, whatever the punctuation', () => {
    const out = applyQuotePriority('违反本条例第十六条第二款规定 私募基金托管人未建立业务隔离机', ranked);
    assert.deepEqual(
      out.map((h) => h.chunk.chunk_id),
      ['quoted', 'near', 'other'],
    );
    // The scores still fall with the rank: the quoted passage scores a step above the best below it.
    const scored = ranked.map((h, i) => ({ ...h, score: [0.9, 0.5, 0.3][i]! }));
    assert.deepEqual(
      applyQuotePriority('违反本条例第十六条第二款规定 私募基金托管人未建立业务隔离机', scored).map((h) => h.score),
      [0.9 + PROMOTION_STEP, 0.9, 0.3],
    );
  });
  void it('finds a run of just the needed length wherever it starts in the query', () => {
    // Twelve plain characters (the least that counts here) shared with a passage, starting at each offset of the query.
    const quoted = '私募基金托管人未建立业务';
    for (let lead = 0; lead < 7; lead++) {
      const query = `${'甲乙丙丁戊己庚'.slice(0, lead)}${quoted}${'子丑寅卯辰巳午未申酉戌亥'.slice(lead)}`;
      const passages = [
        hit('near', '第十六条 私募基金财产进行托管的，私募基金托管人应当依法履行职责。'),
        hit('run', `违反本条例规定的，${quoted}。`),
      ];
      assert.deepEqual(
        applyQuotePriority(query, passages).map((h) => h.chunk.chunk_id),
        ['run', 'near'],
        query,
      );
      // One character short of the run: not a quotation.
      const shorter = [passages[0]!, hit('run', `违反本条例规定的，${quoted.slice(0, 11)}。`)];
      assert.deepEqual(
        applyQuotePriority(query, shorter).map((h) => h.chunk.chunk_id),
        ['near', 'run'],
        query,
      );
    }
  });
  void it('leaves a question that quotes nothing at length (a lay question) in the retriever order', () => {
    const out = applyQuotePriority('私募基金托管人没有把业务隔开会被怎么处罚？', ranked);
    assert.deepEqual(
      out.map((h) => h.chunk.chunk_id),
      ['near', 'quoted', 'other'],
    );
  });
});

void describe('HybridSearcher depths', () => {
  const asked: Record<string, number> = {};
  const searcher = (name: string, ids: string[]): Searcher => ({
    name,
    search(_query, k) {
      asked[name] = k;
      return Promise.resolve(ids.slice(0, k).map((id, i) => hit(id, id, 10 - i)));
    },
  });
  void it('fuses the keyword top keywordDepth with the vector top depth', async () => {
    const hybrid = new HybridSearcher(searcher('keyword', ['k1', 'k2', 'k3', 'v1']), searcher('vector', ['v1', 'v2', 'v3', 'k3']), {
      rrfK: 2,
      weights: { keyword: 1, vector: 1 },
      depth: 4,
      keywordDepth: 2,
    });
    const out = await hybrid.search('q', 3);
    assert.deepEqual(asked, { keyword: 2, vector: 4 });
    // k1 and v1 tie at 1/3 (k1 first: the keyword run comes first); k3 is past the keyword depth, so it has only
    // its vector rank 4 (1/6) and ranks below v2 (1/4).
    assert.deepEqual(
      out.map((h) => h.chunk.chunk_id),
      ['k1', 'v1', 'k2'],
    );
  });

  void it('re-scores the fused head by the question’s phrases when given character statistics', async () => {
    const texts: Record<string, string> = { k1: '物品被抛', v1: '禁止抛掷物品', k2: '其他' };
    const run = (name: string, ids: string[]): Searcher => ({
      name,
      search: (_query, k) => Promise.resolve(ids.slice(0, k).map((id, i) => hit(id, texts[id]!, 10 - i))),
    });
    const stats = { documents: 100, averageLength: 10, docFrequency: (ch: string) => ({ 抛: 1, 掷: 1 })[ch] ?? 10 };
    const make = (weight: number) =>
      new HybridSearcher(run('keyword', ['k1', 'k2']), run('vector', ['v1']), {
        rrfK: 2,
        weights: { keyword: 3, vector: 1 },
        depth: 4,
        keywordDepth: 2,
        phrases: { stats, depth: 20, weight },
      });
    // Fused: k1 (3/3), k2 (3/4), v1 (1/3); v1 alone holds 抛掷 and 掷物, and moves up one rank.
    assert.deepEqual(
      (await make(0).search('抛掷物品', 3)).map((h) => h.chunk.chunk_id),
      ['k1', 'k2', 'v1'],
    );
    assert.deepEqual(
      (await make(0.5).search('抛掷物品', 3)).map((h) => h.chunk.chunk_id),
      ['k1', 'v1', 'k2'],
    );
  });

  void it('orders the fused ranking past budgetHead by rank prior per character', async () => {
    const texts: Record<string, string> = { k1: '甲'.repeat(50), v1: '乙'.repeat(400), v2: '丙'.repeat(40) };
    const run = (name: string, ids: string[]): Searcher => ({
      name,
      search: (_query, k) => Promise.resolve(ids.slice(0, k).map((id, i) => hit(id, texts[id]!, 10 - i))),
    });
    const make = (budgetHead?: number) =>
      new HybridSearcher(run('keyword', ['k1']), run('vector', ['v1', 'v2']), {
        rrfK: 2,
        weights: { keyword: 3, vector: 1 },
        depth: 4,
        keywordDepth: 1,
        ...(budgetHead === undefined ? {} : { budgetHead }),
      });
    // Fused: k1, v1, v2. Past a head of 1, v2 (1/5 per 40 characters, rank 3) is worth more than v1 (1/4 per 400, rank 2).
    assert.deepEqual(
      (await make().search('q', 3)).map((h) => h.chunk.chunk_id),
      ['k1', 'v1', 'v2'],
    );
    assert.deepEqual(
      (await make(1).search('q', 3)).map((h) => h.chunk.chunk_id),
      ['k1', 'v2', 'v1'],
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import { openFtsIndex, type FtsIndex } from '../../src/indexing/fts-index.js';
import { diverseCandidates, splitQueryTerms, unicodeTokens, type TwoStageOptions } from '../../src/indexing/fts-two-stage.js';
import { projectPaths } from '../../src/paths.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const QUERIES = ['基金托管人的职责是什么', '开放式基金的申购和赎回', '货币市场基金投资于哪些工具', '基金份额持有人大会的召集'];

describe('two-stage keyword search', () => {
  let fx: FixtureIndex;
  let exact: FtsIndex;
  let split: FtsIndex;
  // Splits every query: the two rarest terms go to FTS5, the rest are scored on the candidates (every row holding a rare term).
  const always: TwoStageOptions = { minCommonPostings: -1, rareShare: 0, minRareTerms: 2, candidates: 10_000, fetchFactor: 1 };
  before(async () => {
    fx = await buildFixtureIndex();
    const { analyzer } = analyzerFromConfig(fx.root, loadConfig({ root: fx.root, env: {} }).config);
    const never: TwoStageOptions = { ...always, minCommonPostings: Number.POSITIVE_INFINITY };
    // FTS5 ranks both (not the postings file, which ranks every unfiltered query in one stage).
    exact = openFtsIndex(projectPaths(fx.root).ftsDb, analyzer, { twoStage: never, postings: false });
    split = openFtsIndex(projectPaths(fx.root).ftsDb, analyzer, { twoStage: always, postings: false });
  });
  after(() => {
    exact.close();
    split.close();
    fx.cleanup();
  });

  it("a candidate's score is the one FTS5's bm25() gives it for the whole query", () => {
    let compared = 0;
    let narrower = 0;
    for (const q of QUERIES) {
      const whole = new Map(exact.search(q, 100).map((h) => [h.chunk.chunk_id, h.score]));
      const hits = split.search(q, 100);
      // Rows holding only common terms are not candidates: the query was split.
      if (hits.length < whole.size) narrower++;
      for (const h of hits) {
        const want = whole.get(h.chunk.chunk_id);
        assert.ok(want !== undefined, `${q}: ${h.chunk.chunk_id} matches the whole query too`);
        assert.ok(Math.abs(h.score - want) < 1e-9, `${q}: ${h.chunk.chunk_id} scored ${h.score}, FTS5 ${want}`);
        compared++;
      }
    }
    assert.ok(compared >= 8, `compared ${compared} rows`);
    assert.ok(narrower > 0, 'some query was split');
  });

  it('splits only when the common terms hold many rows, and keeps phrases FTS5 must count in the first stage', () => {
    const terms = [
      { term: '托管人', df: 3, repeat: 1 },
      { term: '基金', df: 900, repeat: 2 },
      { term: '规定', df: 800, repeat: 1 },
      { term: '0.05', df: 700, repeat: 1 },
    ];
    const options: TwoStageOptions = { minCommonPostings: 1000, rareShare: 0.01, minRareTerms: 1, candidates: 100, fetchFactor: 10 };
    const parts = splitQueryTerms(terms, 10_000, options);
    assert.deepEqual(
      parts?.rare.map((t) => t.term),
      ['托管人', '0.05'],
    );
    assert.deepEqual(
      parts?.common.map((t) => t.term),
      ['基金', '规定'],
    );
    assert.equal(splitQueryTerms(terms, 10_000, { ...options, minCommonPostings: 5000 }), null, '1,700 common rows: one query');
    assert.deepEqual(unicodeTokens('0.05'), ['0', '05']);
    assert.deepEqual(unicodeTokens('Café'), ['cafe']);
  });

  it('a word of lowercase ASCII, digits or CJK ideographs is its own one token, as the Unicode-property split says', () => {
    // The split unicodeTokens makes of any other text, applied to every character the one-word shortcut takes.
    const split = (text: string): string[] =>
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}\p{Co}]+/u)
        .filter(Boolean);
    for (const [from, to] of [
      [0x61, 0x7a],
      [0x30, 0x39],
      [0x3400, 0x4dbf],
      [0x4e00, 0x9fff],
    ] as const) {
      for (let c = from; c <= to; c++) {
        const word = `${String.fromCodePoint(c)}基${String.fromCodePoint(c)}`;
        assert.deepEqual(unicodeTokens(word), split(word), word);
      }
    }
    // Neighbours the shortcut leaves to the split: a Yijing hexagram (a symbol), an uppercase letter, a full stop.
    assert.deepEqual(unicodeTokens('基䷀金'), ['基', '金']);
    assert.deepEqual(unicodeTokens('ABC'), ['abc']);
    assert.deepEqual(unicodeTokens('基金。'), ['基金']);
  });

  it('candidates keep at most k rows of one tied score, so copies of one passage cannot fill every slot', () => {
    const ranked = [9, 9, 9, 9, 8, 7, 7, 7, 6].map((score, row) => ({ row, score }));
    assert.deepEqual(
      diverseCandidates(ranked, 2, 5).map((r) => r.row),
      [0, 1, 4, 5, 6],
    );
  });
});

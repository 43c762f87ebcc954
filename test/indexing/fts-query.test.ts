import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildFtsQuery, type TermPruning } from '../../src/indexing/fts-query.js';
import { createAnalyzer } from '../../src/text/analyzer.js';

const analyzer = createAnalyzer();
const df: Record<string, number> = { 基金: 90, 托管人: 5, 职责: 12, 财产: 40, 安全: 3 };
const pruning = (patch: Partial<TermPruning> = {}): TermPruning => ({
  docFrequency: (t) => df[t] ?? 0,
  documents: 100,
  maxDocShare: 0.5,
  maxTerms: 32,
  ...patch,
});

describe('buildFtsQuery term selection by document frequency', () => {
  it('without pruning, ORs every distinct token', () => {
    assert.equal(buildFtsQuery(analyzer, '基金托管人的职责'), '"基金" OR "托管" OR "管人" OR "托管人" OR "职责"');
  });

  it('drops terms in more than maxDocShare of the chunks and terms no chunk holds', () => {
    // 基金 is in 90% of the chunks (IDF about 0); 怎么办 is in none.
    assert.equal(buildFtsQuery(analyzer, '基金托管人的职责怎么办', pruning()), '"托管人" OR "职责"');
  });

  it('keeps the maxTerms rarest terms, in question order', () => {
    assert.equal(buildFtsQuery(analyzer, '职责 财产 托管人 安全', pruning({ maxTerms: 2 })), '"托管人" OR "安全"');
  });

  it('a question of only common words still searches with its rarest word', () => {
    assert.equal(buildFtsQuery(analyzer, '基金', pruning()), '"基金"');
    assert.equal(buildFtsQuery(analyzer, '怎么办', pruning()), null);
  });

  it('repeats a term the question repeats, up to maxRepeat (query term frequency)', () => {
    assert.equal(buildFtsQuery(analyzer, '托管人 职责 托管人 托管人', pruning({ maxRepeat: 2 })), '"托管人" OR "托管人" OR "职责"');
    assert.equal(buildFtsQuery(analyzer, '托管人 职责 托管人', pruning()), '"托管人" OR "职责"');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildCorpusStats, corpusStatsFromIndex } from '../../src/answer/corpus-stats.js';
import { openRetriever, type OpenedRetriever } from '../../src/retrieve/open-retriever.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import type { Analyzer } from '../../src/text/analyzer.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

/** What answering reads at start-up: one analyzer (one jieba dictionary load) and stored corpus statistics. */
describe('answer start-up resources', () => {
  let fx: FixtureIndex;
  let retriever: OpenedRetriever;
  let analyzer: Analyzer;
  const cut: string[] = [];
  before(async () => {
    fx = await buildFixtureIndex();
    const built = analyzerFromConfig(fx.root, fx.config);
    // The caller's analyzer, recording what it cuts, so the test sees whether the retriever uses it.
    analyzer = { fingerprint: built.analyzer.fingerprint, tokens: (text) => (cut.push(text), built.analyzer.tokens(text)) };
    retriever = await openRetriever({ root: fx.root, config: fx.config, analyzer: { analyzer, warnings: built.warnings } });
  });
  after(() => {
    retriever.close();
    fx.cleanup();
  });

  it('the retriever cuts queries with the analyzer it was given instead of loading another', async () => {
    await retriever.search('基金托管人的职责', { mode: 'keyword', k: 3 });
    assert.ok(cut.includes('基金托管人的职责'), 'the keyword query went through the caller-supplied analyzer');
  });

  it('the index stores the corpus statistics: the same document frequencies as counting every chunk', () => {
    const stored = retriever.corpusFrequency;
    assert.ok(stored, 'a freshly built index has stored frequencies');
    const fromIndex = corpusStatsFromIndex(retriever.size, stored);
    const counted = buildCorpusStats(retriever.chunks, analyzer);
    assert.equal(fromIndex.n, counted.n);
    const tokens = new Set(retriever.chunks.flatMap((c) => analyzer.tokens(`${c.chapter} ${c.section} ${c.text}`)));
    assert.ok(tokens.size > 20);
    for (const t of [...tokens, '从未出现的词语', 'zzzz']) {
      assert.equal(fromIndex.df(t), counted.df(t), t);
      assert.equal(fromIndex.idf(t), counted.idf(t), t);
    }
  });
});

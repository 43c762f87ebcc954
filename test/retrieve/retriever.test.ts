import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { NotReadyError } from '../../src/errors.js';
import { openRetriever, type OpenedRetriever } from '../../src/retrieve/open-retriever.js';
import { RETRIEVAL_MODES } from '../../src/retrieve/retriever.js';
import { runSearch } from '../../src/retrieve/run-search.js';
import { runToc } from '../../src/retrieve/run-toc.js';
import { projectPaths } from '../../src/paths.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { buildFixtureIndex, testConfig, type FixtureIndex } from './fixture-index.js';

/** Questions and the chunk that holds their answer (hand-labelled on the fixture corpus). */
const GOLD: readonly { q: string; gold: string }[] = [
  { q: '基金托管人应当履行哪些职责？', gold: 'shangce-0006' },
  { q: '麦考利久期的含义是什么', gold: 'shangce-0010' },
  { q: '夏普比率如何计算', gold: 'shangce-0013' },
  { q: '货币市场基金一般采用什么估值方法', gold: 'shangce-0005' },
  { q: '私募基金应当向谁募集', gold: 'shangce-0016' },
  { q: '持有人大会召开需要多少份额的持有人参加', gold: 'shangce-0009' },
];

describe('retriever on the fixture corpus', () => {
  let fx: FixtureIndex;
  let retriever: OpenedRetriever;
  before(async () => {
    fx = await buildFixtureIndex();
    retriever = await openRetriever({ root: fx.root, config: fx.config });
  });
  after(() => {
    retriever.close();
    fx.cleanup();
  });

  it('buildIndexes reports what it built', () => {
    assert.equal(fx.result.chunks, 21);
    assert.equal(fx.result.ftsRows, 21);
    assert.equal(fx.result.vectors, 21);
    assert.equal(fx.result.vectorBackend, 'js');
    assert.match(fx.result.embedderId, /^lsa:d\d+:[0-9a-f]{12}$/);
    assert.equal(fx.result.embedded + fx.result.cached, 21);
    assert.equal(retriever.chunks.length, 21);
    assert.equal(retriever.chunk('table-0000')?.figure_ref, '表2-1');
  });

  for (const mode of RETRIEVAL_MODES) {
    it(`${mode}: finds the gold chunk in the top 5`, async () => {
      for (const { q, gold } of GOLD) {
        const hits = await retriever.search(q, { mode, k: 5 });
        const ids = hits.map((h) => h.chunk.chunk_id);
        assert.ok(ids.includes(gold), `${mode} "${q}": ${ids.join(', ')}`);
        for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score, 'scores descend');
      }
    });
  }

  it('applies filters in every mode', async () => {
    for (const mode of RETRIEVAL_MODES) {
      const hits = await retriever.search('基金的收益和风险', { mode, k: 5, filter: { chapter: '第十章', pages: { from: 130, to: 134 } } });
      assert.ok(hits.length > 0, mode);
      for (const h of hits) {
        assert.ok(h.chunk.chapter.includes('第十章'), mode);
        assert.ok(Number(h.chunk.page_start) <= 134 && Number(h.chunk.page_end) >= 130, mode);
      }
      const tables = await retriever.search('基金的比较', { mode, k: 5, filter: { chunkType: 'manual_table_rewrite' } });
      assert.ok(tables.length > 0 && tables.every((h) => h.chunk.chunk_type === 'manual_table_rewrite'), mode);
    }
  });

  it('puts the table a question names first, in every mode', async () => {
    for (const mode of RETRIEVAL_MODES) {
      const hits = await retriever.search('根据表10-1，下列说法正确的是', { mode, k: 5 });
      assert.equal(hits[0]?.chunk.chunk_id, 'table-0001', mode);
    }
  });

  it('expands neighbours within the section', async () => {
    const [plain] = await retriever.search('麦考利久期的含义是什么', { mode: 'keyword', k: 1 });
    const [expanded] = await retriever.search('麦考利久期的含义是什么', { mode: 'keyword', k: 1, neighbours: 1 });
    assert.equal(plain?.chunk.chunk_id, 'shangce-0010');
    assert.equal(expanded?.chunk.chunk_id, 'shangce-0010');
    // 0010's section (第二节 债券的久期) holds 0010 and 0011; 0012 is another section.
    assert.equal(expanded?.chunk.text, `${fx.chunks[10]!.text}${fx.chunks[11]!.text}`);
    assert.equal(expanded?.chunk.page_end, '89');
  });

  it('searchMany gives every query the hits search gives it, in every mode, on the JS and the FAISS backend', async () => {
    const queries = [...GOLD.map((g) => g.q), '', GOLD[0]!.q, '表2-1 基金托管人'];
    const faiss = await openRetriever({ root: fx.root, config: fx.config, backend: 'faiss' }).catch(() => null);
    try {
      for (const r of faiss ? [retriever, faiss] : [retriever]) {
        for (const mode of RETRIEVAL_MODES) {
          for (const options of [
            { mode, k: 5 },
            { mode, k: 3, unitChars: 400, neighbours: 1 },
          ]) {
            const many = await r.searchMany?.(queries, options);
            assert.ok(many, 'the opened retriever searches in batches');
            assert.equal(many.length, queries.length);
            for (const [i, q] of queries.entries()) {
              const one = await r.search(q, options);
              assert.deepEqual(
                many[i]!.map((h) => h.chunk.chunk_id),
                one.map((h) => h.chunk.chunk_id),
                `${r.vectorBackend} ${mode} "${q}"`,
              );
              many[i]!.forEach((h, j) => assert.ok(Math.abs(h.score - one[j]!.score) < 1e-5, `${mode} "${q}" score`));
            }
          }
        }
      }
    } finally {
      faiss?.close();
    }
  });

  it('returns nothing for empty or punctuation-only queries', async () => {
    for (const mode of RETRIEVAL_MODES) {
      assert.deepEqual(await retriever.search('   ', { mode, k: 5 }), []);
      assert.deepEqual(await retriever.search('？！（）"*', { mode, k: 5 }), []);
    }
  });

  it('runSearch returns the JSON shape of the issue', async () => {
    const result = await runSearch({ root: fx.root, config: fx.config, query: '基金托管人的职责', mode: 'hybrid', topK: 3 });
    assert.equal(result.hits.length, 3);
    assert.deepEqual(
      Object.keys(result.hits[0]!).sort(),
      [
        'articles',
        'book',
        'chapter',
        'chunk_id',
        'chunk_type',
        'figure_ref',
        'headings',
        'page_end',
        'page_start',
        'score',
        'section',
        'text',
      ].sort(),
    );
    assert.equal(result.hits[0]!.chunk_id, 'shangce-0006');
    assert.equal(result.hits[0]!.page_start, '22');
  });

  it('runToc reads the outline, per book', () => {
    const toc = runToc({ root: fx.root });
    assert.deepEqual(toc.books, ['上册']);
    assert.equal(toc.entries[0]?.title, '第一章 投资管理基础');
    assert.throws(() => runToc({ root: fx.root, book: '下册' }), /no such book/);
  });

  it('detects an embedder mismatch and says to re-ingest', async () => {
    const dims = testConfig(fx.root, (c) => {
      c.embedder.dimension = 64;
    });
    await assert.rejects(
      openRetriever({ root: fx.root, config: dims }),
      (e: unknown) =>
        e instanceof NotReadyError &&
        /built with lsa \(256 dims\); you configured lsa \(64 dims\); run `exam-copilot ingest --force`/.test(e.message),
    );
    const other = testConfig(fx.root, (c) => {
      c.embedder.kind = 'openai';
      c.embedder.endpoint = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x', model: 'text-embedding-3-small' };
    });
    await assert.rejects(
      openRetriever({ root: fx.root, config: other }),
      (e: unknown) => e instanceof NotReadyError && /you configured openai text-embedding-3-small/.test(e.message),
    );
    // A changed user dictionary changes the analyzer, which the keyword index and LSA both depend on.
    const dictFile = `${projectPaths(fx.root).rawdoc}/userdict.txt`;
    const original = readFileSync(dictFile, 'utf8');
    writeFileSync(dictFile, '全新术语\n');
    try {
      await assert.rejects(
        openRetriever({ root: fx.root, config: fx.config }),
        (e: unknown) => e instanceof NotReadyError && /ingest --force/.test(e.message),
      );
    } finally {
      writeFileSync(dictFile, original);
    }
  });

  it('says to ingest when there is no index', async () => {
    const tmp = makeTempRoot();
    try {
      await assert.rejects(
        openRetriever({ root: tmp.root, config: testConfig(tmp.root) }),
        (e: unknown) => e instanceof NotReadyError && /no index at .*; run `exam-copilot ingest`/.test(e.message),
      );
      assert.throws(() => runToc({ root: tmp.root }), NotReadyError);
    } finally {
      tmp.cleanup();
    }
  });
});

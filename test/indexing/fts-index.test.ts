import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildFtsQuery } from '../../src/indexing/fts-query.js';
import { openFtsIndex, type FtsIndex } from '../../src/indexing/fts-index.js';
import { BM25_WEIGHTS, createFtsRanker } from '../../src/indexing/fts-ranker.js';
import { DEFAULT_TWO_STAGE } from '../../src/indexing/fts-two-stage.js';
import { projectPaths } from '../../src/paths.js';
import { loadConfig } from '../../src/config/load-config.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createAnalyzer, type Analyzer } from '../../src/text/analyzer.js';
import { NotReadyError } from '../../src/errors.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const HOSTILE = [
  '"',
  "'",
  '(',
  ')',
  '*',
  '-',
  ':',
  'AND',
  'OR',
  'NOT',
  'NEAR(',
  '^',
  '{}',
  '🙂🚀',
  '""""',
  'a"b',
  '申购"赎回',
  '基金 AND',
  'OR 基金 NOT',
  'NEAR(基金 托管人, 2)',
  '基金*',
  '-基金',
  'content:基金',
  '{content book}: 基金',
  '^基金',
  '"基金托管人" OR (申购',
  ')))(((',
  '\u0000基金',
  '？！。，、；：',
  'x'.repeat(10_000),
  '基金托管人的职责'.repeat(1500),
];

describe('FTS5 keyword index', () => {
  let fx: FixtureIndex;
  let fts: FtsIndex;
  let analyzer: Analyzer;
  before(async () => {
    fx = await buildFixtureIndex();
    // The same analyzer the index was built with: the starter dictionary plus the root's user dictionary.
    analyzer = analyzerFromConfig(fx.root, loadConfig({ root: fx.root, env: {} }).config).analyzer;
    fts = openFtsIndex(projectPaths(fx.root).ftsDb, analyzer);
  });
  after(() => {
    fts.close();
    fx.cleanup();
  });

  it('never raises on hostile queries, and punctuation-only queries give nothing', () => {
    for (const q of HOSTILE) {
      assert.doesNotThrow(() => fts.search(q, 5), `query ${JSON.stringify(q.slice(0, 30))}`);
    }
    for (const q of ['"', '(', ')', '*', '-', ':', '^', '{}', '？！。，、；：', '🙂🚀']) {
      assert.equal(buildFtsQuery(analyzer, q), null, q);
      assert.deepEqual(fts.search(q, 5), [], q);
    }
    // Operators are just words: "NEAR(基金 托管人, 2)" still finds 托管人 text.
    assert.ok(fts.search('NEAR(基金 托管人, 2)', 5).some((h) => h.chunk.chunk_id === 'shangce-0006'));
    assert.ok(fts.search('"基金托管人" OR (申购', 5).length > 0);
  });

  it('matches two-character Chinese words (which trigram cannot)', () => {
    const hits = fts.search('申购', 5);
    assert.ok(hits.length >= 2);
    assert.ok(hits.every((h) => h.chunk.text.includes('申购')));
  });

  it('keeps user-dictionary terms whole and finds them', () => {
    assert.ok(analyzer.tokens('麦考利久期的含义').includes('麦考利久期'));
    const hits = fts.search('麦考利久期是什么', 3);
    assert.equal(hits[0]?.chunk.chunk_id, 'shangce-0010');
  });

  it('ranks a section-heading match above a passing mention (column weights)', () => {
    const hits = fts.search('基金份额持有人大会', 5);
    assert.equal(hits[0]?.chunk.section, '第二节 基金份额持有人大会');
  });

  it('applies filters in SQL: book, chapter substring, printed pages, chunk type', () => {
    assert.deepEqual(fts.search('基金', 50, { book: '下册' }), []);
    const ch = fts.search('基金', 50, { chapter: '第十章' });
    assert.ok(ch.length > 0 && ch.every((h) => h.chunk.chapter.includes('第十章')));
    const pages = fts.search('基金', 50, { pages: { from: 20, to: 26 } });
    assert.ok(pages.length > 0);
    for (const h of pages) assert.ok(Number(h.chunk.page_start) <= 26 && Number(h.chunk.page_end) >= 20);
    const tables = fts.search('比较', 50, { chunkType: 'manual_table_rewrite' });
    assert.deepEqual(tables.map((h) => h.chunk.chunk_id).sort(), ['table-0000', 'table-0001']);
    // LIKE wildcards in the filter are literal text.
    assert.deepEqual(fts.search('基金', 50, { chapter: '%' }), []);
  });

  it('refuses an index built with another user dictionary', () => {
    const other = createAnalyzer(['新名词 100000 n']);
    assert.throws(
      () => openFtsIndex(projectPaths(fx.root).ftsDb, other),
      (e: unknown) => e instanceof NotReadyError && /ingest --force/.test(e.message),
    );
  });

  it('reads a chunk row once while open: searches and lookups by id return the chunk read before', () => {
    const first = fts.search('申购', 5);
    const again = fts.search('申购', 5);
    assert.ok(first.length > 0);
    first.forEach((h, i) => assert.equal(again[i]?.chunk, h.chunk));
    const id = first[0]!.chunk.chunk_id;
    assert.equal(fts.chunkById(id), fts.chunkById(id));
    assert.deepEqual(fts.chunkById(id), first[0]!.chunk);
  });

  it('reads back every chunk as written, with no field more or less', () => {
    for (const chunk of fx.chunks) {
      const read = fts.chunkById(chunk.chunk_id);
      assert.ok(read, chunk.chunk_id);
      assert.deepEqual(read, chunk);
      assert.deepEqual(Object.keys(read).sort(), Object.keys(chunk).sort());
    }
  });

  it("stores FTS5's document frequencies at ingest, and ranks the same as an index that must count them", () => {
    const file = projectPaths(fx.root).ftsDb;
    const db = new Database(file, { readonly: true });
    try {
      db.exec("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'chunks_fts', 'row')");
      const stored = db.prepare('SELECT term, df FROM fts_df ORDER BY term').all();
      assert.ok(stored.length > 50);
      assert.deepEqual(stored, db.prepare('SELECT term, doc AS df FROM temp.v ORDER BY term').all());
    } finally {
      db.close();
    }
    // An index written before the table existed: the same rankings, from fts5vocab.
    const older = path.join(fx.root, 'older.db');
    copyFileSync(file, older);
    const w = new Database(older);
    w.exec('DROP TABLE fts_df');
    w.close();
    const old = openFtsIndex(older, analyzer);
    try {
      for (const q of ['基金托管人的职责', '申购 赎回 费用', '货币市场基金 投资范围']) {
        const a = fts.search(q, 10).map((h) => [h.chunk.chunk_id, h.score]);
        assert.ok(a.length > 0, q);
        assert.deepEqual(
          old.search(q, 10).map((h) => [h.chunk.chunk_id, h.score]),
          a,
          q,
        );
      }
    } finally {
      old.close();
    }
  });

  it('ranks equal scores by rowid, so a shallower ranking served from a deeper one is what FTS5 would return', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE VIRTUAL TABLE chunks_fts USING fts5(content, book, chapter, section, figure_ref)');
      const insert = db.prepare(
        "INSERT INTO chunks_fts (rowid, content, book, chapter, section, figure_ref) VALUES (?, ?, '', '', '', '')",
      );
      // Rows inserted out of order, many with exactly the same text (equal scores).
      for (const row of [9, 3, 14, 1, 7, 12, 5, 2, 11, 4, 8, 13, 6, 10])
        insert.run(row, row % 4 === 0 ? '托管 基金' : row % 3 === 0 ? '托管' : '托管 份额');
      const options = { weights: BM25_WEIGHTS, twoStage: DEFAULT_TWO_STAGE, count: 14 };
      const terms = [
        { term: '托管', df: 14, repeat: 1 },
        { term: '基金', df: 3, repeat: 1 },
      ];
      const fresh = (k: number) => createFtsRanker(db, options)(terms, k);
      const cached = createFtsRanker(db, { ...options, remember: 100 });
      assert.deepEqual(cached(terms, 10), fresh(10));
      for (const k of [1, 3, 4, 6, 10]) assert.deepEqual(cached(terms, k), fresh(k), `k = ${k}`);
      assert.deepEqual(cached(terms, 14), fresh(14), 'deeper than remembered: ranked again');
      assert.deepEqual(cached(terms, 30), fresh(30), 'past every matching row');
      // Equal scores in rowid order.
      assert.deepEqual(
        fresh(3).map((r) => r.row),
        [4, 8, 12],
      );
    } finally {
      db.close();
    }
  });

  it('reports a missing index as not ready', () => {
    assert.throws(() => openFtsIndex(path.join(fx.root, 'nope.db'), analyzer), NotReadyError);
  });
});

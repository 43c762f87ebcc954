import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openFtsIndex } from '../../src/indexing/fts-index.js';
import { BM25_WEIGHTS, createFtsRanker } from '../../src/indexing/fts-ranker.js';
import type { QueryTerm } from '../../src/indexing/fts-query.js';
import { DEFAULT_TWO_STAGE } from '../../src/indexing/fts-two-stage.js';
import { writeFtsIndex } from '../../src/indexing/fts-writer.js';
import { KEYWORD_POSTINGS_FILE } from '../../src/indexing/keyword-postings.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { chunk } from '../retrieve/make-chunk.js';

const analyzer = createAnalyzer([]);

// Bodies with repeated words, numbers unicode61 cuts (0.05, 2015-01), a folded accent (Café), an upper-case word, a
// heading that repeats a body word, and exact copies (equal scores).
const BODIES = [
  '基金托管人应当安全保管基金财产，基金托管人复核基金资产净值。',
  '基金管理人应当按照规定计算基金资产净值，费率为0.05%。',
  '基金托管人应当安全保管基金财产，基金托管人复核基金资产净值。',
  'The Café opened on 2015-01-05; café owners and CAFE staff.',
  '基金份额持有人大会由基金管理人召集。',
  '基金托管人应当安全保管基金财产，基金托管人复核基金资产净值。',
  '基金托管人应当安全保管基金财产，基金托管人复核基金资产净值。',
  '封闭式基金的基金份额，经基金管理人申请，可以在证券交易所上市交易。',
  '托管 托管 托管 基金。',
];

function buildIndex(root: string): string {
  const rows = BODIES.map((text, seq) =>
    chunk(`c${seq}`, {
      book: seq % 2 === 0 ? '证券投资基金法' : '基金销售管理办法',
      headings: ['第三章 基金托管人', seq % 3 === 0 ? '第一节 托管职责' : '第二节 净值'],
      chapter: '第三章 基金托管人',
      section: seq % 3 === 0 ? '第一节 托管职责' : '第二节 净值',
      text,
      seq,
    }),
  );
  const file = path.join(root, 'sqlite_fts.db');
  writeFtsIndex(file, rows, analyzer);
  return file;
}

describe('keyword postings file', () => {
  it('ranks every query exactly as FTS5 ranks it in one stage: the same rows, the same scores to the bit, ties by rowid', () => {
    const temp = makeTempRoot();
    try {
      const file = buildIndex(temp.root);
      const fts = openFtsIndex(file, analyzer, { characters: null });
      const db = new Database(file, { readonly: true });
      try {
        assert.equal(fts.ranksFromPostings, true, 'ingest wrote the postings file');
        // Never split: the one-stage FTS5 ranking is the reference.
        const fts5 = createFtsRanker(db, {
          weights: BM25_WEIGHTS,
          twoStage: { ...DEFAULT_TWO_STAGE, minCommonPostings: Infinity },
          count: fts.count,
        });
        const queries = [
          '基金托管人的职责是什么',
          '基金 托管 托管 净值',
          '费率 0.05',
          'café 2015',
          'CAFE',
          '第一节 托管职责',
          '证券交易所 上市 基金份额',
          '没有 这种 说法',
        ];
        for (const q of queries) {
          const terms = fts.queryTerms(q);
          for (const k of [1, 3, 8]) {
            const fromPostings = fts.rank(terms, k);
            assert.deepEqual(fromPostings, fts5(terms, k), `${q} k=${k}`);
          }
        }
        // Rows 1 and 7 are copies in every column: they tie exactly, the lower rowid first.
        const ranked = fts.rank(fts.queryTerms('安全保管基金财产'), 8);
        const copies = ranked.filter((r) => r.row === 1 || r.row === 7);
        assert.equal(copies.length, 2);
        assert.equal(copies[0]!.score, copies[1]!.score);
        assert.deepEqual(
          copies.map((r) => r.row),
          [1, 7],
        );
        assert.equal(ranked.indexOf(copies[1]!), ranked.indexOf(copies[0]!) + 1);
        // A repeated phrase counts twice, as in FTS5's MATCH expression.
        const twice: QueryTerm[] = [{ term: '托管', df: 0, repeat: 2 }];
        assert.deepEqual(fts.rank(twice, 4), fts5(twice, 4));
      } finally {
        db.close();
        fts.close();
      }
    } finally {
      temp.cleanup();
    }
  });

  it('leaves phrases and filters to FTS5, and ignores a postings file of another build', () => {
    const temp = makeTempRoot();
    try {
      const file = buildIndex(temp.root);
      const db = new Database(file, { readonly: true });
      const fts5 = createFtsRanker(db, { weights: BM25_WEIGHTS, twoStage: DEFAULT_TWO_STAGE, count: BODIES.length });
      const fts = openFtsIndex(file, analyzer, { characters: null });
      const expected = fts.search('基金托管人', 3).map((h) => h.chunk.chunk_id);
      try {
        // `0.05%` is one analyzer token that unicode61 cuts in two: a phrase.
        const phrase: QueryTerm[] = [{ term: '0.05%', df: 1, repeat: 1 }];
        assert.deepEqual(fts.rank(phrase, 5), fts5(phrase, 5));
        assert.equal(fts.rank(phrase, 5).length, 1);
        const filter = { book: '基金销售管理办法' };
        const terms = fts.queryTerms('基金管理人');
        assert.deepEqual(fts.rank(terms, 5, filter), fts5(terms, 5, filter));
      } finally {
        fts.close();
        db.close();
      }
      // A postings file from another build (here: one byte of its stamp changed) is not read; FTS5 ranks instead.
      const postings = path.join(temp.root, KEYWORD_POSTINGS_FILE);
      const bytes = readFileSync(postings);
      const at = bytes.indexOf('"stamp":"') + '"stamp":"'.length;
      bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
      writeFileSync(postings, bytes);
      const other = openFtsIndex(file, analyzer, { characters: null });
      try {
        assert.equal(other.ranksFromPostings, false);
        assert.deepEqual(
          other.search('基金托管人', 3).map((h) => h.chunk.chunk_id),
          expected,
        );
      } finally {
        other.close();
      }
      // A truncated file is not read either.
      writeFileSync(postings, bytes.subarray(0, bytes.length - 7));
      const truncated = openFtsIndex(file, analyzer, { characters: null });
      try {
        assert.equal(truncated.ranksFromPostings, false);
      } finally {
        truncated.close();
      }
    } finally {
      temp.cleanup();
    }
  });
});

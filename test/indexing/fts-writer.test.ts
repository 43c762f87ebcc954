import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { writeFtsIndex } from '../../src/indexing/fts-writer.js';
import { createAnalyzer, type Analyzer } from '../../src/text/analyzer.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { chunk } from '../retrieve/make-chunk.js';

const BOOK = '证券投资基金法';
const CHAPTER = '第三章 基金托管人';
const SECTION = '第一节 托管职责';

describe('keyword index writer', () => {
  it('cuts a book name or heading that many rows share once, and indexes the tokens cutting each row would give', () => {
    const plain = createAnalyzer([]);
    const calls = new Map<string, number>();
    const counting: Analyzer = {
      fingerprint: plain.fingerprint,
      tokens(text) {
        calls.set(text, (calls.get(text) ?? 0) + 1);
        return plain.tokens(text);
      },
    };
    const bodies = [
      '基金托管人应当安全保管基金财产。',
      '基金托管人应当按照规定开设基金财产的资金账户。',
      '基金托管人应当复核基金资产净值。',
    ];
    const rows = bodies.map((text, seq) =>
      chunk(`c${seq}`, { book: BOOK, headings: [CHAPTER, SECTION], chapter: CHAPTER, section: SECTION, text, seq }),
    );
    const temp = makeTempRoot();
    try {
      const file = path.join(temp.root, 'fts.db');
      writeFtsIndex(file, rows, counting);
      for (const shared of [BOOK, CHAPTER, SECTION]) assert.equal(calls.get(shared), 1, `${shared} cut once for ${rows.length} rows`);
      const db = new Database(file, { readonly: true });
      try {
        const indexed = db.prepare('SELECT book, chapter, section FROM chunks_fts ORDER BY rowid').all() as Record<string, string>[];
        assert.equal(indexed.length, rows.length);
        for (const row of indexed) {
          assert.equal(row.book, plain.tokens(BOOK).join(' '));
          assert.equal(row.chapter, plain.tokens(CHAPTER).join(' '));
          assert.equal(row.section, plain.tokens(SECTION).join(' '));
        }
      } finally {
        db.close();
      }
    } finally {
      temp.cleanup();
    }
  });
});

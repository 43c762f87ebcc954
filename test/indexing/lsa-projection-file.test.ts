import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fitLsa } from '../../src/indexing/embedders/lsa-fit.js';
import { loadLsa, saveLsa } from '../../src/indexing/embedders/lsa-store.js';
import { NotReadyError } from '../../src/errors.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { readTermTable } from '../../src/text/term-table.js';

const analyzer = createAnalyzer([]);
const CORPUS = [
  '基金托管人应当安全保管基金财产',
  '基金管理人负责基金财产的投资运作',
  '基金份额持有人享有收益分配权',
  '托管人复核基金资产净值',
  '债券的久期衡量利率风险',
  '利率上升时债券价格下降',
];
const QUERIES = ['基金托管人的职责', '债券价格与利率', '收益分配', '完全无关的文字'];

describe('LSA model loaded from disk', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lsa-rows-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const { model } = fitLsa(analyzer, CORPUS, { dimension: 3 });
  saveLsa(model, dir);

  it('embeds exactly as the fitted model, reading only the rows a text needs', async () => {
    const loaded = loadLsa(dir, analyzer);
    try {
      for (const q of QUERIES) assert.deepEqual(await loaded.embedQuery(q), await model.embedQuery(q), q);
      for (const d of CORPUS) assert.deepEqual(loaded.embed(d), model.embed(d), d);
    } finally {
      loaded.close();
    }
  });

  it('reads the vocabulary from its term table, and still reads a fit that kept it in the JSON (format 2)', async () => {
    for (const f of ['lsa.json', 'lsa-terms.bin', 'lsa-idf.f64', 'lsa-projection.f32']) assert.ok(existsSync(path.join(dir, f)), f);
    const state = JSON.parse(readFileSync(path.join(dir, 'lsa.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(state.version, 3);
    assert.equal(state.vocabulary, undefined, 'the vocabulary is not repeated in the JSON');
    const older = mkdtempSync(path.join(os.tmpdir(), 'lsa-v2-'));
    try {
      const terms = readTermTable(readFileSync(path.join(dir, 'lsa-terms.bin')));
      const weights = readFileSync(path.join(dir, 'lsa-idf.f64'));
      const idf = Array.from(new Float64Array(weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.length)));
      const vocabulary = Array.from({ length: terms.size }, (_, i) => terms.term(i));
      writeFileSync(path.join(older, 'lsa.json'), JSON.stringify({ ...state, version: 2, vocabulary, idf }));
      cpSync(path.join(dir, 'lsa-projection.f32'), path.join(older, 'lsa-projection.f32'));
      const loaded = loadLsa(older, analyzer);
      try {
        assert.equal(loaded.id, model.id);
        for (const q of QUERIES) assert.deepEqual(await loaded.embedQuery(q), await model.embedQuery(q), q);
      } finally {
        loaded.close();
      }
      // A format 3 fit missing its term table is not ready, with the way out.
      cpSync(path.join(dir, 'lsa.json'), path.join(older, 'lsa.json'));
      assert.throws(
        () => loadLsa(older, analyzer),
        (e: unknown) => e instanceof NotReadyError && /vocabulary is unreadable.*ingest --force/.test(e.message),
      );
    } finally {
      rmSync(older, { recursive: true, force: true });
    }
  });

  it('keeps reading the matrix it was loaded with when a rebuild replaces the file', async () => {
    const loaded = loadLsa(dir, analyzer);
    try {
      // A rebuild swaps files in by rename: here, a projection of zeros of the same size.
      const file = path.join(dir, 'lsa-projection.f32');
      const replacement = path.join(dir, 'replacement.f32');
      writeFileSync(replacement, Buffer.alloc(model.dimension * 4 * 10_000));
      renameSync(replacement, file);
      for (const q of QUERIES) assert.deepEqual(await loaded.embedQuery(q), await model.embedQuery(q), q);
    } finally {
      loaded.close();
    }
    // Rows not read yet cannot be read once closed.
    await assert.rejects(async () => loaded.embedQuery('债券的久期衡量利率风险'), /closed/);
  });
});

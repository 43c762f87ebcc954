import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fitLsa, loadLsa } from '../../src/indexing/embedders/lsa-embedder.js';
import { createAnalyzer } from '../../src/text/analyzer.js';

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
  model.save(dir);

  it('embeds exactly as the fitted model, reading only the rows a text needs', async () => {
    const loaded = loadLsa(dir, analyzer);
    try {
      for (const q of QUERIES) assert.deepEqual(await loaded.embedQuery(q), await model.embedQuery(q), q);
      for (const d of CORPUS) assert.deepEqual(loaded.embed(d), model.embed(d), d);
    } finally {
      loaded.close();
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

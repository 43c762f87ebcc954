import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fitLsa, loadLsa } from '../../src/indexing/embedders/lsa-embedder.js';
import { innerProduct } from '../../src/indexing/embedders/vector-math.js';
import { randomizedSvd, symmetricEigen } from '../../src/indexing/embedders/randomized-svd.js';
import { NotReadyError } from '../../src/errors.js';
import { createAnalyzer } from '../../src/text/analyzer.js';

const analyzer = createAnalyzer([]);

/**
 * Two topics. 托管 co-occurs with 保管/财产/账户; 久期 with 利率/债券/价格. The target documents
 * share no word (and no character bigram) with the query 托管.
 */
const CORPUS = [
  '托管 保管 财产 账户', '托管 保管 财产', '托管 财产 账户 保管', '托管 保管 账户', '保管 财产 账户',
  '久期 利率 债券 价格', '久期 利率 债券', '利率 债券 价格', '久期 债券 价格 利率', '久期 价格 利率',
];

describe('LSA embedder', () => {
  it('captures more than exact word overlap', () => {
    const model = fitLsa(analyzer, CORPUS, 2);
    const q = model.embed('托管');
    const related = model.embed('保管 账户'); // no word in common with the query
    const related2 = model.embed('财产 保管');
    const unrelated = model.embed('利率 价格');
    assert.ok(innerProduct(q, related) > innerProduct(q, unrelated) + 0.5, `${innerProduct(q, related)} vs ${innerProduct(q, unrelated)}`);
    assert.ok(innerProduct(q, related2) > innerProduct(q, unrelated) + 0.5);
  });

  it('is deterministic, L2-normalised, capped by corpus size, and round-trips through disk', () => {
    const a = fitLsa(analyzer, CORPUS, 256);
    const b = fitLsa(analyzer, CORPUS, 256);
    assert.equal(a.id, b.id);
    assert.ok(a.dimension <= CORPUS.length && a.dimension >= 2);
    const v = a.embed('托管 财产');
    assert.ok(Math.abs(innerProduct(v, v) - 1) < 1e-5);
    assert.deepEqual(a.embed('完全陌生'), new Float32Array(a.dimension)); // no known feature → zero vector
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lsa-'));
    try {
      a.save(dir);
      const loaded = loadLsa(dir, analyzer);
      assert.equal(loaded.id, a.id);
      assert.deepEqual(loaded.embed('托管 财产'), v);
      assert.throws(() => loadLsa(dir, createAnalyzer(['其他 100 n'])), NotReadyError);
      assert.throws(() => loadLsa(path.join(dir, 'missing'), analyzer), NotReadyError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const c = fitLsa(analyzer, [...CORPUS, '新增 文档 托管'], 256);
    assert.notEqual(c.id, a.id, 'another fit, another id');
  });

  it('recovers the singular values of a known matrix', () => {
    // diag(3, 2, 1) as a sparse 3×3 matrix.
    const svd = randomizedSvd({ rows: 3, cols: 3, rowStart: Int32Array.from([0, 1, 2, 3]), indices: Int32Array.from([0, 1, 2]), values: Float64Array.from([3, 2, 1]) }, 2);
    assert.equal(svd.rank, 2);
    assert.ok(Math.abs(svd.singularValues[0]! - 3) < 1e-9 && Math.abs(svd.singularValues[1]! - 2) < 1e-9);
    const { values } = symmetricEigen(Float64Array.from([2, 1, 1, 2]), 2);
    assert.ok(Math.abs(values[0]! - 3) < 1e-12 && Math.abs(values[1]! - 1) < 1e-12);
  });
});

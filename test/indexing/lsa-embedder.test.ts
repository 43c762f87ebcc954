import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { lsaFeatures, type LsaWeighting } from '../../src/indexing/embedders/lsa-features.js';
import { fitLsa } from '../../src/indexing/embedders/lsa-fit.js';
import { loadLsa, saveLsa } from '../../src/indexing/embedders/lsa-store.js';
import { innerProduct } from '../../src/indexing/embedders/vector-math.js';
import { randomizedSvd, symmetricEigen } from '../../src/indexing/embedders/randomized-svd.js';
import { NotReadyError } from '../../src/errors.js';
import { seededRandom } from '../../src/seeded-random.js';
import { createAnalyzer } from '../../src/text/analyzer.js';

const analyzer = createAnalyzer([]);

/**
 * Two topics. 托管 co-occurs with 保管/财产/账户; 久期 with 利率/债券/价格. The target documents
 * share no word (and no character bigram) with the query 托管.
 */
const CORPUS = [
  '托管 保管 财产 账户',
  '托管 保管 财产',
  '托管 财产 账户 保管',
  '托管 保管 账户',
  '保管 财产 账户',
  '久期 利率 债券 价格',
  '久期 利率 债券',
  '利率 债券 价格',
  '久期 债券 价格 利率',
  '久期 价格 利率',
];

describe('LSA embedder', () => {
  it('captures more than exact word overlap', () => {
    const { model } = fitLsa(analyzer, CORPUS, { dimension: 2 });
    const q = model.embed('托管');
    const related = model.embed('保管 账户'); // no word in common with the query
    const related2 = model.embed('财产 保管');
    const unrelated = model.embed('利率 价格');
    assert.ok(innerProduct(q, related) > innerProduct(q, unrelated) + 0.5, `${innerProduct(q, related)} vs ${innerProduct(q, unrelated)}`);
    assert.ok(innerProduct(q, related2) > innerProduct(q, unrelated) + 0.5);
  });

  it('is deterministic, L2-normalised, capped by corpus size, and round-trips through disk', () => {
    const a = fitLsa(analyzer, CORPUS, { dimension: 256 }).model;
    const b = fitLsa(analyzer, CORPUS, { dimension: 256 }).model;
    assert.equal(a.id, b.id);
    assert.ok(a.dimension <= CORPUS.length && a.dimension >= 2);
    const v = a.embed('托管 财产');
    assert.ok(Math.abs(innerProduct(v, v) - 1) < 1e-5);
    assert.deepEqual(a.embed('完全陌生'), new Float32Array(a.dimension)); // no known feature → zero vector
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lsa-'));
    try {
      saveLsa(a, dir);
      const loaded = loadLsa(dir, analyzer);
      assert.equal(loaded.id, a.id);
      assert.deepEqual(loaded.embed('托管 财产'), v);
      assert.throws(() => loadLsa(dir, createAnalyzer(['其他 100 n'])), NotReadyError);
      assert.throws(() => loadLsa(path.join(dir, 'missing'), analyzer), NotReadyError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const c = fitLsa(analyzer, [...CORPUS, '新增 文档 托管'], { dimension: 256 }).model;
    assert.notEqual(c.id, a.id, 'another fit, another id');
  });

  it('recovers the singular values of a known matrix', () => {
    // diag(3, 2, 1) as a sparse 3×3 matrix.
    const svd = randomizedSvd(
      {
        rows: 3,
        cols: 3,
        rowStart: Int32Array.from([0, 1, 2, 3]),
        indices: Int32Array.from([0, 1, 2]),
        values: Float64Array.from([3, 2, 1]),
      },
      2,
    );
    assert.equal(svd.rank, 2);
    assert.ok(Math.abs(svd.singularValues[0]! - 3) < 1e-9 && Math.abs(svd.singularValues[1]! - 2) < 1e-9);
    const { values } = symmetricEigen(Float64Array.from([2, 1, 1, 2]), 2);
    assert.ok(Math.abs(values[0]! - 3) < 1e-12 && Math.abs(values[1]! - 1) < 1e-12);
  });

  it('decomposes a symmetric matrix: A·v = λ·v, orthonormal vectors, values descending, each vector signed the same way', () => {
    const rand = seededRandom(11);
    for (const n of [1, 2, 7, 40]) {
      const a = new Float64Array(n * n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j <= i; j++) {
          const x = rand() - 0.5;
          a[i * n + j] = x;
          a[j * n + i] = x;
        }
      const { values, vectors } = symmetricEigen(a, n);
      for (let k = 0; k < n; k++) {
        if (k > 0) assert.ok(values[k]! <= values[k - 1]!, `n ${n}: values descending`);
        let big = 0;
        for (let i = 0; i < n; i++) {
          let av = 0;
          for (let j = 0; j < n; j++) av += a[i * n + j]! * vectors[j * n + k]!;
          assert.ok(Math.abs(av - values[k]! * vectors[i * n + k]!) < 1e-12, `n ${n}: A·v = λ·v for value ${k}`);
          if (Math.abs(vectors[i * n + k]!) > Math.abs(big)) big = vectors[i * n + k]!;
        }
        assert.ok(big > 0, `n ${n}: the largest component of vector ${k} is positive`);
        for (let l = 0; l < n; l++) {
          let dot = 0;
          for (let i = 0; i < n; i++) dot += vectors[i * n + k]! * vectors[i * n + l]!;
          assert.ok(Math.abs(dot - (k === l ? 1 : 0)) < 1e-12, `n ${n}: vectors ${k} and ${l} orthonormal`);
        }
      }
    }
    // A repeated eigenvalue: the identity plus a rank-one term.
    const repeated = symmetricEigen(Float64Array.from([2, 1, 1, 1, 2, 1, 1, 1, 2]), 3);
    assert.deepEqual(
      Array.from(repeated.values, (x) => Math.round(x * 1e12) / 1e12),
      [4, 1, 1],
    );
  });

  it('weighs documents by BM25, tf-idf or log-entropy, as the golden weights of a tiny corpus say', () => {
    // Three documents; 债券 occurs three times in the first. Full rank, so the projection is a rotation and
    // inner products of embeddings equal those of the weighted rows.
    const docs = ['债券 债券 债券 利率', '利率 托管', '托管 财产 账户 保管'];
    const rowOf = (w: LsaWeighting, text: string): Map<string, number> => {
      const { model } = fitLsa(analyzer, docs, { dimension: 64, weighting: w, ngrams: [] });
      const { indices, values } = model.weights(text);
      const vocab = [...lsaFeatures(analyzer, docs.join(' '), [])].map(([f]) => f).sort();
      return new Map(indices.map((j, p) => [vocab[j]!, values[p]!]));
    };
    // BM25 (k1 1.2, b 0.75): doc 1 has 4 features, the average is 10/3. 债券 tf 3 → 3·2.2/(3 + 1.2·(0.25 + 0.75·1.2)) = 6.6/4.38,
    // idf ln(1 + 2.5/1.5); 利率 tf 1 (df 2) → 2.2/2.38 · ln(1 + 1.5/2.5). Then L2-normalised.
    const bond = (6.6 / 4.38) * Math.log(1 + 2.5 / 1.5);
    const rate = (2.2 / 2.38) * Math.log(1 + 1.5 / 2.5);
    const bm25 = rowOf('bm25', docs[0]!);
    assert.ok(Math.abs(bm25.get('债券')! - bond / Math.hypot(bond, rate)) < 1e-9, `bm25 债券 ${bm25.get('债券')}`);
    assert.ok(Math.abs(bm25.get('利率')! - rate / Math.hypot(bond, rate)) < 1e-9);
    // tf-idf: (1 + ln 3) · (ln(4/2) + 1) and 1 · (ln(4/3) + 1).
    const tb = (1 + Math.log(3)) * (Math.log(2) + 1);
    const tr = Math.log(4 / 3) + 1;
    const tfidf = rowOf('tfidf', docs[0]!);
    assert.ok(Math.abs(tfidf.get('债券')! - tb / Math.hypot(tb, tr)) < 1e-9);
    // log-entropy: 债券 lives in one document (entropy weight 1), 利率 is spread evenly over two (1 − ln 2 / ln 3).
    const eb = Math.log(4);
    const er = Math.log(2) * (1 - Math.log(2) / Math.log(3));
    const entropy = rowOf('log-entropy', docs[0]!);
    assert.ok(Math.abs(entropy.get('债券')! - eb / Math.hypot(eb, er)) < 1e-9);
    assert.ok(Math.abs(entropy.get('利率')! - er / Math.hypot(eb, er)) < 1e-9);
  });

  it('returns the corpus embeddings it fitted, bit for bit those of embedding each text again, also when fitting on a sample', () => {
    const corpus = Array.from(
      { length: 60 },
      (_, i) => `${CORPUS[i % CORPUS.length]!} 第${i}号 ${i % 3 === 0 ? '托管人 报告' : '债券 久期'}`,
    );
    for (const maxFitDocuments of [1000, 25]) {
      const { model, vectors } = fitLsa(analyzer, corpus, { dimension: 16, maxFitDocuments });
      assert.equal(vectors.length, corpus.length);
      // The fit folds documents in with the dense kernels, the model with addScaledRow: the same operations.
      corpus.forEach((t, i) => assert.deepEqual(vectors[i], model.embed(t), `doc ${i} with maxFitDocuments ${maxFitDocuments}`));
    }
    assert.notEqual(
      fitLsa(analyzer, corpus, { dimension: 16, maxFitDocuments: 25 }).model.id,
      fitLsa(analyzer, corpus, { dimension: 16 }).model.id,
    );
  });

  it('weighs BM25 queries by (1 + log tf) · idf, not by the saturated document weight', () => {
    const { model } = fitLsa(analyzer, CORPUS, { dimension: 8, weighting: 'bm25', ngrams: [] });
    // 托管 and 财产 both occur in 4 of the 10 documents, so their idf is equal and only the local weights differ.
    const vocab = [...lsaFeatures(analyzer, CORPUS.join(' '), [])].map(([f]) => f).sort();
    const weightOf = (w: { indices: number[]; values: number[] }, term: string): number =>
      w.values[w.indices.indexOf(vocab.indexOf(term))]!;
    const query = model.weights('托管 托管 托管 财产', true);
    assert.ok(Math.abs(weightOf(query, '托管') / weightOf(query, '财产') - (1 + Math.log(3))) < 1e-9);
    const asDocument = model.weights('托管 托管 托管 财产', false);
    assert.ok(Math.abs(weightOf(asDocument, '托管') / weightOf(asDocument, '财产') - (1 + Math.log(3))) > 0.1);
  });
});

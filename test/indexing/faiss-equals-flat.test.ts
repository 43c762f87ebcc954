import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openRetriever } from '../../src/retrieve/open-retriever.js';
import { faissStatus } from '../../src/indexing/vector-index.js';
import { buildFixtureIndex } from '../retrieve/fixture-index.js';

const QUERIES = ['基金托管人的职责', '久期与利率风险', '夏普比率和特雷诺比率的区别', '合格投资者', '开放式基金申购赎回', 'ETF 一篮子股票'];

describe('FAISS and the JS flat index', () => {
  it('return the same vector hits on the same index file', async (t) => {
    const status = await faissStatus();
    if (!status.available) {
      t.skip(`FAISS binding not available here: ${status.reason ?? ''}`);
      return;
    }
    // Built by FAISS, searched by both backends.
    const fx = await buildFixtureIndex((c) => {
      c.vector.backend = 'faiss';
    });
    const faiss = await openRetriever({ root: fx.root, config: fx.config, backend: 'faiss' });
    const js = await openRetriever({ root: fx.root, config: fx.config, backend: 'js' });
    try {
      assert.equal(fx.result.vectorBackend, 'faiss');
      assert.equal(faiss.vectorBackend, 'faiss');
      assert.equal(js.vectorBackend, 'js');
      for (const q of QUERIES) {
        const a = await faiss.searchers.vector.search(q, 10);
        const b = await js.searchers.vector.search(q, 10);
        assert.equal(a.length, b.length, q);
        // Same score at every rank; the same chunk gets the same score (FAISS and JS may order exact ties differently).
        a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i]!.score) < 1e-5, `${q} rank ${i}`));
        const cut = b[b.length - 1]!.score;
        for (const h of a) {
          const other = b.find((x) => x.chunk.chunk_id === h.chunk.chunk_id);
          if (other) assert.ok(Math.abs(other.score - h.score) < 1e-5, `${q} ${h.chunk.chunk_id}`);
          else assert.ok(Math.abs(h.score - cut) < 1e-5, `${q}: ${h.chunk.chunk_id} only in the FAISS top 10`);
        }
      }
    } finally {
      faiss.close();
      js.close();
      fx.cleanup();
    }
  });
});

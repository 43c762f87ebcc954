import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FlatVectorIndex } from '../../src/indexing/flat-vector-index.js';
import { VectorSearcher } from '../../src/retrieve/vector-searcher.js';
import type { Embedder } from '../../src/types.js';
import { chunk } from './make-chunk.js';

/** Characters of a small alphabet counted into a normalised vector, with the texts it was asked to embed. */
function countingEmbedder(): Embedder & { asked: string[] } {
  const alphabet = '基金托管份额申购';
  const embed = (text: string): Float32Array => {
    const v = new Float32Array(alphabet.length);
    for (const ch of text) {
      const i = alphabet.indexOf(ch);
      if (i >= 0) v[i] = (v[i] ?? 0) + 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  const asked: string[] = [];
  return {
    id: 'counting',
    dimension: alphabet.length,
    asked,
    embedDocuments: (texts) => Promise.resolve(texts.map(embed)),
    embedQuery: (text) => {
      asked.push(text);
      return Promise.resolve(embed(text));
    },
  };
}

describe('VectorSearcher', () => {
  const texts = ['基金托管', '基金份额', '申购份额', '托管托管', '基金基金申购', '份额份额托管'];
  const chunks = texts.map((text, i) => chunk(`c${i}`, { text, seq: i }));

  async function open(remember = 100): Promise<{ searcher: VectorSearcher; embedder: ReturnType<typeof countingEmbedder> }> {
    const embedder = countingEmbedder();
    const index = new FlatVectorIndex(embedder.dimension);
    index.add(await embedder.embedDocuments(texts));
    return { searcher: new VectorSearcher(embedder, index, chunks, { remember }), embedder };
  }

  it('by default searches every time, so a search costs what it costs', async () => {
    const { searcher, embedder } = await open(0);
    assert.deepEqual(await searcher.search('基金托管', 3), await searcher.search('基金托管', 3));
    assert.deepEqual(embedder.asked, ['基金托管', '基金托管']);
  });

  it('when asked to remember, answers a text searched again to the same depth without embedding it again', async () => {
    const { searcher, embedder } = await open();
    const first = await searcher.search('基金托管', 3);
    assert.deepEqual(
      first.map((h) => h.chunk.chunk_id),
      ['c0', 'c3', 'c4'],
    );
    assert.deepEqual(await searcher.search('基金托管', 3), first);
    assert.deepEqual(embedder.asked, ['基金托管']);
    // Another depth or another text is searched afresh, and agrees with a searcher that never saw the first.
    const deeper = await searcher.search('基金托管', 5);
    const { searcher: fresh } = await open(0);
    assert.deepEqual(deeper, await fresh.search('基金托管', 5));
    await searcher.search('申购', 3);
    assert.deepEqual(embedder.asked, ['基金托管', '基金托管', '申购']);
  });

  it('a text with no known feature finds nothing, also when asked again', async () => {
    const { searcher } = await open();
    assert.deepEqual(await searcher.search('天气', 3), []);
    assert.deepEqual(await searcher.search('天气', 3), []);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildIndexes } from '../../src/indexing/build-indexes.js';
import { NotReadyError } from '../../src/errors.js';
import { openRetriever } from '../../src/retrieve/open-retriever.js';
import { projectPaths } from '../../src/paths.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { buildFixtureIndex, readFixtureCorpus, testConfig } from '../retrieve/fixture-index.js';
import type { ExamCopilotConfig } from '../../src/config/load-config.js';

/** Number of texts the server was asked to embed (the one-text probe excluded). */
function embeddedTexts(server: FakeOpenAiServer): number {
  let n = 0;
  for (const r of server.requests) {
    const input = (r.body as { input?: unknown }).input;
    if (Array.isArray(input) && !(input.length === 1 && input[0] === 'probe')) n += input.length;
  }
  return n;
}

describe('openai embedder and the embedding cache', () => {
  let server: FakeOpenAiServer;
  before(async () => {
    server = await startFakeOpenAiServer({ embeddingDimension: 24 });
  });
  after(async () => {
    await server.close();
  });

  it('embeds through /embeddings, caches by text hash, and re-embeds only new chunks', async () => {
    const use = (c: ExamCopilotConfig): void => {
      c.embedder.kind = 'openai';
      c.embedder.endpoint = { baseURL: server.baseURL, apiKey: 'sk-test', model: 'fake-embedding' };
    };
    const fx = await buildFixtureIndex(use);
    try {
      assert.equal(fx.result.embedderId, 'openai:fake-embedding:d24');
      assert.equal(fx.result.dimension, 24);
      assert.deepEqual([fx.result.embedded, fx.result.cached], [21, 0]);
      assert.equal(embeddedTexts(server), 21);
      assert.ok(server.requests.every((r) => (r.body as { encoding_format?: string }).encoding_format === 'float'));

      // Re-ingest with one changed chunk: only that one goes to the endpoint.
      const corpus = readFixtureCorpus();
      corpus.chunks[3] = { ...corpus.chunks[3]!, text: '封闭式基金份额固定，新增一句。' };
      corpus.docs[3] = { ...corpus.docs[3]!, text: '上册\n封闭式基金份额固定，新增一句。' };
      server.requests.length = 0;
      const again = await buildIndexes({
        root: fx.root,
        config: fx.config,
        chunks: corpus.chunks,
        docs: corpus.docs,
        indexDir: projectPaths(fx.root).index,
      });
      assert.deepEqual([again.embedded, again.cached], [1, 20]);
      assert.equal(embeddedTexts(server), 1);

      const retriever = await openRetriever({ root: fx.root, config: fx.config });
      try {
        const hits = await retriever.search('基金托管人的职责', { mode: 'vector', k: 3 });
        assert.equal(hits.length, 3);
        assert.equal(retriever.embedderId, 'openai:fake-embedding:d24');
      } finally {
        retriever.close();
      }
      // Same kind, another model: a clear re-ingest message before any request is made.
      const other = testConfig(fx.root, (c) => {
        use(c);
        c.embedder.endpoint = { baseURL: server.baseURL, apiKey: 'sk-test', model: 'bigger-model' };
      });
      await assert.rejects(
        openRetriever({ root: fx.root, config: other }),
        (e: unknown) =>
          e instanceof NotReadyError && /built with openai fake-embedding; you configured openai bigger-model/.test(e.message),
      );
    } finally {
      fx.cleanup();
    }
  });

  it('reports an unreachable endpoint in one line', async () => {
    await assert.rejects(
      buildFixtureIndex((c) => {
        c.embedder.kind = 'openai';
        c.embedder.endpoint = { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x', model: 'm' };
      }),
      (e: unknown) =>
        e instanceof NotReadyError && /embedding endpoint http:\/\/127\.0\.0\.1:9\/v1/.test(e.message) && !e.message.includes('\n'),
    );
  });
});

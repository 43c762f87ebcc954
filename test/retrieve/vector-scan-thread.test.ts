import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExamCopilotConfig } from '../../src/config/load-config.js';
import { IndexThreadStopped } from '../../src/indexing/index-thread-stopped.js';
import { openVectorIndex } from '../../src/indexing/vector-index.js';
import { VECTOR_FILES } from '../../src/indexing/vector-meta.js';
import { prestartVectorScanThread, type PrestartedVectorScanThread } from '../../src/indexing/vector-scan-thread.js';
import { projectPaths } from '../../src/paths.js';
import { openRetriever, type OpenedRetriever } from '../../src/retrieve/open-retriever.js';
import { prestartSearchThread } from '../../src/retrieve/prestart-search-thread.js';
import { RETRIEVAL_MODES } from '../../src/retrieve/retriever.js';
import { ThreadedVectors } from '../../src/retrieve/threaded-vectors.js';
import { vectorFilesGeneration } from '../../src/store/index-generation.js';
import type { ChunkFilter, Hit } from '../../src/types.js';
import { buildFixtureIndex, dropKeywordPostings, type FixtureIndex } from './fixture-index.js';

const QUERIES = ['基金托管人应当履行哪些职责？', '麦考利久期的含义是什么', '夏普比率如何计算', '私募基金应当向谁募集', 'ETF 一篮子股票'];
const FILTERS: readonly (ChunkFilter | undefined)[] = [undefined, { chapter: '第十章', pages: { from: 130, to: 134 } }];

/** The fixture with its vectors' 8-bit codes, searched through them (backend auto). */
const withCodes = (): Promise<FixtureIndex> =>
  buildFixtureIndex((c) => {
    c.vector.quantizeAbove = 0;
    c.vector.backend = 'auto';
  });
const withParallelAbove = (config: ExamCopilotConfig, n: number): ExamCopilotConfig => ({
  ...config,
  retrieval: { ...config.retrieval, parallelAbove: n },
});
const ranked = (hits: readonly Hit[]): [string, number][] => hits.map((h) => [h.chunk.chunk_id, h.score]);
const filesOf = (root: string): { file: string; codes: string } => {
  const faissDir = projectPaths(root).faissDir;
  return { file: path.join(faissDir, VECTOR_FILES.index), codes: path.join(faissDir, VECTOR_FILES.quantized) };
};

describe('hybrid search with the vector scan on a worker thread', () => {
  let fx: FixtureIndex;
  let parallel: OpenedRetriever;
  let inProcess: OpenedRetriever;
  before(async () => {
    fx = await withCodes();
    parallel = await openRetriever({ root: fx.root, config: withParallelAbove(fx.config, 1) });
    inProcess = await openRetriever({ root: fx.root, config: withParallelAbove(fx.config, 1000) });
    assert.equal(await parallel.threadReady(), true);
  });
  after(() => {
    parallel.close();
    inProcess.close();
    fx.cleanup();
  });

  it('is used from `retrieval.parallelAbove` chunks on, where the keyword ranking stays here (the postings file)', () => {
    assert.equal(parallel.vectorBackend, 'sq8');
    assert.equal(parallel.parallelHybrid, true);
    assert.equal(inProcess.parallelHybrid, false);
  });

  it('returns exactly the in-process hits and scores in every mode, with and without filters, one by one and together', async () => {
    for (const mode of RETRIEVAL_MODES) {
      for (const filter of FILTERS) {
        const options = { mode, k: 8, ...(filter ? { filter } : {}) };
        for (const q of QUERIES) {
          const b = await inProcess.search(q, options);
          assert.ok(b.length > 0 || filter, `${mode} "${q}" finds something`);
          assert.deepEqual(ranked(await parallel.search(q, options)), ranked(b), `${mode} "${q}" ${JSON.stringify(filter)}`);
        }
        const many = await parallel.searchMany?.(QUERIES, options);
        const expected = await inProcess.searchMany?.(QUERIES, options);
        assert.ok(many && expected);
        assert.deepEqual(many.map(ranked), expected.map(ranked), `${mode} together ${JSON.stringify(filter)}`);
      }
    }
  });

  it('answers searches sent at once, each with its own hits', async () => {
    const together = await Promise.all(QUERIES.map((q) => parallel.searchers.hybrid.search(q, 5)));
    const oneByOne = [];
    for (const q of QUERIES) oneByOne.push(await inProcess.searchers.hybrid.search(q, 5));
    assert.deepEqual(together.map(ranked), oneByOne.map(ranked));
  });
});

describe('a vector scan thread', () => {
  it('scans nothing for another build: told another generation, or without its codes, it settles false and the index here serves', async () => {
    const fx = await withCodes();
    const files = filesOf(fx.root);
    const local = await openVectorIndex(files.file, { backend: 'auto', quantized: files.codes });
    const current = prestartVectorScanThread(files).start(null, vectorFilesGeneration(files));
    const replaced = prestartVectorScanThread(files).start(null, 'another build');
    const noCodes = prestartVectorScanThread({ ...files, codes: path.join(fx.root, 'none.faiss') }).start(null, null);
    try {
      assert.equal(await current.settled, true);
      assert.equal(await replaced.settled, false);
      assert.equal(await noCodes.settled, false);
      const query = new Float32Array(local.dimension).map((_, i) => Math.cos(i));
      await assert.rejects(replaced.request({ queries: [query], k: 3 }), /replaced/);
      await assert.rejects(noCodes.request({ queries: [query], k: 3 }), /none\.faiss/);
      const expected = local.search(query, 5);
      assert.deepEqual((await current.request({ queries: [query, query], k: 5 }))[1], expected);
      for (const thread of [current, replaced, noCodes]) {
        const vectors = new ThreadedVectors(thread, local);
        assert.deepEqual(await vectors.search(query, 5), expected);
        assert.deepEqual(await vectors.searchMany([query, query], 5), [expected, expected]);
      }
      // A request the index refuses is the caller's error, not a reason to search here instead.
      await assert.rejects(new ThreadedVectors(current, local).search(query, 0), /vector search failed: k must be a positive integer/);
      // A thread that stops after it was ready leaves the searches to this thread.
      await current.close();
      await assert.rejects(current.request({ queries: [query], k: 5 }), IndexThreadStopped);
      assert.deepEqual(await new ThreadedVectors(current, local).search(query, 5), expected);
    } finally {
      await Promise.all([current.close(), replaced.close(), noCodes.close()]);
      local.close();
      fx.cleanup();
    }
  });

  it('says so in its warnings when the codes are cut short, and searches the exact index, with no thread', async () => {
    const fx = await withCodes();
    try {
      const { codes } = filesOf(fx.root);
      writeFileSync(codes, readFileSync(codes).subarray(0, 200));
      const retriever = await openRetriever({ root: fx.root, config: withParallelAbove(fx.config, 1) });
      try {
        assert.notEqual(retriever.vectorBackend, 'sq8');
        assert.equal(await retriever.threadReady(), false);
        const said = retriever.warnings.filter((w) => w.where === codes);
        assert.equal(said.length, 1);
        assert.match(said[0]!.message, /8-bit codes are unusable \(.*truncated.*\), so the exact index is searched instead/u);
        const hits = await retriever.searchers.vector.search(QUERIES[0]!, 5);
        assert.equal(hits.length, 5);
      } finally {
        retriever.close();
      }
    } finally {
      fx.cleanup();
    }
  });

  it('is started before the index is opened for a one-shot hybrid ask, and is the one the retriever scans on', async () => {
    const fx = await withCodes();
    const config = withParallelAbove(fx.config, 1);
    const inProcess = await openRetriever({ root: fx.root, config: withParallelAbove(fx.config, 1000) });
    try {
      const started = await prestartSearchThread(fx.root, config, 'hybrid');
      assert.equal(started?.kind, 'vector');
      assert.equal(started.thread.file, filesOf(fx.root).file);
      assert.equal(await prestartSearchThread(fx.root, config, 'vector'), undefined);
      assert.equal(await prestartSearchThread(fx.root, withParallelAbove(fx.config, fx.chunks.length + 1), 'hybrid'), undefined);
      assert.equal(await prestartSearchThread(fx.root, { ...config, vector: { ...config.vector, backend: 'js' } }, 'hybrid'), undefined);
      let starts = 0;
      const thread: PrestartedVectorScanThread = {
        file: started.thread.file,
        start: (settings, generation) => {
          starts += 1;
          return started.thread.start(settings, generation);
        },
        close: () => started.thread.close(),
      };
      const retriever = await openRetriever({ root: fx.root, config, searchThread: { kind: 'vector', thread } });
      try {
        assert.equal(starts, 1);
        assert.equal(await retriever.threadReady(), true);
        for (const q of QUERIES) {
          assert.deepEqual(
            ranked(await retriever.search(q, { mode: 'hybrid', k: 8 })),
            ranked(await inProcess.search(q, { mode: 'hybrid', k: 8 })),
            q,
          );
        }
      } finally {
        retriever.close();
      }
      // Without the postings file the keyword ranking takes the thread, and the vectors are scanned here.
      dropKeywordPostings(fx.root);
      const keyword = await prestartSearchThread(fx.root, config, 'hybrid');
      assert.equal(keyword?.kind, 'keyword');
      await keyword.thread.close();
    } finally {
      inProcess.close();
      fx.cleanup();
    }
  });
});

describe('vector rows read through the keyword index', () => {
  it('give the same hits as through ids.json, which an index written before `keywordRows` still needs', async () => {
    const fx = await withCodes();
    const metaFile = path.join(projectPaths(fx.root).faissDir, VECTOR_FILES.meta);
    const idsFile = path.join(projectPaths(fx.root).faissDir, VECTOR_FILES.ids);
    try {
      const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
      assert.equal(meta.keywordRows, true);
      const ids = readFileSync(idsFile);
      // ids.json is not read: the index opens and searches without it.
      rmSync(idsFile);
      const byRows = await openRetriever({ root: fx.root, config: fx.config });
      const hits = [];
      for (const q of QUERIES) hits.push(ranked(await byRows.search(q, { mode: 'vector', k: 8 })));
      byRows.close();
      writeFileSync(idsFile, ids);
      delete meta.keywordRows;
      writeFileSync(metaFile, JSON.stringify(meta));
      const byIds = await openRetriever({ root: fx.root, config: fx.config });
      try {
        for (const [i, q] of QUERIES.entries()) assert.deepEqual(ranked(await byIds.search(q, { mode: 'vector', k: 8 })), hits[i], q);
      } finally {
        byIds.close();
      }
      rmSync(idsFile);
      await assert.rejects(openRetriever({ root: fx.root, config: fx.config }), /no vector index/);
    } finally {
      fx.cleanup();
    }
  });
});

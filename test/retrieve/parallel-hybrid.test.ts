import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, PARALLEL_ABOVE } from '../../src/config/load-config.js';
import { UserError } from '../../src/errors.js';
import { openFtsIndex } from '../../src/indexing/fts-index.js';
import {
  openFtsRankThread,
  prestartFtsRankThread,
  startFtsRankThread,
  type PrestartedFtsRankThread,
} from '../../src/indexing/fts-rank-thread.js';
import { projectPaths } from '../../src/paths.js';
import { openRetriever, type OpenedRetriever } from '../../src/retrieve/open-retriever.js';
import { ThreadedKeywordSearcher } from '../../src/retrieve/keyword-searcher.js';
import { prestartSearchThread } from '../../src/retrieve/prestart-search-thread.js';
import { fileGeneration } from '../../src/store/index-generation.js';
import { RETRIEVAL_MODES } from '../../src/retrieve/retriever.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import type { ChunkFilter } from '../../src/types.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { buildFixtureIndex, dropKeywordPostings, type FixtureIndex } from './fixture-index.js';

const QUERIES = ['基金托管人应当履行哪些职责？', '麦考利久期的含义是什么', '夏普比率如何计算', '私募基金应当向谁募集', 'ETF 一篮子股票'];
const FILTERS: readonly (ChunkFilter | undefined)[] = [undefined, { chapter: '第十章', pages: { from: 130, to: 134 } }];

describe('hybrid search with the keyword query on a worker thread', () => {
  let fx: FixtureIndex;
  let parallel: OpenedRetriever;
  let inProcess: OpenedRetriever;
  before(async () => {
    fx = await buildFixtureIndex();
    dropKeywordPostings(fx.root);
    const withParallelAbove = (n: number) => ({ ...fx.config, retrieval: { ...fx.config.retrieval, parallelAbove: n } });
    parallel = await openRetriever({ root: fx.root, config: withParallelAbove(1) });
    inProcess = await openRetriever({ root: fx.root, config: withParallelAbove(1000) });
    // The thread starts without being waited for; these tests are about the ranking it does once ready.
    assert.equal(await parallel.threadReady(), true);
  });
  after(() => {
    parallel.close();
    inProcess.close();
    fx.cleanup();
  });

  it('is used from `retrieval.parallelAbove` chunks on', () => {
    assert.equal(parallel.parallelHybrid, true);
    assert.equal(inProcess.parallelHybrid, false);
  });

  it('returns exactly the in-process hits and scores in every mode, with and without filters', async () => {
    for (const mode of RETRIEVAL_MODES) {
      for (const filter of FILTERS) {
        for (const q of QUERIES) {
          const a = await parallel.search(q, { mode, k: 8, ...(filter ? { filter } : {}) });
          const b = await inProcess.search(q, { mode, k: 8, ...(filter ? { filter } : {}) });
          assert.ok(b.length > 0 || filter, `${mode} "${q}" finds something`);
          assert.deepEqual(
            a.map((h) => [h.chunk.chunk_id, h.score]),
            b.map((h) => [h.chunk.chunk_id, h.score]),
            `${mode} "${q}" ${JSON.stringify(filter)}`,
          );
        }
      }
    }
  });

  it('answers searches sent at once, each with its own hits', async () => {
    const together = await Promise.all(QUERIES.map((q) => parallel.searchers.hybrid.search(q, 5)));
    const oneByOne = [];
    for (const q of QUERIES) oneByOne.push(await inProcess.searchers.hybrid.search(q, 5));
    assert.deepEqual(
      together.map((hits) => hits.map((h) => h.chunk.chunk_id)),
      oneByOne.map((hits) => hits.map((h) => h.chunk.chunk_id)),
    );
  });
});

describe('the keyword ranking thread', () => {
  it('fails to open on a missing index file with a message naming it', async () => {
    const tmp = makeTempRoot();
    const file = path.join(tmp.root, 'none.db');
    try {
      await assert.rejects(
        openFtsRankThread(file, {
          weights: { content: 1, book: 1, chapter: 1, section: 1, figure_ref: 1 },
          twoStage: { minCommonPostings: 1, rareShare: 0.1, minRareTerms: 1, candidates: 10, fetchFactor: 1 },
          count: 0,
        }),
        (error: Error) => error.message.includes(file),
      );
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a keyword ranking thread started without waiting', () => {
  it('is not there at once, then ranks as the index does on this thread; an unstartable one settles false', async () => {
    const fx = await buildFixtureIndex();
    dropKeywordPostings(fx.root);
    const fts = openFtsIndex(projectPaths(fx.root).ftsDb, analyzerFromConfig(fx.root, fx.config).analyzer);
    const started = startFtsRankThread(fts.file, fts.rankerOptions);
    try {
      assert.equal(started.current(), null);
      assert.equal(await started.settled, true);
      const thread = started.current();
      assert.ok(thread);
      for (const q of QUERIES) {
        const terms = fts.queryTerms(q);
        const rows = await thread.request({ terms, k: fts.rankDepth(5) });
        assert.deepEqual(fts.hitsFor(q, rows, 5), fts.search(q, 5), q);
      }
      const missing = startFtsRankThread(path.join(fx.root, 'none.db'), fts.rankerOptions);
      assert.equal(await missing.settled, false);
      assert.equal(missing.current(), null);
      await missing.close();
      // Stopped after it was ready, it leaves the ranking to this thread, with the same hits.
      await started.close();
      const searcher = new ThreadedKeywordSearcher(fts, started);
      for (const q of QUERIES) assert.deepEqual(await searcher.search(q, 5), fts.search(q, 5), q);
    } finally {
      await started.close();
      fts.close();
      fx.cleanup();
    }
  });

  it('takes queries before it is ready and ranks them once open; where it cannot open, the searcher ranks here', async () => {
    const fx = await buildFixtureIndex();
    dropKeywordPostings(fx.root);
    const fts = openFtsIndex(projectPaths(fx.root).ftsDb, analyzerFromConfig(fx.root, fx.config).analyzer);
    const started = startFtsRankThread(fts.file, fts.rankerOptions);
    const missing = startFtsRankThread(path.join(fx.root, 'none.db'), fts.rankerOptions);
    try {
      assert.equal(started.current(), null);
      // Posted at once, while the thread still loads: answered from its queue, as this thread ranks them.
      const queued = QUERIES.map((q) => started.request({ terms: fts.queryTerms(q), k: fts.rankDepth(5) }));
      assert.equal(started.current(), null);
      const rows = await Promise.all(queued);
      QUERIES.forEach((q, i) => assert.deepEqual(fts.hitsFor(q, rows[i]!, 5), fts.search(q, 5), q));
      await assert.rejects(missing.request({ terms: fts.queryTerms(QUERIES[0]!), k: 5 }), /none\.db/);
      const searcher = new ThreadedKeywordSearcher(fts, missing);
      for (const q of QUERIES) {
        assert.deepEqual(
          (await searcher.search(q, 5)).map((h) => [h.chunk.chunk_id, h.score]),
          fts.search(q, 5).map((h) => [h.chunk.chunk_id, h.score]),
          q,
        );
      }
    } finally {
      await started.close();
      await missing.close();
      fts.close();
      fx.cleanup();
    }
  });
});

describe('a keyword ranking thread closed before it is ready', () => {
  it('rejects the requests it had taken and settles false, so nothing waits on it for ever', async () => {
    const fx = await buildFixtureIndex();
    dropKeywordPostings(fx.root);
    const fts = openFtsIndex(projectPaths(fx.root).ftsDb, analyzerFromConfig(fx.root, fx.config).analyzer);
    try {
      const thread = startFtsRankThread(fts.file, fts.rankerOptions);
      const taken = assert.rejects(thread.request({ terms: fts.queryTerms(QUERIES[0]!), k: 5 }), /closed/);
      await thread.close();
      await taken;
      assert.equal(await thread.settled, false);
      assert.equal(thread.current(), null);
      // Closed, it leaves the ranking to this thread: a search through it has the in-process hits.
      const searcher = new ThreadedKeywordSearcher(fts, thread);
      for (const q of QUERIES) {
        assert.deepEqual(
          (await searcher.search(q, 5)).map((h) => [h.chunk.chunk_id, h.score]),
          fts.search(q, 5).map((h) => [h.chunk.chunk_id, h.score]),
          q,
        );
      }
    } finally {
      fts.close();
      fx.cleanup();
    }
  });
});

describe('a keyword ranking thread started before the index is opened', () => {
  it('starts only for a hybrid search over at least retrieval.parallelAbove chunks of a readable index without postings', async () => {
    const fx = await buildFixtureIndex();
    const tmp = makeTempRoot();
    const withParallelAbove = (n: number) => ({ ...fx.config, retrieval: { ...fx.config.retrieval, parallelAbove: n } });
    try {
      // With the build's postings file a keyword query ranks in process, so no thread is started, and none is used.
      assert.equal(await prestartSearchThread(fx.root, withParallelAbove(0), 'hybrid'), undefined);
      const withPostings = await openRetriever({ root: fx.root, config: withParallelAbove(0) });
      assert.equal(withPostings.parallelHybrid, false);
      withPostings.close();
      dropKeywordPostings(fx.root);
      const started = await prestartSearchThread(fx.root, withParallelAbove(fx.chunks.length), 'hybrid');
      assert.equal(started?.kind, 'keyword');
      assert.equal(started.thread.file, projectPaths(fx.root).ftsDb);
      await started.thread.close();
      assert.equal(await prestartSearchThread(fx.root, withParallelAbove(fx.chunks.length + 1), 'hybrid'), undefined);
      assert.equal(await prestartSearchThread(fx.root, withParallelAbove(0), 'keyword'), undefined);
      assert.equal(await prestartSearchThread(tmp.root, withParallelAbove(0), 'hybrid'), undefined);
    } finally {
      tmp.cleanup();
      fx.cleanup();
    }
  });

  it('is the one the retriever ranks on, with the in-process hits; one for another file is closed and replaced', async () => {
    const fx = await buildFixtureIndex();
    dropKeywordPostings(fx.root);
    const config = { ...fx.config, retrieval: { ...fx.config.retrieval, parallelAbove: 1 } };
    const inProcess = await openRetriever({
      root: fx.root,
      config: { ...config, retrieval: { ...config.retrieval, parallelAbove: 1000 } },
    });
    const counted = (thread: PrestartedFtsRankThread): PrestartedFtsRankThread & { starts: number } => {
      const spy = { file: thread.file, starts: 0, close: () => thread.close(), start: thread.start.bind(thread) };
      spy.start = (options, generation) => {
        spy.starts += 1;
        return thread.start(options, generation);
      };
      return spy;
    };
    const own = counted(prestartFtsRankThread(projectPaths(fx.root).ftsDb));
    const other = counted(prestartFtsRankThread(path.join(fx.root, 'other.db')));
    const withOwn = await openRetriever({ root: fx.root, config, searchThread: { kind: 'keyword', thread: own } });
    const withOther = await openRetriever({ root: fx.root, config, searchThread: { kind: 'keyword', thread: other } });
    try {
      assert.equal(own.starts, 1);
      assert.equal(other.starts, 0);
      assert.equal(await withOwn.threadReady(), true);
      assert.equal(await withOther.threadReady(), true);
      for (const retriever of [withOwn, withOther]) {
        assert.equal(retriever.parallelHybrid, true);
        for (const q of QUERIES) {
          assert.deepEqual(
            (await retriever.search(q, { mode: 'hybrid', k: 8 })).map((h) => [h.chunk.chunk_id, h.score]),
            (await inProcess.search(q, { mode: 'hybrid', k: 8 })).map((h) => [h.chunk.chunk_id, h.score]),
            q,
          );
        }
      }
    } finally {
      withOwn.close();
      withOther.close();
      inProcess.close();
      fx.cleanup();
    }
  });

  it('ranks nothing for another build of the index: told another generation, it settles false and the query is ranked here', async () => {
    const fx = await buildFixtureIndex();
    dropKeywordPostings(fx.root);
    const fts = openFtsIndex(projectPaths(fx.root).ftsDb, analyzerFromConfig(fx.root, fx.config).analyzer);
    const current = prestartFtsRankThread(fts.file).start(fts.rankerOptions, fileGeneration(fts.file));
    const replaced = prestartFtsRankThread(fts.file).start(fts.rankerOptions, 'another build');
    try {
      assert.equal(await current.settled, true);
      assert.equal(await replaced.settled, false);
      await assert.rejects(replaced.request({ terms: fts.queryTerms(QUERIES[0]!), k: 5 }), /replaced/);
      const searcher = new ThreadedKeywordSearcher(fts, replaced);
      for (const q of QUERIES) {
        assert.deepEqual(
          (await searcher.search(q, 5)).map((h) => [h.chunk.chunk_id, h.score]),
          fts.search(q, 5).map((h) => [h.chunk.chunk_id, h.score]),
          q,
        );
      }
    } finally {
      await current.close();
      await replaced.close();
      fts.close();
      fx.cleanup();
    }
  });
});

describe('retrieval.parallelAbove', () => {
  it('defaults to PARALLEL_ABOVE and rejects a negative count', () => {
    const tmp = makeTempRoot();
    try {
      assert.equal(loadConfig({ root: tmp.root, env: {} }).config.retrieval.parallelAbove, PARALLEL_ABOVE);
      writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), JSON.stringify({ retrieval: { parallelAbove: 0 } }));
      assert.equal(loadConfig({ root: tmp.root, env: {} }).config.retrieval.parallelAbove, 0);
      writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), JSON.stringify({ retrieval: { parallelAbove: -1 } }));
      assert.throws(() => loadConfig({ root: tmp.root, env: {} }), UserError);
    } finally {
      tmp.cleanup();
    }
  });
});

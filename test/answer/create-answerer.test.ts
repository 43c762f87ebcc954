import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AnswerDeps } from '../../src/answer/answer-question.js';
import { createAnswerer } from '../../src/answer/create-answerer.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { runAsk } from '../../src/answer/run-ask.js';
import type { ExamCopilotConfig } from '../../src/config/load-config.js';
import { NotReadyError } from '../../src/errors.js';
import { openEvalEngine } from '../../src/evaluate/eval-engine.js';
import { canListOpenFiles, openFilesNamed } from '../helpers/open-files.js';
import { buildFixtureIndex, dropKeywordPostings, swapInRebuiltIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const STEM = '基金财产由（　）负责保管。';
const OPTIONS = { A: '基金托管人', B: '基金管理人', C: '基金销售机构', D: '基金份额登记机构' };

// @ts-expect-error the analyzer is required: a default one without the user dictionary would cut queries unlike the index
const missingAnalyzer: AnswerDeps = {
  retriever: null,
  llm: null,
  answerer: 'offline',
  mode: 'hybrid',
  topK: 5,
  rerank: false,
  prompts: '',
};
void missingAnalyzer;

describe('one answerer factory for ask and eval', () => {
  let fx: FixtureIndex;
  before(async () => {
    fx = await buildFixtureIndex();
  });
  /** `ask` of the fixture question over the fixture index, hybrid, top 5. */
  const askFixture = (config: ExamCopilotConfig, root = fx.root) =>
    runAsk({
      root,
      config,
      question: STEM,
      options: OPTIONS,
      mode: 'hybrid',
      topK: 5,
      rerank: false,
      cache: false,
      showContext: false,
    });
  after(() => fx.cleanup());

  it('ask and eval give the same answer, confidence and evidence for the same question', async () => {
    const asked = await askFixture(fx.config);
    const engine = await openEvalEngine({ root: fx.root, config: fx.config, answerer: 'offline', topK: 5, noCache: true, retrieval: true });
    try {
      const evaluated = await engine.answer(
        {
          id: '1',
          line: 2,
          question: STEM,
          options: Object.entries(OPTIONS).map(([letter, text]) => ({ letter, text })),
          answer: 'A',
          type: null,
          gold: null,
        },
        'hybrid',
      );
      assert.equal(asked.result.answer, 'A');
      assert.equal(evaluated.answer, asked.result.answer);
      assert.equal(evaluated.confidence, asked.result.confidence);
      assert.deepEqual(
        evaluated.evidence.map((e) => e.chunk_id),
        asked.result.evidence.map((e) => e.chunk_id),
      );
      assert.ok(asked.result.evidence.length > 0);
    } finally {
      await engine.close();
    }
  });

  it('a one-shot ask whose keyword thread starts before the index opens answers as one ranked in process', async () => {
    // An index without the postings file (written before it existed), where FTS5 ranks and a thread is worth starting.
    const old = await buildFixtureIndex();
    try {
      dropKeywordPostings(old.root);
      const ask = (parallelAbove: number) => askFixture({ ...old.config, retrieval: { ...old.config.retrieval, parallelAbove } }, old.root);
      const threaded = await ask(0);
      const inProcess = await ask(1_000_000);
      assert.equal(threaded.result.answer, 'A');
      const { latencyMs: _threadedMs, ...threadedResult } = threaded.result;
      const { latencyMs: _inProcessMs, ...inProcessResult } = inProcess.result;
      assert.deepEqual(threadedResult, inProcessResult);
      // The same answer from the postings file, which ranks as FTS5 does in one stage.
      const fromPostings = await askFixture({ ...fx.config, retrieval: { ...fx.config.retrieval, parallelAbove: 0 } });
      const { latencyMs: _postingsMs, ...postingsResult } = fromPostings.result;
      assert.deepEqual(postingsResult, inProcessResult);
    } finally {
      old.cleanup();
    }
  });

  it('answers many questions from one opening, and refuses --answerer llm without an LLM (exit 5)', async () => {
    const answerer = await createAnswerer({ root: fx.root, config: fx.config, retrieval: true, topK: 3, rerank: false, cache: false });
    try {
      assert.equal(answerer.answerer, 'offline');
      const question = parseQuestion(`${STEM}A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构`);
      const a = await answerer.answer(question, 'keyword');
      const b = await answerer.answer(question, 'keyword');
      assert.equal(a.answer, b.answer);
      assert.ok(a.evidence.every((e) => answerer.chunk(e.chunk_id) !== undefined));
    } finally {
      answerer.close();
    }
    await assert.rejects(
      createAnswerer({ root: fx.root, config: fx.config, answerer: 'llm', retrieval: true, topK: 3, rerank: false, cache: false }),
      NotReadyError,
    );
  });

  it(
    'reopens a rebuilt index once for concurrent questions, and closes the old one after them',
    { skip: !canListOpenFiles && 'no /proc/self/fd' },
    async () => {
      const handles = (): string[] => openFilesNamed('sqlite_fts.db', path.basename(fx.root));
      const answerer = await createAnswerer({ root: fx.root, config: fx.config, retrieval: true, topK: 3, rerank: false, cache: false });
      try {
        const question = parseQuestion(STEM, { options: OPTIONS });
        const before = await answerer.answer(question, 'hybrid');
        assert.equal(before.answer, 'A');
        assert.equal(handles().length, 1);
        await swapInRebuiltIndex(fx);
        // Every question arrives before the reopen has finished: they must share one opening, and all answer from it.
        const answers = await Promise.all(Array.from({ length: 4 }, () => answerer.answer(question, 'hybrid')));
        for (const a of answers) {
          assert.equal(a.answer, 'A');
          assert.deepEqual(
            a.evidence.map((e) => e.chunk_id),
            before.evidence.map((e) => e.chunk_id),
          );
        }
        const open = handles();
        assert.equal(open.length, 1, `one index handle, of the new build: ${open.join(', ')}`);
        assert.ok(!open[0]?.endsWith('(deleted)'), open[0]);
      } finally {
        answerer.close();
      }
      assert.deepEqual(handles(), []);
    },
  );
});

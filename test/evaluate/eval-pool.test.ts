import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import type { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { NotReadyError, UserError } from '../../src/errors.js';
import { loadDataset } from '../../src/evaluate/load-dataset.js';
import { evalWorkerCount, openEvalPool, POOL_MIN_ANSWERS } from '../../src/evaluate/eval-pool.js';
import { memoizeAnalyzer } from '../../src/text/memoize-analyzer.js';
import type { RunRecord } from '../../src/evaluate/eval-types.js';
import { runEval } from '../../src/evaluate/run-eval.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

const tmp = await sampleRoot();
const root = tmp.root;
const config = { ...loadConfig({ root, env: {} }).config, llm: null };
const dataset = path.join(root, 'rawdoc', 'validation.csv');

after(() => tmp.cleanup());

/** What a run decides per question, without timings. */
const decisions = (records: readonly RunRecord[]): unknown[] =>
  records.map((r) => ({
    id: r.id,
    predicted: r.predicted,
    correct: r.correct,
    fallback: r.fallback,
    confidence: r.confidence,
    evidence: r.evidence,
    retrieved: r.retrieved,
    type: r.type,
  }));

void describe('eval worker pool', () => {
  void it('gives the same predictions, evidence and confidences as the in-process engine, in every mode', async () => {
    const modes = ['keyword', 'vector', 'hybrid'] as const;
    const serial = await runEval({
      root,
      config,
      file: dataset,
      modes: [...modes],
      answerer: 'offline',
      workers: 1,
      runDir: path.join(root, 'serial'),
    });
    const pooled = await runEval({
      root,
      config,
      file: dataset,
      modes: [...modes],
      answerer: 'offline',
      workers: 2,
      runDir: path.join(root, 'pooled'),
    });
    assert.ok(serial.total >= 50);
    for (const m of modes) {
      assert.deepEqual(decisions(pooled.records[m] ?? []), decisions(serial.records[m] ?? []), `mode ${m}`);
      assert.ok((serial.records[m] ?? []).length === serial.total);
    }
    assert.equal(pooled.config.concurrency, 4, 'two workers, two questions in flight each');
    assert.equal(serial.config.concurrency, 1);
  });

  void it('throws the typed error of a worker that cannot open the index', async () => {
    const empty = makeTempRoot();
    try {
      await assert.rejects(
        openEvalPool({ root: empty.root, config, answerer: 'offline', topK: 8, noCache: true, retrieval: true, workers: 2 }),
        NotReadyError,
      );
    } finally {
      empty.cleanup();
    }
  });

  // A hang is what these guard against: the timeout turns one into a failure instead of a stuck suite.
  void it('a row that makes the worker throw synchronously fails alone; the thread keeps answering', { timeout: 120_000 }, async () => {
    const rows = (await loadDataset(dataset)).rows;
    const good = rows[0];
    assert.ok(good);
    const pool = await openEvalPool({ root, config, answerer: 'offline', topK: 8, noCache: true, retrieval: true, workers: 1 });
    try {
      // questionFromParts throws a UserError for an option key that is not a letter: inside the worker's message handler.
      const bad = { ...good, id: 'BAD', options: [...good.options, { letter: 'Z', text: '甲' }] };
      await assert.rejects(pool.answer(bad, 'keyword'), (e: unknown) => e instanceof UserError && /option key "Z"/.test(e.message));
      const answered = await pool.answer(good, 'keyword');
      assert.match(answered.answer, /^[A-D]$/);
    } finally {
      await pool.close();
    }
  });

  void it(
    'a worker that dies mid-run leaves the pool: its rows fail, the run ends with a one-line error and does not hang',
    { timeout: 120_000 },
    async () => {
      const threads: Worker[] = [];
      const runDir = path.join(root, 'dying');
      await assert.rejects(
        runEval({
          root,
          config,
          file: dataset,
          modes: ['keyword'],
          answerer: 'offline',
          concurrency: 4,
          runDir,
          openEngine: (o) => openEvalPool({ ...o, workers: 2, onWorker: (w) => threads.push(w) }),
          onProgress: (event) => {
            if (event.phase === 'row' && event.done === 5) void threads[0]?.terminate();
          },
        }),
        (e: unknown) =>
          e instanceof UserError &&
          /an eval worker thread stopped \(exit code 1\) with \d+ questions? in flight; 1 of 2 left/.test(e.message) &&
          /rerun with --resume/.test(e.message),
      );
      // What was answered is in the run file, whole lines only, and the run stopped before the end.
      const lines = readFileSync(path.join(runDir, 'validation.keyword.jsonl'), 'utf8').trim().split('\n');
      const ids = lines.map((l) => (JSON.parse(l) as RunRecord).id);
      assert.ok(ids.length >= 5 && ids.length < 60, `${ids.length} rows recorded`);
      assert.equal(new Set(ids).size, ids.length);
    },
  );

  void it('once its last worker is gone the pool fails every row at once', { timeout: 120_000 }, async () => {
    const good = (await loadDataset(dataset)).rows[0];
    assert.ok(good);
    const threads: Worker[] = [];
    const pool = await openEvalPool({
      root,
      config,
      answerer: 'offline',
      topK: 8,
      noCache: true,
      retrieval: true,
      workers: 1,
      onWorker: (w) => threads.push(w),
    });
    try {
      const exited = new Promise((resolve) => threads[0]?.once('exit', resolve));
      await threads[0]?.terminate();
      await exited;
      await assert.rejects(pool.answer(good, 'keyword'), /an eval worker thread stopped .*no worker is left/);
    } finally {
      await pool.close();
    }
  });

  void it('uses one worker per core only when there is enough to answer', () => {
    assert.equal(evalWorkerCount(POOL_MIN_ANSWERS - 1), 1);
    assert.equal(evalWorkerCount(5, 3), 3);
    assert.equal(evalWorkerCount(2, 4), 2);
    assert.ok(evalWorkerCount(10_000) >= 1);
  });

  void it('memoises tokens without sharing the returned arrays', () => {
    const base = createAnalyzer();
    let calls = 0;
    const counting = { fingerprint: base.fingerprint, tokens: (t: string) => (calls++, base.tokens(t)) };
    const memo = memoizeAnalyzer(counting, 2);
    const first = memo.tokens('基金托管人负责保管基金财产');
    first.push('changed');
    assert.deepEqual(memo.tokens('基金托管人负责保管基金财产'), base.tokens('基金托管人负责保管基金财产'));
    assert.equal(calls, 1);
    memo.tokens('甲');
    memo.tokens('乙'); // evicts the oldest entry
    memo.tokens('基金托管人负责保管基金财产');
    assert.equal(calls, 4);
  });
});

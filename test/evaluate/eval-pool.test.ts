import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import { NotReadyError } from '../../src/errors.js';
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

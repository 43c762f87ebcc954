import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import type { AnswerMode } from '../../src/answer/answer-types.js';
import { runEval } from '../../src/evaluate/run-eval.js';
import {
  chatMessages,
  chatReply,
  errorReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type RecordedRequest,
  type ScriptedResponse,
} from '../helpers/fake-openai-server.js';
import { sampleRoot } from '../helpers/sample-root.js';

const tmp = await sampleRoot();
const root = tmp.root;
const dataset = path.join(root, 'rawdoc', 'validation.csv');
let server: FakeOpenAiServer;

/** Letter the scripted "model" always answers; gold letters in the sample vary, so some answers are right and some wrong. */
const ALWAYS = 'A';
let inFlight = 0;
let maxInFlight = 0;
let answerCalls = 0;
let failAfter = Infinity;
let failedCalls = 0;

function isRerank(request: RecordedRequest): boolean {
  return chatMessages(request).some((m) => m.content.includes('You rank textbook passages'));
}

async function handler(request: RecordedRequest): Promise<ScriptedResponse> {
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  try {
    // Hold each request briefly so concurrent ones overlap on the server.
    await new Promise((r) => setTimeout(r, 15));
    // After the outage starts every call fails, rerank included, as with a dead endpoint.
    if (answerCalls >= failAfter) {
      failedCalls++;
      return errorReply(500, 'upstream is down');
    }
    if (isRerank(request)) return chatReply('[1] > [2] > [3]', { promptTokens: 30, completionTokens: 5 });
    answerCalls++;
    // Retrieval modes cite the first passage shown; baseline has no evidence to cite.
    const cites = chatMessages(request).some((m) => /<evidence-[0-9a-f]{12}>/.test(m.content)) ? [1] : [];
    return chatReply(JSON.stringify({ answer: ALWAYS, confidence: 0.8, evidence_ids: cites, status: 'answered', explanation: '' }), {
      promptTokens: 100,
      completionTokens: 20,
    });
  } finally {
    inFlight--;
  }
}

function llmConfig(): ExamCopilotConfig {
  const { config } = loadConfig({
    root,
    env: {
      EXAM_COPILOT_LLM_BASE_URL: server.baseURL,
      EXAM_COPILOT_LLM_MODEL: 'fake-model',
      EXAM_COPILOT_LLM_API_KEY: 'sk-test',
      EXAM_COPILOT_LLM_MAX_RETRIES: '0',
    },
  });
  // Zero retries (from the environment, as a user sets it) so an outage fails fast.
  assert.ok(config.llm);
  assert.equal(config.llm.maxRetries, 0);
  return { ...config, llm: { ...config.llm, timeoutMs: 10_000 } };
}

before(async () => {
  server = await startFakeOpenAiServer({ handler });
});
after(async () => {
  await server.close();
  tmp.cleanup();
});

function reset(): void {
  inFlight = 0;
  maxInFlight = 0;
  answerCalls = 0;
  failAfter = Infinity;
  failedCalls = 0;
}

void describe('eval with an LLM (scripted OpenAI-compatible server)', () => {
  void it('runs baseline and retrieval modes with the LLM; concurrency bounds the requests in flight', async () => {
    reset();
    const report = await runEval({
      root,
      config: llmConfig(),
      file: dataset,
      modes: ['baseline', 'keyword'],
      limit: 8,
      concurrency: 4,
      noCache: true,
      runDir: path.join(root, 'runs-c4'),
    });
    assert.deepEqual(
      report.modes.map((m) => [m.mode, m.answerer, m.total]),
      [
        ['baseline', 'llm', 8],
        ['keyword', 'llm', 8],
      ],
    );
    assert.ok(maxInFlight > 1 && maxInFlight <= 4, `max in flight ${maxInFlight}`);
    const golds = readFileSync(dataset, 'utf8')
      .split('\n')
      .slice(1, 9)
      .map((l) => l.split(',')[6]);
    const expectCorrect = golds.filter((g) => g === ALWAYS).length;
    for (const m of report.modes) {
      assert.equal(m.correct, expectCorrect, `${m.mode}: the model always says ${ALWAYS}`);
      assert.equal(m.fallbacks.length, 0);
      assert.ok(m.tokens && m.tokens.prompt >= 8 * 100, `${m.mode} tokens ${JSON.stringify(m.tokens)}`);
      // The LLM's stated confidence (0.8 every time) is recorded and its calibration reported.
      assert.equal(m.stated_calibration?.count, 8);
      const brier = (expectCorrect * 0.2 ** 2 + (8 - expectCorrect) * 0.8 ** 2) / 8;
      assert.ok(Math.abs((m.stated_calibration?.brier ?? -1) - brier) < 1e-9, `${m.mode} stated Brier ${m.stated_calibration?.brier}`);
      assert.ok((report.records[m.mode] ?? []).every((r) => r.stated_confidence === 0.8));
    }
    assert.equal(report.config.llm_model, 'fake-model');

    reset();
    await runEval({
      root,
      config: llmConfig(),
      file: dataset,
      modes: ['baseline'],
      limit: 4,
      concurrency: 1,
      noCache: true,
      runDir: path.join(root, 'runs-c1'),
    });
    assert.equal(maxInFlight, 1);
  });

  void it('survives an LLM outage mid-run: a circuit breaker stops calling it, says so once, and --resume asks those rows again', async () => {
    reset();
    failAfter = 5;
    const runDir = path.join(root, 'runs-outage');
    // One question at a time, so the order of failures (and so the breaker) is deterministic.
    const options = {
      root,
      config: llmConfig(),
      file: dataset,
      modes: ['keyword', 'baseline'] as AnswerMode[],
      limit: 10,
      concurrency: 1,
      noCache: true,
      runDir,
    };
    const report = await runEval(options);
    const keyword = report.records.keyword ?? [];
    const baseline = report.records.baseline ?? [];
    assert.equal(keyword.length, 10);
    assert.equal(baseline.length, 10);
    const kwFailed = keyword.filter((r) => r.fallback === 'llm_failed');
    assert.equal(kwFailed.length, 5, 'answers after the fifth fail');
    // Three real failures open the breaker; the rest are answered offline without calling the LLM.
    assert.deepEqual(
      kwFailed.map((r) =>
        /LLM failed: .*500/.test(r.message ?? '')
          ? 'failed'
          : /not called: it failed 3 times in a row/.test(r.message ?? '')
            ? 'skipped'
            : r.message,
      ),
      ['failed', 'failed', 'failed', 'skipped', 'skipped'],
    );
    assert.ok(
      kwFailed.every((r) => !r.correct && r.predicted !== ''),
      'retrieval modes fall back to the offline answer (a letter)',
    );
    assert.ok(baseline.every((r) => r.fallback === 'llm_failed' && r.predicted === '' && !r.correct && /not called/.test(r.message ?? '')));
    assert.equal(failedCalls, 3, 'no call after the breaker opened');
    const notes = report.warnings.filter((w) => w.where === 'llm');
    assert.equal(notes.length, 1, 'said once');
    assert.match(notes[0]?.message ?? '', /not called for 12 more call\(s\).*rerun with --resume/);
    const b = report.modes.find((m) => m.mode === 'baseline');
    assert.deepEqual([b?.correct, b?.incorrect, b?.abstained, b?.fallbacks.length], [0, 0, 10, 10]);

    // The endpoint is back: --resume keeps the 5 good keyword rows and asks the 15 failed ones again.
    reset();
    const resumed = await runEval({ ...options, resume: true });
    assert.equal(answerCalls, 15);
    assert.ok([...(resumed.records.keyword ?? []), ...(resumed.records.baseline ?? [])].every((r) => r.fallback === null));
  });
});

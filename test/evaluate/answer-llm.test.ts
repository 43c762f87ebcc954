import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import { runAnswerFile, type AnsweredRow } from '../../src/evaluate/run-answer-file.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import {
  chatMessages,
  chatReply,
  errorReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type RecordedRequest,
  type ScriptedResponse,
} from '../helpers/fake-openai-server.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const tmp = makeTempRoot({ sample: true });
const root = tmp.root;
let server: FakeOpenAiServer;
/** Answer calls the scripted model takes before it starts failing (Infinity: never). */
let failAfter = Infinity;
let answerCalls = 0;
/** How long the scripted model takes over its n-th answer (1-based), in ms. */
let answerDelay: (n: number) => number = () => 0;

async function handler(request: RecordedRequest): Promise<ScriptedResponse> {
  await Promise.resolve();
  if (answerCalls >= failAfter) return errorReply(500, 'upstream is down');
  if (chatMessages(request).some((m) => m.content.includes('You rank textbook passages'))) return chatReply('[1] > [2] > [3]');
  answerCalls++;
  const delay = answerDelay(answerCalls);
  if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  return chatReply(JSON.stringify({ answer: 'A', confidence: 0.8, evidence_ids: [1], status: 'answered', explanation: '' }));
}

const llmEnv = (): Record<string, string> => ({
  EXAM_COPILOT_LLM_BASE_URL: server.baseURL,
  EXAM_COPILOT_LLM_MODEL: 'fake-model',
  EXAM_COPILOT_LLM_API_KEY: 'sk-test',
  EXAM_COPILOT_LLM_MAX_RETRIES: '0',
});

function llmConfig(): ExamCopilotConfig {
  return loadConfig({ root, env: llmEnv() }).config;
}

/** The CLI as a child process (asynchronously: the scripted server answers from this process). */
function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, '--root', root, ...args], {
      env: { ...process.env, NO_COLOR: '1', OPENAI_MODEL: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: '', ...llmEnv() },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The first `n` questions of the sample, without their answers. */
function questionFile(name: string, n: number): string {
  const lines = readFileSync(path.join(root, 'rawdoc', 'validation.csv'), 'utf8')
    .trim()
    .split('\n');
  const file = path.join(root, name);
  writeFileSync(file, ['id,question,A,B,C,D', ...lines.slice(1, n + 1).map((l) => l.split(',').slice(0, 6).join(','))].join('\n') + '\n');
  return file;
}

const readJsonl = (file: string): AnsweredRow[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AnsweredRow);

before(async () => {
  await runIngest({ root, config: loadConfig({ root, env: {} }).config });
  server = await startFakeOpenAiServer({ handler });
});
after(async () => {
  await server.close();
  tmp.cleanup();
});

void describe('answer with an LLM (scripted OpenAI-compatible server)', () => {
  void it('stops at the first failure: no row starts after it, the rows in flight are recorded before the run file closes', async () => {
    failAfter = Infinity;
    answerCalls = 0;
    // Two rows in flight: the first answer comes at once, the next two take a while, so when the second row's answer
    // lands (and the run fails on it), the third row's answer is still being paid for.
    answerDelay = (n) => (n === 1 ? 0 : 400);
    const file = questionFile('first-failure.csv', 8);
    const output = path.join(root, 'first-failure.out.jsonl');
    let requestsAtFailure = -1;
    try {
      await assert.rejects(
        runAnswerFile({
          root,
          config: llmConfig(),
          file,
          output,
          mode: 'keyword',
          topK: 8,
          concurrency: 2,
          cache: false,
          onProgress: ({ done }) => {
            if (done !== 2) return;
            requestsAtFailure = server.requests.length;
            throw new Error('the disk is on fire');
          },
        }),
        /the disk is on fire/,
      );
      const callsWhenDone = answerCalls;
      // Whatever a teardown left running would reach the server within moments; give it that chance.
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(server.requests.length, requestsAtFailure, 'no LLM call started after the run failed');
      assert.equal(answerCalls, callsWhenDone);
      const runFile = path.join(root, '.exam-copilot', 'runs', 'first-failure.csv.answer.jsonl');
      const recorded = readJsonl(runFile);
      assert.equal(recorded.length, answerCalls, 'every answer paid for is in the run file, whole');
      assert.equal(new Set(recorded.map((r) => r.line)).size, recorded.length);
      assert.ok(recorded.length < 8);
      assert.equal(existsSync(output), false, 'a failed run writes no sheet');

      answerDelay = () => 0;
      const resumed = await runAnswerFile({
        root,
        config: llmConfig(),
        file,
        output,
        mode: 'keyword',
        topK: 8,
        cache: false,
        resume: true,
      });
      assert.deepEqual([resumed.resumed, resumed.answered], [recorded.length, 8 - recorded.length]);
      assert.ok(readJsonl(output).every((r) => r.predicted === 'A'));
    } finally {
      answerDelay = () => 0;
    }
  });

  void it('an LLM that fails on some rows: exit 0, a warning with the count; on every row: exit 5; --resume asks them again', async () => {
    const file = questionFile('outage.csv', 5);
    const output = path.join(root, 'outage.out.jsonl');

    answerCalls = 0;
    failAfter = 2;
    const partial = await cli(['answer', file, '-o', output, '--mode', 'keyword', '--no-cache']);
    assert.equal(partial.status, 0, partial.stderr);
    assert.match(
      partial.stderr,
      /3 of 5 questions fell back to the offline answer because the LLM failed \(llm_failed 3\); rerun with --resume/,
    );
    const rows = readJsonl(output);
    assert.deepEqual(
      rows.map((r) => r.fallback),
      ['', '', 'llm_failed', 'llm_failed', 'llm_failed'],
    );
    assert.ok(
      rows.every((r) => /^[A-D]$/.test(r.predicted)),
      'the offline answer (or its guess) is written',
    );

    answerCalls = 0;
    failAfter = 0;
    const down = await cli(['answer', file, '-o', output, '--mode', 'keyword', '--no-cache']);
    assert.equal(down.status, 5, down.stderr);
    assert.match(down.stderr, /the LLM failed on every question asked \(llm_failed 5\): the sheet holds the offline answers/);
    assert.ok(readJsonl(output).every((r) => r.fallback === 'llm_failed' && /^[A-D]$/.test(r.predicted)));

    answerCalls = 0;
    failAfter = Infinity;
    const back = await cli(['--json', 'answer', file, '-o', output, '--mode', 'keyword', '--resume', '--no-cache']);
    assert.equal(back.status, 0, back.stderr);
    const summary = JSON.parse(back.stdout) as { resumed: number; answered: number; llmFailed: number };
    assert.deepEqual([summary.resumed, summary.answered, summary.llmFailed], [0, 5, 0]);
    assert.equal(answerCalls, 5, 'every row that fell back is asked again');
    assert.ok(readJsonl(output).every((r) => r.fallback === '' && r.predicted === 'A'));

    // The help says what the runs above did.
    const help = await cli(['answer', '--help']);
    assert.match(
      help.stdout.replace(/\s+/g, ' '),
      /0 answered \(rows where the LLM failed get the offline answer, with a warning and their count/,
    );
    assert.match(help.stdout.replace(/\s+/g, ' '), /5 not ready \(.*the LLM failed on every question: the sheet is still written/);
    assert.doesNotMatch((await cli(['--help'])).stdout, /unreachable LLM/);
  });
});

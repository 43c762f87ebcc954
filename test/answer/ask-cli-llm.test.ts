import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chatMessages, chatReply, errorReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const KEY = 'sk-cli-test-secret-0123456789';
const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';

/** Runs the CLI without blocking this process, so the fake server in this process can answer it. */
function cli(
  root: string,
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--root', root, ...args], {
      env: { ...process.env, NO_COLOR: '1', OPENAI_BASE_URL: '', OPENAI_MODEL: '', OPENAI_API_KEY: '', ...env },
    });
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

interface AskJson {
  answer: string;
  answerer: string;
  fallback: string | null;
  mode: string;
  evidence: { chunk_id: string; book: string; page_start: string; quote: string }[];
}

describe('ask through the CLI with an OpenAI-compatible endpoint', () => {
  let tmp: TempRoot;
  let server: FakeOpenAiServer;
  let env: Record<string, string>;

  before(async () => {
    tmp = await sampleRoot();
    server = await startFakeOpenAiServer();
    env = {
      EXAM_COPILOT_LLM_BASE_URL: server.baseURL,
      EXAM_COPILOT_LLM_API_KEY: KEY,
      EXAM_COPILOT_LLM_MODEL: 'fake-model',
      EXAM_COPILOT_LLM_MAX_RETRIES: '1',
    };
  });
  after(async () => {
    await server.close();
    tmp.cleanup();
  });

  it('reranks, answers with cited evidence, and serves a repeat from the cache', async () => {
    server.setHandler((req) => {
      const text = chatMessages(req)
        .map((m) => m.content)
        .join('\n');
      if (/<passages-[0-9a-f]{12}>/.test(text)) return chatReply('[2] > [1]');
      return chatReply(JSON.stringify({ answer: 'A', confidence: 0.9, evidence_ids: [1], status: 'answered', explanation: '定义原文' }));
    });
    const first = await cli(tmp.root, ['--json', 'ask', QUESTION], env);
    assert.equal(first.status, 0, first.stderr);
    const answer = JSON.parse(first.stdout) as AskJson;
    assert.equal(answer.answer, 'A');
    assert.equal(answer.answerer, 'llm');
    assert.equal(answer.fallback, null);
    assert.equal(answer.mode, 'hybrid');
    assert.ok(answer.evidence.length >= 1, 'the cited passage is shown');
    assert.equal(answer.evidence[0]?.book, '上册');
    assert.match(answer.evidence[0]?.page_start ?? '', /^\d+$/);
    const calls = server.chatRequests().length;
    assert.ok(calls >= 2, `rerank and answer calls reached the server (${calls})`);
    assert.equal(server.chatRequests()[0]?.headers.authorization, `Bearer ${KEY}`);
    assert.ok(!first.stdout.includes(KEY) && !first.stderr.includes(KEY), 'the API key leaked');

    const again = await cli(tmp.root, ['--json', 'ask', QUESTION], env);
    assert.equal(again.status, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as AskJson).answer, 'A');
    assert.equal(server.chatRequests().length, calls, 'the repeat was served from the response cache');
  });

  it('falls back to the offline answer, clearly marked, when the endpoint keeps failing', async () => {
    server.setHandler(() => errorReply(500, 'upstream exploded'));
    const r = await cli(tmp.root, ['--json', 'ask', '--no-cache', QUESTION], env);
    assert.equal(r.status, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as AskJson;
    assert.equal(answer.fallback, 'llm_failed');
    assert.equal(answer.answerer, 'offline');
    assert.match(answer.answer, /^[ABCD]$/);
    assert.ok(answer.evidence.length >= 1);

    const human = await cli(tmp.root, ['ask', '--no-cache', QUESTION], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /^Answer: [ABCD] \S/m);
    assert.match(human.stdout, /llm_failed|LLM/);
    assert.ok(!human.stdout.includes(KEY) && !human.stderr.includes(KEY), 'the API key leaked');
  });

  it('JSONL in, JSONL out: one line per input line, in order, ids echoed, failures as {"id","error"}', async () => {
    const input = [
      JSON.stringify({ id: 'q1', question: QUESTION }),
      '{"id": "q2", "question": "基金财产由',
      JSON.stringify({ id: 'q3', options: { A: '甲' } }),
      JSON.stringify({
        id: 'q4',
        question: '基金财产由（　）负责保管。',
        options: { A: '基金托管人', B: '基金管理人', C: '基金销售机构', D: '基金份额登记机构' },
      }),
    ].join('\n');
    const r = await cli(tmp.root, ['--json', 'ask', '--answerer', 'offline'], env, input);
    assert.equal(r.status, 3, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: string; question?: string; answer?: string; error?: string });
    assert.deepEqual(
      lines.map((l) => l.id),
      ['q1', 'q2', 'q3', 'q4'],
    );
    assert.deepEqual(
      lines.map((l) => (l.error === undefined ? 'answer' : 'error')),
      ['answer', 'error', 'error', 'answer'],
    );
    assert.match(lines[1]?.error ?? '', /stdin:2: not valid JSON/);
    assert.match(lines[2]?.error ?? '', /stdin:3: .*"question" string/);
    assert.equal(lines[0]?.question, QUESTION);
    assert.equal(lines[3]?.answer, 'A');
  });

  it('piped multi-line questions are grouped like the REPL; --one reads all of stdin as one question', async () => {
    const block = [
      '根据证券投资基金的定义，基金财产由（　）负责保管。',
      'A.基金托管人',
      'B.基金管理人',
      'C.基金销售机构',
      'D.基金份额登记机构',
    ].join('\n');
    const r = await cli(tmp.root, ['--json', 'ask', '--answerer', 'offline'], env, `${block}\n${QUESTION}\n`);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { n?: number; question?: string; kind?: string; answer?: string });
    assert.deepEqual(
      lines.map((l) => [l.n, l.kind, l.answer]),
      [
        [1, 'single', 'A'],
        [2, 'single', 'A'],
      ],
    );
    assert.equal(lines[0]?.question, block);
    const one = await cli(tmp.root, ['--json', 'ask', '--answerer', 'offline', '--one'], env, '基金财产\n由谁负责保管？\n\n请说明。\n');
    assert.equal(one.status, 0, one.stderr);
    const single = one.stdout.trim().split('\n');
    assert.equal(single.length, 1);
    assert.equal((JSON.parse(single[0] ?? '{}') as { question?: string }).question, '基金财产\n由谁负责保管？\n\n请说明。');
  });

  it('credentials in the base URL and an echoed key appear nowhere: ask output, errors, doctor', async () => {
    server.setHandler(() => errorReply(500, `bad key ${KEY} for http://admin:pw-url-secret@host/v1`));
    const withCreds = { ...env, EXAM_COPILOT_LLM_BASE_URL: server.baseURL.replace('http://', 'http://admin:pw-url-secret@') };
    const human = await cli(tmp.root, ['ask', '--no-cache', QUESTION], withCreds);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /http:\/\/\*\*\*@127\.0\.0\.1/);
    const doctor = await cli(tmp.root, ['doctor'], withCreds);
    for (const out of [human.stdout, human.stderr, doctor.stdout, doctor.stderr]) {
      assert.ok(!out.includes('pw-url-secret') && !out.includes(KEY), `a secret leaked: ${out}`);
    }
    assert.match(doctor.stdout + doctor.stderr, /fake-model @ http:\/\/\*\*\*@127\.0\.0\.1/);
  });
});

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/serve/run-serve.js';
import { chatMessages, chatReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { canListOpenFiles, openFilesNamed } from '../helpers/open-files.js';
import { buildFixtureIndex, swapInRebuiltIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const QUESTION = '基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('serve across an ingest that swaps the index', { skip: !canListOpenFiles && 'no /proc/self/fd' }, () => {
  let fx: FixtureIndex;
  let llm: FakeOpenAiServer;
  let server: RunningServer;
  let base: string;
  // The LLM's answer to a question waits for this gate (a slow model), so the request spans the swap.
  let openGate: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const handles = (): string[] => openFilesNamed('sqlite_fts.db', path.basename(fx.root));

  before(async () => {
    fx = await buildFixtureIndex();
    llm = await startFakeOpenAiServer();
    llm.setHandler(async (req) => {
      const text = chatMessages(req)
        .map((m) => m.content)
        .join('\n');
      // The rerank call answers at once; the answer itself waits for the gate.
      if (/Rank the \d+ passages/.test(text)) return chatReply('[1]');
      await gate;
      return chatReply(JSON.stringify({ answer: 'A', confidence: 0.8, evidence_ids: [1], status: 'answered', explanation: '托管人保管' }));
    });
    server = await startServer({ root: fx.root, config: configWithLlm(fx, llm.baseURL), host: '127.0.0.1', port: 0, topK: 5 });
    base = server.url.replace(/\/$/, '');
  });
  after(async () => {
    openGate();
    await server.close();
    await llm.close();
    fx.cleanup();
  });

  it('finishes a slow LLM request that started before the swap, then closes the old index', async () => {
    gate = new Promise((resolve) => (openGate = resolve));
    const asked = llm.chatRequests().length;
    const slow = post(`${base}/api/ask`, { question: QUESTION, answerer: 'llm' });
    // Bounded wait until the model holds the question (the request is now in flight on the first index).
    for (let i = 0; i < 200 && llm.chatRequests().length === asked; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(llm.chatRequests().length > asked, 'the LLM was asked');
    await swapInRebuiltIndex(fx);
    const search = await fetch(`${base}/api/search?q=${encodeURIComponent('基金托管人')}&k=3`);
    assert.equal(search.status, 200, 'a request after the swap opens the new index');
    openGate();
    const { status, json } = await slow;
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.answer, 'A');
    assert.equal(json.answerer, 'llm');
    const open = handles();
    assert.equal(open.length, 1, `only the new index stays open once the slow request is done: ${open.join(', ')}`);
    assert.ok(!open[0]?.endsWith('(deleted)'), open[0]);
  });

  it('opens a swapped-in index once for concurrent requests, all answered', async () => {
    await swapInRebuiltIndex(fx);
    const requests = [
      ...Array.from({ length: 3 }, () => fetch(`${base}/api/search?q=${encodeURIComponent('托管人')}&mode=keyword`).then((r) => r.status)),
      ...(['keyword', 'hybrid', 'vector'] as const).map((mode) =>
        post(`${base}/api/ask`, { question: QUESTION, mode }).then((r) => r.status),
      ),
      fetch(`${base}/ask?q=${encodeURIComponent(QUESTION)}`).then((r) => r.status),
    ];
    assert.deepEqual(
      await Promise.all(requests),
      requests.map(() => 200),
    );
    const open = handles();
    assert.equal(open.length, 1, `one handle: search, every answer session share the new index: ${open.join(', ')}`);
    assert.ok(!open[0]?.endsWith('(deleted)'), open[0]);
  });

  it('on shutdown stops accepting, lets a running request finish, then closes the index', async () => {
    gate = new Promise((resolve) => (openGate = resolve));
    const asked = llm.chatRequests().length;
    const slow = post(`${base}/api/ask`, { question: `${QUESTION}（停止）`, answerer: 'llm' });
    for (let i = 0; i < 200 && llm.chatRequests().length === asked; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(llm.chatRequests().length > asked, 'the LLM was asked');
    const closing = server.close();
    // No new connection is accepted while the running request finishes.
    await assert.rejects(fetch(`${base}/api/toc`));
    openGate();
    const { status, json } = await slow;
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.answerer, 'llm');
    await closing;
    assert.deepEqual(handles(), []);
    server = await startServer({ root: fx.root, config: configWithLlm(fx, llm.baseURL), host: '127.0.0.1', port: 0, topK: 5 });
  });
});

/** The fixture's configuration with the scripted LLM as the endpoint. */
function configWithLlm(fx: FixtureIndex, baseURL: string): ExamCopilotConfig {
  const { config } = loadConfig({
    root: fx.root,
    env: { EXAM_COPILOT_LLM_BASE_URL: baseURL, EXAM_COPILOT_LLM_API_KEY: 'sk-test', EXAM_COPILOT_LLM_MODEL: 'fake-model' },
  });
  config.vector.backend = fx.config.vector.backend;
  return config;
}

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { answerQuestion } from '../../src/answer/answer-question.js';
import type { AnswerDeps } from '../../src/answer/answer-question.js';
import { clearLlmCache, llmCacheStats } from '../../src/answer/llm-cache.js';
import { createLlmClient } from '../../src/answer/llm-client.js';
import type { CreateLlmClientOptions, LlmClient } from '../../src/answer/llm-client.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { loadPrompts } from '../../src/answer/prompt-templates.js';
import { projectPaths } from '../../src/paths.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { chatCompletion, chatReply, errorReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { fixtureChunk, memoryRetriever } from './memory-retriever.js';

// Short deadlines keep these fast; the benchmark (scripts/bench/reliability/llm.mjs) runs the long stalls.
const KEY = 'sk-robust-secret-987654';
const analyzer = createAnalyzer();
const retriever = memoryRetriever(
  [
    fixtureChunk('c1', '基金财产由基金托管人负责保管，由基金管理人负责投资运作。'),
    fixtureChunk('c2', '基金托管人通常由商业银行担任。', { section: '第三节 基金托管人', page_start: '4', page_end: '4' }),
  ],
  analyzer,
);
const prompts = loadPrompts(projectPaths('.').prompts);
const QUESTION = '基金财产由（ ）负责保管。A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所';
const GOOD = JSON.stringify({ answer: 'B', confidence: 0.9, evidence_ids: [1], status: 'answered', explanation: '托管人保管' });

let server: FakeOpenAiServer;
let tmp: string;
before(async () => {
  server = await startFakeOpenAiServer();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-llm-robust-'));
});
after(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

function client(endpoint: Partial<CreateLlmClientOptions['endpoint']> = {}, extra: Partial<CreateLlmClientOptions> = {}): LlmClient {
  return createLlmClient({
    endpoint: {
      baseURL: server.baseURL,
      apiKey: KEY,
      model: 'fake-model',
      timeoutMs: 2000,
      deadlineMs: 4000,
      maxRetries: 3,
      concurrency: 2,
      ...endpoint,
    },
    cachePath: null,
    sleep: () => Promise.resolve(),
    ...extra,
  });
}
function deps(llm: LlmClient): AnswerDeps {
  return { retriever, llm, answerer: 'llm', mode: 'hybrid', topK: 2, rerank: false, prompts, analyzer };
}
function reset(): void {
  server.requests.length = 0;
  server.setHandler(undefined);
}

void test(
  'a server that accepts and never answers: a timeout is retried once, then the offline answer, marked, says "no reply within"',
  { timeout: 20_000 },
  async () => {
    reset();
    server.setHandler(() => ({ delayMs: 60_000, json: {} }));
    const r = await answerQuestion(parseQuestion(QUESTION), deps(client({ timeoutMs: 300, deadlineMs: 700 })));
    assert.equal(r.fallback, 'llm_failed');
    assert.equal(r.answerer, 'offline');
    assert.ok(r.evidence.length > 0, 'the offline answer keeps its evidence');
    assert.match(r.message ?? '', /no reply from http:\/\/127\.0\.0\.1:\d+\/v1 within 0\.3 s/);
    assert.match(r.message ?? '', /timed out after/);
    assert.equal(server.chatRequests().length, 2, 'one attempt and one retry of the timeout, despite maxRetries 3');
  },
);

void test(
  'headers then a stalled body: the deadline covers the body too, and the message says the body stalled',
  { timeout: 20_000 },
  async () => {
    reset();
    server.setHandler(() => ({ json: chatCompletion(GOOD), stallAfterBytes: 20 }));
    const r = await answerQuestion(parseQuestion(QUESTION), deps(client({ timeoutMs: 400, deadlineMs: 500 })));
    assert.equal(r.fallback, 'llm_failed');
    assert.match(r.message ?? '', /sent headers but no complete reply within 0\.\d s \(the reply body stalled after 20 bytes\)/);
    assert.match(r.message ?? '', /timed out after 0\.5 s, the per-question deadline \(llm\.deadlineMs\)/);
  },
);

void test('a closed port says "cannot connect to URL", not a timeout', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const llm = client({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1 });
  const r = await answerQuestion(parseQuestion(QUESTION), deps(llm));
  assert.equal(r.fallback, 'llm_failed');
  assert.match(r.message ?? '', new RegExp(`cannot connect to http://127\\.0\\.0\\.1:${port}/v1 \\(ECONNREFUSED\\)`));
  assert.doesNotMatch(r.message ?? '', /no reply/);
});

void test('an oversize reply is not read past the cap, and junk is never cached', async () => {
  reset();
  const cache = path.join(tmp, 'junk.db');
  const huge = 'x'.repeat(300 * 1024);
  server.setHandler(() => ({ body: huge }));
  const llm = client({}, { cachePath: cache, maxReplyBytes: 64 * 1024 });
  const r = await answerQuestion(parseQuestion(QUESTION), deps(llm));
  assert.equal(r.fallback, 'llm_failed');
  assert.match(r.message ?? '', /larger than 64 kB/);
  // Unusable replies that parse as HTTP but not as an answer are not cached either.
  reset();
  server.setHandler(() => chatReply('HACKED'));
  const r2 = await answerQuestion(parseQuestion(QUESTION), deps(llm));
  assert.equal(r2.fallback, 'llm_failed');
  llm.close();
  assert.deepEqual(llmCacheStats(cache), { entries: 0, bytes: 0 });
});

void test('the cache keeps only validated replies, is bounded (oldest out first), redacts echoed keys and can be cleared', async () => {
  reset();
  const cache = path.join(tmp, 'bounded.db');
  // The "model" echoes the API key it was sent in its explanation.
  server.setHandler((req) =>
    chatReply(
      JSON.stringify({
        answer: 'B',
        confidence: 0.9,
        evidence_ids: [1],
        status: 'answered',
        explanation: `key ${String(req.headers.authorization)}`,
      }),
    ),
  );
  const llm = client({ cacheMaxEntries: 2 }, { cachePath: cache });
  const stems = ['基金财产由（ ）负责保管。', '基金财产的保管人是（ ）。', '负责保管基金财产的是（ ）。'];
  for (const stem of stems) await answerQuestion(parseQuestion(`${stem}A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所`), deps(llm));
  const r = await answerQuestion(parseQuestion(`${stems[2]}A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所`), deps(llm));
  assert.doesNotMatch(JSON.stringify(r), new RegExp(KEY));
  assert.equal(server.chatRequests().length, 3, 'the newest entry is served from the cache');
  assert.equal(llmCacheStats(cache).entries, 2);
  await answerQuestion(parseQuestion(`${stems[0]}A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所`), deps(llm));
  assert.equal(server.chatRequests().length, 4, 'the oldest entry was evicted');
  llm.close();
  assert.doesNotMatch(readFileSync(cache).toString('latin1'), new RegExp(KEY), 'the echoed key is not stored');
  assert.equal(clearLlmCache(cache).entries, 2);
  assert.deepEqual(llmCacheStats(cache), { entries: 0, bytes: 0 });
});

void test('credentials in the base URL never reach messages, results or the cache', async () => {
  reset();
  server.setHandler(() => errorReply(500, 'upstream failed for http://admin:pw-url-secret@127.0.0.1/v1'));
  const url = server.baseURL.replace('http://', 'http://admin:pw-url-secret@');
  const llm = client({ baseURL: url, maxRetries: 0 });
  assert.equal(llm.baseURL, server.baseURL.replace('http://', 'http://***@'));
  const r = await answerQuestion(parseQuestion(QUESTION), deps(llm));
  assert.equal(r.fallback, 'llm_failed');
  assert.equal(server.chatRequests().length, 1, 'the request was made without the credentials in its URL');
  assert.doesNotMatch(JSON.stringify(r), /pw-url-secret/);
  assert.match(r.message ?? '', /http:\/\/\*\*\*@127\.0\.0\.1/);
});

void test('circuit breaker: after 3 consecutive failures the LLM is not called again, and says why', async () => {
  reset();
  server.setHandler(() => errorReply(503, 'down'));
  const llm = client({ maxRetries: 0 });
  const results = [];
  for (let i = 0; i < 5; i++) results.push(await answerQuestion(parseQuestion(QUESTION), deps(llm)));
  assert.equal(server.chatRequests().length, 3);
  assert.ok(results.every((r) => r.fallback === 'llm_failed' && r.answer === 'B'));
  assert.match(results[2]?.message ?? '', /LLM failed: .*server error 503/);
  assert.match(results[3]?.message ?? '', /not called: it failed 3 times in a row \(last: .*503/);
  assert.deepEqual({ open: llm.circuit().open, skipped: llm.circuit().skipped }, { open: true, skipped: 2 });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAgentAsk } from '../../src/agent/run-agent-ask.js';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import { Database } from '../../src/sqlite-database.js';
import {
  chatMessages,
  chatReply,
  errorReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type RecordedRequest,
  toolCalls,
  type ScriptedResponse,
} from '../helpers/fake-openai-server.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

/**
 * The agent goes through the one LLM transport: what the one-shot path guarantees (redaction, the bounded cache that
 * `cache` counts and clears, the byte cap, Retry-After, credentials in the base URL, the evidence fence) holds for it.
 */

const KEY = 'sk-agent-echo-secret-0123456789';
const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';
const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');

const isAgent = (req: RecordedRequest): boolean => (req.body as { tools?: unknown } | undefined)?.tools !== undefined;
const toolResults = (req: RecordedRequest): string[] =>
  chatMessages(req)
    .filter((m) => m.role === 'tool' || m.content.startsWith('Tool result'))
    .map((m) => m.content);
const firstId = (req: RecordedRequest): string => /"chunk_id":"([0-9a-f]{16})"/.exec(toolResults(req).join('\n'))?.[1] ?? '';
const final = (id: string, explanation = '定义原文'): string =>
  JSON.stringify({ answer: 'A', confidence: 0.85, evidence_ids: [id], status: 'answered', explanation });

/** search → answer, natively. */
function nativeScript(req: RecordedRequest): ScriptedResponse {
  if (toolResults(req).length === 0) return toolCalls({ name: 'search', args: { query: '基金财产 保管 基金托管人', k: 3 } });
  return chatReply(final(firstId(req)));
}

/** The one-shot pipeline's rerank and answer (the agent's fallback). */
function oneShot(req: RecordedRequest): ScriptedResponse {
  const text = chatMessages(req)
    .map((m) => m.content)
    .join('\n');
  if (/<passages-[0-9a-f]{12}>/.test(text)) return chatReply('[1]');
  return chatReply(JSON.stringify({ answer: 'A', confidence: 0.7, evidence_ids: [1], status: 'answered', explanation: 'one-shot' }));
}

function cli(
  root: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--root', root, ...args], {
      env: { ...process.env, NO_COLOR: '1', OPENAI_BASE_URL: '', OPENAI_MODEL: '', OPENAI_API_KEY: '', ...env },
    });
    child.stdin.end('');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Rows in every table of an SQLite file. */
function rowsPerTable(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    return Object.fromEntries(
      tables.map((t) => [t.name, db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM "${t.name}"`).get()?.n ?? 0]),
    );
  } finally {
    db.close();
  }
}

describe('the agent on the one LLM transport', () => {
  let tmp: TempRoot;
  let server: FakeOpenAiServer;
  let config: ExamCopilotConfig;
  let env: Record<string, string>;

  const configFor = (patch: Record<string, string>): ExamCopilotConfig => loadConfig({ root: tmp.root, env: { ...env, ...patch } }).config;

  before(async () => {
    tmp = await sampleRoot();
    server = await startFakeOpenAiServer();
    env = {
      EXAM_COPILOT_LLM_BASE_URL: server.baseURL,
      EXAM_COPILOT_LLM_API_KEY: KEY,
      EXAM_COPILOT_LLM_MODEL: 'fake-model',
      EXAM_COPILOT_LLM_MAX_RETRIES: '0',
    };
    config = configFor({});
  });
  after(async () => {
    await server.close();
    tmp.cleanup();
  });

  it('an endpoint that echoes the key in replies, reasoning and tool-call arguments: not printed by ask --agent --json, not stored', async () => {
    server.setHandler((req) => {
      if (!isAgent(req)) return oneShot(req);
      const echo = String(req.headers.authorization);
      if (toolResults(req).length === 0) return toolCalls({ name: 'search', args: { query: `基金财产 保管 ${echo}` } });
      const reply = chatReply(final(firstId(req), `依据定义 ${echo}`));
      const message = (reply.json as { choices: { message: Record<string, unknown> }[] }).choices[0]!.message;
      message.reasoning_content = `the key is ${echo}`;
      return reply;
    });
    const r = await cli(tmp.root, ['--json', 'ask', '--agent', QUESTION], env);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { answer: string; fallback: string | null; trace: unknown[] };
    assert.equal(out.answer, 'A');
    assert.equal(out.fallback, null, 'the agent answered');
    assert.ok(out.trace.length > 0);
    assert.ok(!(r.stdout + r.stderr).includes(KEY), 'the key is not printed');
    assert.match(r.stdout, /\*\*\*/, 'the echo is shown masked');
    const cacheDir = path.join(tmp.root, '.exam-copilot', 'cache');
    const files = filesUnder(cacheDir);
    assert.ok(files.length > 0, 'the agent cached its turns');
    const holding = files.filter((f) => readFileSync(f).toString('latin1').includes(KEY));
    assert.deepEqual(holding, [], 'no file under .exam-copilot/cache holds the key');
  });

  it('`cache` counts the agent turns and `cache --clear` empties every table of llm.db', async () => {
    server.setHandler((req) => (isAgent(req) ? nativeScript(req) : oneShot(req)));
    const r = await cli(tmp.root, ['--json', 'ask', '--agent', `${QUESTION}（缓存）`], env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { fallback: string | null }).fallback, null);
    const stats = await cli(tmp.root, ['--json', 'cache'], {});
    const counted = JSON.parse(stats.stdout) as { entries: number; bytes: number };
    assert.ok(counted.entries >= 2, `the two agent turns are counted (got ${counted.entries})`);
    assert.ok(counted.bytes > 0);
    const clear = await cli(tmp.root, ['--json', 'cache', '--clear'], {});
    assert.equal(clear.status, 0, clear.stderr);
    assert.equal((JSON.parse(clear.stdout) as { entries: number }).entries, counted.entries);
    const file = path.join(tmp.root, '.exam-copilot', 'cache', 'llm.db');
    const left = Object.entries(rowsPerTable(file)).filter(([table, n]) => n > 0 && table !== 'cache_totals');
    assert.deepEqual(left, [], 'no table keeps rows after --clear');
    const requests = server.chatRequests().length;
    const again = await cli(tmp.root, ['--json', 'ask', '--agent', `${QUESTION}（缓存）`], env);
    assert.equal(again.status, 0, again.stderr);
    assert.ok(server.chatRequests().length > requests, 'after --clear the agent asks the endpoint again');
  });

  it('a base URL with credentials works: they reach the server as Basic auth', async () => {
    server.setHandler((req) => (isAgent(req) ? nativeScript(req) : oneShot(req)));
    const withCredentials = configFor({
      EXAM_COPILOT_LLM_BASE_URL: server.baseURL.replace('http://', 'http://agent:pw-url-secret-42@'),
      EXAM_COPILOT_LLM_API_KEY: '',
    });
    const before = server.chatRequests().length;
    const out = await runAgentAsk({ root: tmp.root, config: withCredentials, topK: 8, cache: false, tools: 'native', question: QUESTION });
    assert.equal(out.result.fallback, null, out.result.message ?? '');
    const agentRequests = server.chatRequests().slice(before).filter(isAgent);
    assert.ok(agentRequests.length >= 2);
    const basic = `Basic ${Buffer.from('agent:pw-url-secret-42').toString('base64')}`;
    assert.ok(
      agentRequests.every((q) => q.headers.authorization === basic),
      'every agent request carried the credentials as Basic auth',
    );
  });

  it('an oversize agent reply is not read past the 1 MiB cap: the one-shot fallback answers, saying why', async () => {
    const size = 50 * 1024 * 1024;
    server.setHandler((req) => (isAgent(req) ? { streamBytes: size } : oneShot(req)));
    const before = server.chatRequests().length;
    const out = await runAgentAsk({ root: tmp.root, config, topK: 8, cache: false, tools: 'native', question: QUESTION });
    assert.equal(out.result.fallback, 'agent_failed');
    assert.match(out.result.message ?? '', /agent failed \(.*the reply is larger than 1024 kB; not read further\)/);
    assert.equal(out.result.answer, 'A', 'the one-shot pipeline answered');
    const streamed = server
      .chatRequests()
      .slice(before)
      .filter((q) => q.bytesSent !== undefined);
    assert.equal(streamed.length, 1, 'a malformed reply is not retried');
    // The client hung up after the cap: the rest of the 50 MB was never sent (only what socket buffers took).
    assert.ok((streamed[0]?.bytesSent ?? size) < size / 4, `the server sent ${streamed[0]?.bytesSent} of ${size} bytes`);
  });

  it('a 429 with Retry-After is retried, no earlier than Retry-After says', async () => {
    let answered429At = 0;
    let limited = false;
    server.setHandler((req) => {
      if (!isAgent(req)) return oneShot(req);
      if (!limited) {
        limited = true;
        answered429At = Date.now();
        return errorReply(429, 'slow down', { 'retry-after': '1' });
      }
      return nativeScript(req);
    });
    const before = server.chatRequests().length;
    const out = await runAgentAsk({
      root: tmp.root,
      config: configFor({ EXAM_COPILOT_LLM_MAX_RETRIES: '2' }),
      topK: 8,
      cache: false,
      tools: 'native',
      question: QUESTION,
    });
    assert.equal(out.result.fallback, null, out.result.message ?? '');
    const agentRequests = server.chatRequests().slice(before).filter(isAgent);
    assert.ok(agentRequests.length >= 3, 'the limited request, its retry, then the rest of the run');
    assert.ok(
      agentRequests[1]!.receivedAt - answered429At >= 1000,
      `the retry came ${agentRequests[1]!.receivedAt - answered429At} ms after the 429 (Retry-After: 1)`,
    );
  });

  it('the simulated protocol fences tool results (book text) with the hash-derived evidence fence', async () => {
    server.setHandler((req) => {
      if (isAgent(req)) return errorReply(500, 'native turn in a simulated run');
      const results = toolResults(req);
      if (
        results.length === 0 &&
        !/<passages-|<evidence-/.test(
          chatMessages(req)
            .map((m) => m.content)
            .join('\n'),
        )
      )
        return chatReply('{"tool": "search", "arguments": {"query": "基金托管人 保管 基金财产"}}');
      if (results.length === 0) return oneShot(req);
      return chatReply(final(firstId(req)));
    });
    const before = server.chatRequests().length;
    const out = await runAgentAsk({ root: tmp.root, config, topK: 8, cache: false, tools: 'simulated', question: QUESTION });
    assert.equal(out.result.fallback, null, out.result.message ?? '');
    const last = server.chatRequests().slice(before).at(-1)!;
    const result = toolResults(last)[0] ?? '';
    const fence = /^Tool result \(search\):\n<(tool-result-[0-9a-f]{12})>\n([\s\S]*)\n<\/\1>$/.exec(result);
    assert.ok(fence, `the tool result is fenced: ${result.slice(0, 120)}`);
    assert.match(fence[2] ?? '', /"chunk_id"/);
  });
});

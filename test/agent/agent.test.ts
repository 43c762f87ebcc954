import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openAgentSession, runAgentAsk, type AgentSessionOptions } from '../../src/agent/run-agent-ask.js';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import { runEval } from '../../src/evaluate/run-eval.js';
import {
  chatMessages,
  chatReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type RecordedRequest,
  toolCalls,
  type ScriptedResponse,
} from '../helpers/fake-openai-server.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { sampleRoot } from '../helpers/sample-root.js';

const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';

/** The wire messages of a request, with tool results (role `tool`) kept. */
function wire(req: RecordedRequest): Array<{ role: string; content: string }> {
  return chatMessages(req);
}

/** The chunk ids in the tool results (native `tool` messages or simulated `Tool result` user messages) seen so far. */
function returnedIds(req: RecordedRequest): string[] {
  const ids: string[] = [];
  for (const m of wire(req)) {
    if (m.role === 'tool' || m.content.startsWith('Tool result'))
      for (const x of m.content.matchAll(/"chunk_id":"([0-9a-f]{16})"/g)) ids.push(x[1] ?? '');
  }
  return ids;
}

function body(req: RecordedRequest): { tools?: unknown; tool_choice?: unknown } {
  const value: unknown = req.body;
  return typeof value === 'object' && value !== null ? value : {};
}

const FINAL = (id: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ answer: 'A', confidence: 0.85, evidence_ids: [id], status: 'answered', explanation: '定义原文', ...extra });

/** Answers the one-shot pipeline's rerank and answer prompts (the fallback path). */
function oneShot(req: RecordedRequest): ScriptedResponse | undefined {
  const text = wire(req)
    .map((m) => m.content)
    .join('\n');
  if (/<passages-[0-9a-f]{12}>/.test(text)) return chatReply('[1]');
  if (/<evidence-[0-9a-f]{12}>/.test(text))
    return chatReply(JSON.stringify({ answer: 'A', confidence: 0.7, evidence_ids: [1], status: 'answered', explanation: 'one-shot' }));
  return undefined;
}

describe('ask --agent against a scripted OpenAI-compatible server', () => {
  let tmp: TempRoot;
  let server: FakeOpenAiServer;
  let config: ExamCopilotConfig;

  const options = (patch: Partial<AgentSessionOptions & { question: string }> = {}): AgentSessionOptions & { question: string } => ({
    root: tmp.root,
    config,
    topK: 8,
    cache: false,
    question: QUESTION,
    ...patch,
  });

  before(async () => {
    tmp = await sampleRoot();
    server = await startFakeOpenAiServer();
    config = loadConfig({
      root: tmp.root,
      env: {
        EXAM_COPILOT_LLM_BASE_URL: server.baseURL,
        EXAM_COPILOT_LLM_API_KEY: 'sk-agent-test',
        EXAM_COPILOT_LLM_MODEL: 'fake-model',
        EXAM_COPILOT_LLM_MAX_RETRIES: '0',
        EXAM_COPILOT_LLM_TIMEOUT_MS: '2000',
      },
    }).config;
  });
  after(async () => {
    await server.close();
    tmp.cleanup();
  });

  /** Native run: toc → search → read → answer, each step reading what the previous tool returned. */
  const nativeScript = (req: RecordedRequest): ScriptedResponse | undefined => {
    const tools = wire(req).filter((m) => m.role === 'tool').length;
    if (tools === 0) return toolCalls({ name: 'toc', args: {} });
    if (tools === 1) return toolCalls({ name: 'search', args: { query: '基金财产 保管 基金托管人', book: '上册', k: 3 } });
    const ids = returnedIds(req);
    if (tools === 2) return toolCalls({ name: 'read', args: { chunk_ids: [ids[0]], after: 1 } });
    return chatReply(FINAL(ids[0] ?? ''));
  };

  it('reads with native tool calls (toc → search → read) and answers citing what it read', async () => {
    server.setHandler(nativeScript);
    const before = server.chatRequests().length;
    const out = await runAgentAsk(options({ tools: 'native' }));
    const requests = server.chatRequests().slice(before);
    assert.equal(out.result.answer, 'A');
    assert.equal(out.result.fallback, null);
    assert.deepEqual(
      out.agent.trace.map((s) => s.tool),
      ['toc', 'search', 'read'],
    );
    assert.equal(out.agent.protocol, 'native');
    assert.equal(requests.length, 4);
    assert.ok(Array.isArray(body(requests[0]!).tools) && body(requests[0]!).tool_choice === 'auto');
    const tocResult = wire(requests[1]!).find((m) => m.role === 'tool')?.content ?? '';
    assert.match(tocResult, /第一章/);
    const cited = out.result.evidence.map((e) => e.chunk_id);
    assert.equal(cited.length, 1);
    assert.ok(out.agent.trace[1]!.chunk_ids.includes(cited[0]!), 'the cited chunk came from the search');
    assert.equal(out.result.evidence[0]?.book, '上册');
    assert.match(wire(requests[0]!)[0]!.content, /基金从业资格/, 'the prompt names the exam');
  });

  it('speaks the simulated protocol, tolerating <think>, prose, fences and reasoning_content', async () => {
    server.setHandler((req) => {
      const results = wire(req).filter((m) => m.content.startsWith('Tool result')).length;
      if (results === 0) return chatReply('<think>先看目录，找到基金财产保管的章节。</think>{"tool": "toc", "arguments": {}}');
      if (results === 1)
        return chatReply('好的，我来检索。\n```json\n{"tool": "search", "arguments": {"query": "基金托管人 保管 基金财产"}}\n```');
      const reply = chatReply(FINAL(returnedIds(req)[0] ?? ''));
      const message = (reply.json as { choices: { message: Record<string, unknown> }[] }).choices[0]!.message;
      message.reasoning_content = '依据定义，基金托管人负责保管。';
      return reply;
    });
    const before = server.chatRequests().length;
    const out = await runAgentAsk(options({ tools: 'simulated' }));
    const requests = server.chatRequests().slice(before);
    assert.equal(out.result.answer, 'A');
    assert.equal(out.agent.protocol, 'simulated');
    assert.deepEqual(
      out.agent.trace.map((s) => s.tool),
      ['toc', 'search'],
    );
    assert.ok(
      requests.every((r) => body(r).tools === undefined),
      'no tools parameter in simulated mode',
    );
    assert.match(wire(requests[0]!)[0]!.content, /"tool": "<name>"/);
    assert.ok(!wire(requests[1]!).some((m) => m.content.includes('<think>')), 'thinking is not sent back');
  });

  it('switches to simulated once when the endpoint rejects tools, and remembers it per endpoint', async () => {
    let rejected = 0;
    server.setHandler((req) => {
      if (body(req).tools !== undefined) {
        rejected++;
        return { status: 400, json: { error: { message: 'tools is not supported for this model', type: 'invalid_request_error' } } };
      }
      const results = wire(req).filter((m) => m.content.startsWith('Tool result')).length;
      if (results === 0) return chatReply('{"tool": "search", "arguments": {"query": "基金托管人 保管"}}');
      return chatReply(FINAL(returnedIds(req)[0] ?? ''));
    });
    const first = await runAgentAsk(options({ tools: 'auto', cache: true }));
    assert.equal(first.result.answer, 'A');
    assert.equal(first.agent.protocol, 'simulated');
    assert.equal(rejected, 1);
    assert.ok(first.result.warnings?.some((w) => /switching to simulated/.test(w)));
    const second = await runAgentAsk(options({ tools: 'auto', cache: true, question: `${QUESTION} ` }));
    assert.equal(second.agent.protocol, 'simulated');
    assert.equal(rejected, 1, 'the second run starts in simulated mode');
  });

  it('answers bad arguments and unknown tools with messages the model can act on', async () => {
    server.setHandler((req) => {
      const tools = wire(req).filter((m) => m.role === 'tool');
      if (tools.length === 0) return toolCalls({ name: 'search', args: null, raw: '{"query": ' }, { name: 'browse', args: { url: 'x' } });
      if (tools.length === 2) return toolCalls({ name: 'search', args: { query: '基金托管人', pages: '9-2' } });
      if (tools.length === 3) return toolCalls({ name: 'search', args: { query: '基金财产 保管' } });
      return chatReply(FINAL(returnedIds(req)[0] ?? ''));
    });
    const out = await runAgentAsk(options({ tools: 'native' }));
    assert.equal(out.result.answer, 'A');
    const errors = out.agent.trace.map((s) => s.error ?? '');
    assert.match(errors[0]!, /arguments of search are not valid JSON/);
    assert.match(errors[1]!, /unknown tool "browse"; the tools are toc, search, read/);
    assert.match(errors[2]!, /page range ends before it starts/);
    assert.equal(errors[3], '');
  });

  it('answers a repeated identical call from memory and then forces a final answer', async () => {
    server.setHandler((req) => {
      const forced = body(req).tool_choice === 'none';
      if (!forced) return toolCalls({ name: 'search', args: { query: '基金托管人', k: 2 } });
      return chatReply(FINAL(returnedIds(req)[0] ?? ''));
    });
    const out = await runAgentAsk(options({ tools: 'native' }));
    assert.equal(out.result.answer, 'A');
    assert.deepEqual(
      out.agent.trace.map((s) => s.repeated === true),
      [false, true, true],
    );
    assert.ok(out.result.warnings?.some((w) => /repeated identical calls/.test(w)));
  });

  it('forces a final answer when the rounds are spent', async () => {
    let n = 0;
    server.setHandler((req) => {
      if (body(req).tool_choice === 'none') {
        assert.match(wire(req).at(-1)?.content ?? '', /budget is spent \(2 rounds\)/);
        return chatReply(FINAL(returnedIds(req)[0] ?? ''));
      }
      n++;
      return toolCalls({ name: 'search', args: { query: `基金托管人 ${n}` } });
    });
    const out = await runAgentAsk(options({ tools: 'native', budgets: { maxRounds: 2 } }));
    assert.equal(out.result.answer, 'A');
    assert.equal(out.agent.trace.length, 2);
  });

  it('rejects citations of ids never returned by a tool: one repair round, then the one-shot fallback', async () => {
    let agentRequests = 0;
    server.setHandler((req) => {
      if (body(req).tools === undefined) return oneShot(req);
      agentRequests++;
      if (wire(req).filter((m) => m.role === 'tool').length === 0) return toolCalls({ name: 'search', args: { query: '基金托管人' } });
      return chatReply(FINAL('deadbeefdeadbeef'));
    });
    const out = await runAgentAsk(options({ tools: 'native' }));
    assert.equal(agentRequests, 3, 'search, final, repaired final');
    assert.equal(out.result.fallback, 'agent_failed');
    assert.match(out.result.message ?? '', /never returned by a tool/);
    assert.match(out.result.message ?? '', /answered by the one-shot pipeline/);
    assert.equal(out.result.answer, 'A');
    assert.equal(out.agent.trace.length, 1);
  });

  it('stops a hung endpoint at the deadline and falls back, saying so', async () => {
    server.setHandler(() => ({ delayMs: 10_000, json: {} }));
    const out = await runAgentAsk(options({ tools: 'native', budgets: { deadlineMs: 400 } }));
    assert.equal(out.result.fallback, 'llm_failed');
    assert.equal(out.result.answerer, 'offline');
    assert.match(
      out.result.message ?? '',
      /agent failed \(.*no reply from .* within 0\.4 s \(timed out after 0\.4 s, the per-question deadline/,
    );
    assert.ok(out.result.answer !== '', 'the offline answer is shown');
  });

  it('replays a cached run without any request', async () => {
    server.setHandler(nativeScript);
    const first = await runAgentAsk(options({ tools: 'native', cache: true, question: `${QUESTION}（缓存）` }));
    const count = server.chatRequests().length;
    const again = await runAgentAsk(options({ tools: 'native', cache: true, question: `${QUESTION}（缓存）` }));
    assert.equal(server.chatRequests().length, count);
    assert.deepEqual(again.result.answer, first.result.answer);
    assert.deepEqual(
      again.agent.trace.map((s) => s.chunk_ids),
      first.agent.trace.map((s) => s.chunk_ids),
    );
  });

  it('runs as the agent mode of eval, scored like the other modes', async () => {
    server.setHandler(nativeScript);
    const csv = path.join(tmp.root, 'two.csv');
    writeFileSync(
      csv,
      'id,question,A,B,C,D,answer\nQ1,根据证券投资基金的定义，基金财产由（　）负责保管。,基金托管人,基金管理人,基金销售机构,基金份额登记机构,A\n' +
        'Q2,基金财产的保管人是（　）。,基金管理人,基金托管人,基金销售机构,基金份额登记机构,B\n',
    );
    const report = await runEval({
      root: tmp.root,
      config,
      file: csv,
      modes: ['agent'],
      noCache: true,
      runDir: path.join(tmp.root, 'runs'),
    });
    assert.deepEqual(
      report.modes.map((m) => [m.mode, m.total]),
      [['agent', 2]],
    );
    // The scripted model always answers A: right on Q1, wrong on Q2.
    assert.deepEqual(
      (report.records.agent ?? []).map((r) => [r.id, r.predicted, r.correct]),
      [
        ['Q1', 'A', true],
        ['Q2', 'A', false],
      ],
    );
  });

  it('keeps answering in a session (REPL and pipes use the same object)', async () => {
    server.setHandler(nativeScript);
    const session = await openAgentSession({ root: tmp.root, config, topK: 8, cache: false, tools: 'native' });
    try {
      const a = await session.ask(QUESTION);
      const b = await session.ask(QUESTION);
      assert.equal(a.result.answer, 'A');
      assert.equal(b.result.answer, 'A');
    } finally {
      session.close();
    }
  });
});

describe('ask --agent through the CLI', () => {
  it('is a not-ready error (exit 5, one line) without an LLM', async () => {
    const tmp = await sampleRoot();
    try {
      const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
      const env = offlineEnv();
      const r = spawnSync(process.execPath, [bin, '--root', tmp.root, 'ask', '--agent', QUESTION], { env, encoding: 'utf8' });
      assert.equal(r.status, 5);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.match(r.stderr, /ask --agent needs an LLM endpoint/);
      // answer.agent in the config makes the agent the default; --no-agent answers in one shot.
      writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), JSON.stringify({ answer: { agent: true } }));
      const byConfig = spawnSync(process.execPath, [bin, '--root', tmp.root, 'ask', QUESTION], { env, encoding: 'utf8' });
      assert.equal(byConfig.status, 5);
      assert.match(byConfig.stderr, /ask --agent needs an LLM endpoint/);
      const oneShot = spawnSync(process.execPath, [bin, '--root', tmp.root, '--json', 'ask', '--no-agent', QUESTION], {
        env,
        encoding: 'utf8',
      });
      assert.equal(oneShot.status, 0, oneShot.stderr);
      assert.equal((JSON.parse(oneShot.stdout) as { answer: string }).answer, 'A');
    } finally {
      tmp.cleanup();
    }
  });
});

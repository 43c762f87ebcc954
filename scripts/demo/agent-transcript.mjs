#!/usr/bin/env node
// Prints a real `ask --agent --json` run against the scripted OpenAI-compatible test server (test/helpers), for the
// README: the server plays a model that reads the TOC, searches, reads on, and answers. Nothing here is a real LLM.
// Usage: npm run build && node scripts/demo/agent-transcript.mjs
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { startFakeOpenAiServer, chatReply, chatMessages } = await import(path.join(repo, 'dist/test/helpers/fake-openai-server.js'));
const bin = path.join(repo, 'bin', 'exam-copilot.js');
const root = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-agent-demo-'));
cpSync(path.join(repo, 'rawdoc'), path.join(root, 'rawdoc'), { recursive: true });

const run = (args, env = {}) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, '--root', root, ...args], { env: { ...process.env, NO_COLOR: '1', ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => process.stderr.write(d));
    child.on('close', (code) => resolve({ code, out }));
  });

const toolCall = (name, args) => ({
  json: {
    id: 'demo',
    object: 'chat.completion',
    created: 0,
    model: 'scripted-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `call_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  },
});
const ids = (req) =>
  chatMessages(req)
    .filter((m) => m.role === 'tool')
    .flatMap((m) => [...m.content.matchAll(/"chunk_id":"([0-9a-f]{16})"/g)].map((x) => x[1]));

const server = await startFakeOpenAiServer({
  handler: (req) => {
    const done = chatMessages(req).filter((m) => m.role === 'tool').length;
    if (done === 0) return toolCall('toc', {});
    if (done === 1) return toolCall('search', { query: '基金财产 保管', chapter: '第一章', k: 3 });
    if (done === 2) return toolCall('read', { chunk_ids: [ids(req)[0]], after: 1 });
    return chatReply(
      JSON.stringify({
        answer: 'A',
        confidence: 0.9,
        evidence_ids: [ids(req)[0]],
        status: 'answered',
        explanation: '定义：基金财产由基金托管人负责保管。',
      }),
    );
  },
});
try {
  await run(['--quiet', 'ingest']);
  const env = { EXAM_COPILOT_LLM_BASE_URL: server.baseURL, EXAM_COPILOT_LLM_API_KEY: 'sk-demo', EXAM_COPILOT_LLM_MODEL: 'scripted-model' };
  const question = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';
  const { out } = await run(['--json', 'ask', '--agent', '--no-cache', question], env);
  process.stdout.write(out);
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}

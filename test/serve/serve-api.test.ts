import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { answerJson } from '../../src/answer/answer-json.js';
import { runAsk } from '../../src/answer/run-ask.js';
import { loadConfig } from '../../src/config/load-config.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { runToc } from '../../src/retrieve/run-toc.js';
import { startServer, type RunningServer } from '../../src/serve/run-serve.js';
import { chatMessages, chatReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';
const KEY = 'sk-serve-test-secret-0123456789';

interface SearchJson {
  hits: { chunk_id: string; book: string; page_start: string; chunk_type: string; text: string }[];
}

async function postJson(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('serve: the JSON API and files over real HTTP', () => {
  let tmp: TempRoot;
  let server: RunningServer;
  let base: string;

  before(async () => {
    tmp = await sampleRoot();
    // A Markdown note beside the PDFs: notes open rendered, scrolled to the marked passage.
    writeFileSync(
      path.join(tmp.root, 'rawdoc', '笔记.md'),
      '# 学习笔记\n\n## 托管\n\n托管人独立性要求：托管人与管理人不得为同一机构，不得相互出资或者持有股份。\n',
    );
    const { config } = loadConfig({ root: tmp.root, env: {} });
    await runIngest({ root: tmp.root, config });
    server = await startServer({ root: tmp.root, config, host: '127.0.0.1', port: 0, topK: 8 });
    base = server.url.replace(/\/$/, '');
  });

  it('opens a note rendered and scrolled to the marked passage', async () => {
    const html = await (await fetch(`${base}/search?q=${encodeURIComponent('托管人独立性要求 不得相互出资')}&mode=keyword&k=3`)).text();
    const link = /<a href="(\/view\?chunk=[^"]+#hl)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(link, 'the note hit links to its text view with the #hl anchor');
    const page = await (await fetch(base + link.replace(/#hl$/, ''))).text();
    assert.match(page, /<mark class="quote" id="hl">托管人独立性要求/);
  });
  after(async () => {
    await server.close();
    tmp.cleanup();
  });

  it('POST /api/ask returns the same object as ask --json', async () => {
    const { config } = loadConfig({ root: tmp.root, env: {} });
    const cli = await runAsk({
      root: tmp.root,
      config,
      question: QUESTION,
      mode: 'hybrid',
      topK: 8,
      rerank: true,
      cache: true,
      showContext: false,
    });
    const { status, json } = await postJson(`${base}/api/ask`, JSON.stringify({ question: QUESTION }));
    assert.equal(status, 200);
    assert.deepEqual(json, JSON.parse(JSON.stringify(answerJson(cli))));
    assert.equal(json.answer, 'A');
  });

  it('GET /api/search applies the CLI filters', async () => {
    const res = await fetch(`${base}/api/search?q=${encodeURIComponent('基金托管人')}&book=${encodeURIComponent('下册')}&k=5`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as SearchJson;
    assert.ok(body.hits.length > 0);
    assert.ok(body.hits.every((h) => h.book === '下册'));
    const paged = (await (await fetch(`${base}/api/search?q=${encodeURIComponent('基金')}&pages=3-4`)).json()) as SearchJson;
    assert.ok(paged.hits.length > 0);
    assert.ok(paged.hits.every((h) => Number(h.page_start) <= 4));
    const bad = await fetch(`${base}/api/search?q=x&pages=9-2`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /pages 9-2: the range ends before it starts/);
  });

  it('GET /api/toc is the toc command’s outline', async () => {
    const res = await fetch(`${base}/api/toc`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), JSON.parse(JSON.stringify(runToc({ root: tmp.root }))));
  });

  it('refuses bad JSON, unknown fields, empty, long and oversize questions with a message', async () => {
    const badJson = await postJson(`${base}/api/ask`, '{"question": "x"');
    assert.equal(badJson.status, 400);
    assert.match(String(badJson.json.error), /not valid JSON/);
    const empty = await postJson(`${base}/api/ask`, JSON.stringify({ question: '   ' }));
    assert.equal(empty.status, 400);
    assert.match(String(empty.json.error), /question: question is empty/);
    const extra = await postJson(`${base}/api/ask`, JSON.stringify({ question: 'x', apiKey: 'y' }));
    assert.equal(extra.status, 400);
    const long = await postJson(`${base}/api/ask`, JSON.stringify({ question: '基'.repeat(4001) }));
    assert.equal(long.status, 400);
    assert.match(String(long.json.error), /longer than 4000/);
    const huge = await postJson(`${base}/api/ask`, JSON.stringify({ question: 'x'.repeat(70_000) }));
    assert.equal(huge.status, 413);
    const llm = await postJson(`${base}/api/ask`, JSON.stringify({ question: QUESTION, answerer: 'llm' }));
    assert.equal(llm.status, 400);
    assert.match(String(llm.json.error), /needs an LLM endpoint/);
  });

  it('serves sources only by id from the manifest, never by a path from the URL', async () => {
    const toc = (await (await fetch(`${base}/toc`)).text()).match(/href="(\/view\?doc=[0-9a-f]+&amp;page=\d+)"/);
    assert.ok(toc, 'the TOC links to the PDF pages');
    const view = await (await fetch(base + (toc[1] ?? '').replace(/&amp;/g, '&'))).text();
    const fileUrl = /data-url="(\/files\/[0-9a-f]{16})"/.exec(view)?.[1];
    assert.ok(fileUrl);
    const pdf = await fetch(base + fileUrl);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
    for (const probe of [
      '/files/..%2f..%2f..%2fetc%2fpasswd',
      '/files/%2Fetc%2Fpasswd',
      '/files/../../package.json',
      '/vendor/pdfjs/..%2fpackage.json',
      '/vendor/pdfjs/build/..%2f..%2f..%2fpackage.json',
      '/assets/..%2f..%2fpackage.json',
      '/reports/..%2fdata%2fmanifest.json',
      '/view?doc=..%2f..%2fetc%2fpasswd',
    ]) {
      const res = await fetch(base + probe);
      assert.ok(res.status === 404 || res.status === 400, `${probe} → ${res.status}`);
      assert.doesNotMatch(await res.text(), /root:x:0:0|"name": "exam-copilot"/, probe);
    }
  });

  it('refuses links that point out of rawdoc/ and reports/', async () => {
    const outside = path.join(tmp.root, 'outside.pdf');
    const source = path.join(tmp.root, 'rawdoc', '证券投资基金_下册.pdf');
    const toc = (await (await fetch(`${base}/api/toc?book=${encodeURIComponent('下册')}`)).json()) as {
      entries: { pdf_page: number | null }[];
    };
    assert.ok(toc.entries.length > 0);
    const view = await (await fetch(`${base}/toc`)).text();
    const ids = [...view.matchAll(/\/view\?doc=([0-9a-f]{16})/g)].map((m) => m[1]);
    copyFileSync(source, outside);
    rmSync(source);
    symlinkSync(outside, source);
    let refused = 0;
    for (const id of new Set(ids)) if ((await fetch(`${base}/files/${id}`)).status === 404) refused++;
    assert.equal(refused, 1, 'the linked-out 下册 is refused, 上册 still served');
    rmSync(source);
    copyFileSync(outside, source);

    mkdirSync(path.join(tmp.root, 'reports'), { recursive: true });
    writeFileSync(path.join(tmp.root, 'reports', 'eval.html'), '<!doctype html><html><body><p>report</p></body></html>');
    symlinkSync(path.join(repoRoot, 'package.json'), path.join(tmp.root, 'reports', 'leak.json'));
    const list = await (await fetch(`${base}/reports`)).text();
    assert.match(list, /eval\.html/);
    assert.doesNotMatch(list, /leak\.json/);
    assert.equal((await fetch(`${base}/reports/leak.json`)).status, 404);
    const report = await fetch(`${base}/reports/eval.html`);
    assert.equal(report.status, 200);
    assert.match(report.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    // Served, a report links back to the app (a report opened from disk has no such link: `/` would be the disk's root).
    assert.match(
      await report.text(),
      /<body>\n<nav class="app-links"[^>]*><a href="\/">← exam-copilot 提问 Ask<\/a> · <a href="\/reports">报告 Reports<\/a><\/nav><p>report/,
    );
  });

  it('refuses a Host header that is not this machine (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/', headers: { host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 403);
  });

  it('answers a burst of 20 concurrent asks consistently', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => postJson(`${base}/api/ask`, JSON.stringify({ question: QUESTION, mode: 'keyword' }))),
    );
    assert.ok(replies.every((r) => r.status === 200));
    assert.equal(new Set(replies.map((r) => JSON.stringify(r.json))).size, 1);
  });

  it('renders the answer page without JavaScript, with evidence linking to the cited page', async () => {
    const html = await (await fetch(`${base}/ask?q=${encodeURIComponent(QUESTION)}`)).text();
    assert.match(html, /<strong id="answer">A<\/strong>/);
    assert.match(html, /class="label">/);
    const link = /<a class="open" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(link);
    const page = await (await fetch(base + link)).text();
    assert.match(page, /data-page="\d+"/);
    assert.match(page, /<mark>/, 'the passage below the viewer marks the quote');
    const missing = await fetch(`${base}/ask?q=`);
    assert.equal(missing.status, 400);
  });
});

describe('serve: the LLM key never reaches the page', () => {
  let tmp: TempRoot;
  let llm: FakeOpenAiServer;
  let server: RunningServer;

  before(async () => {
    tmp = await sampleRoot();
    llm = await startFakeOpenAiServer();
    llm.setHandler((req) => {
      const text = chatMessages(req)
        .map((m) => m.content)
        .join('\n');
      if (/<passages-[0-9a-f]{12}>/.test(text)) return chatReply('[1]');
      return chatReply(JSON.stringify({ answer: 'A', confidence: 0.8, evidence_ids: [1], status: 'answered', explanation: `echo ${KEY}` }));
    });
    const { config } = loadConfig({
      root: tmp.root,
      env: { EXAM_COPILOT_LLM_BASE_URL: llm.baseURL, EXAM_COPILOT_LLM_API_KEY: KEY, EXAM_COPILOT_LLM_MODEL: 'fake-model' },
    });
    server = await startServer({ root: tmp.root, config, host: '127.0.0.1', port: 0, topK: 8 });
  });
  after(async () => {
    await server.close();
    await llm.close();
    tmp.cleanup();
  });

  it('answers through the LLM and shows no key in pages or API replies', async () => {
    const base = server.url.replace(/\/$/, '');
    const { status, json } = await postJson(`${base}/api/ask`, JSON.stringify({ question: QUESTION, answerer: 'llm' }));
    assert.equal(status, 200);
    assert.equal(json.answerer, 'llm');
    assert.ok(llm.requests.length > 0, 'the LLM was called');
    for (const page of ['/', `/ask?answerer=llm&q=${encodeURIComponent(QUESTION)}`, '/search?q=基金', '/toc']) {
      const html = await (await fetch(base + page)).text();
      assert.ok(!html.includes(KEY), page);
    }
    assert.ok(!JSON.stringify(json).includes(KEY));
    // The agent appears as an answerer once an LLM is configured; this scripted model cites no passage a tool
    // returned, so the agent falls back to the one-shot pipeline and says so.
    const agent = await postJson(`${base}/api/ask`, JSON.stringify({ question: QUESTION, answerer: 'agent' }));
    assert.equal(agent.status, 200, JSON.stringify(agent.json));
    assert.equal(agent.json.fallback, 'agent_failed');
    assert.ok(Array.isArray(agent.json.trace));
    assert.match(await (await fetch(base + '/')).text(), /<option value="agent">agent<\/option>/);
  });
});

describe('serve through the CLI', () => {
  it('prints its address, binds to loopback, and stops cleanly on SIGINT', async () => {
    const tmp = makeTempRoot({ sample: true });
    try {
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'exam-copilot.js'), '--root', tmp.root, 'serve', '--port', '0'], {
        env: { ...process.env, NO_COLOR: '1' },
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
      });
      // stderr and stdout are separate pipes: give the warning written just before the address a moment to arrive.
      for (let i = 0; i < 40 && !/no index yet/.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
      assert.match(stderr, /no index yet/);
      const home = await fetch(url);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /<textarea id="q" name="q"/);
      const notReady = await fetch(`${url}api/ask`, {
        method: 'POST',
        body: JSON.stringify({ question: QUESTION }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(notReady.status, 503);
      assert.match(((await notReady.json()) as { error: string }).error, /run `exam-copilot ingest`/);
      const code = await new Promise<number | null>((resolve) => {
        child.once('exit', (c) => resolve(c));
        child.kill('SIGINT');
      });
      assert.equal(code, 0, stderr);
    } finally {
      tmp.cleanup();
    }
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { answerJson } from '../../src/answer/answer-json.js';
import { runAsk } from '../../src/answer/run-ask.js';
import { loadConfig } from '../../src/config/load-config.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { runToc } from '../../src/retrieve/run-toc.js';
import { startServer, type RunningServer } from '../../src/serve/run-serve.js';
import { chatMessages, chatReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { runOfflineCli } from '../helpers/run-cli.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';
const KEY = 'sk-serve-test-secret-0123456789';

interface SearchJson {
  hits: { chunk_id: string; book: string; page_start: string; chunk_type: string; text: string }[];
}

/** One request sent as written (fetch would normalise `..` and set some headers itself), with its reply. */
async function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
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
      '/files/../../../../etc/passwd',
      '/assets/../../package.json',
      '/vendor/pdfjs/../../../package.json',
      '/reports/../data/manifest.json',
    ]) {
      // Sent as written: fetch would resolve the `..` segments itself, so the server would never see them.
      const res = await rawRequest(server.port, { path: probe });
      assert.ok(res.status === 404 || res.status === 400, `${probe} → ${res.status}`);
      assert.doesNotMatch(res.body, /root:x:0:0|"name": "exam-copilot"|"sources"/, probe);
    }
  });

  it('streams a source by byte range, as pdf.js asks for a large PDF', async () => {
    const view = await (await fetch(`${base}/toc`)).text();
    const id = /\/view\?doc=([0-9a-f]{16})/.exec(view)?.[1];
    assert.ok(id);
    const whole = Buffer.from(await (await fetch(`${base}/files/${id}`)).arrayBuffer());
    const head = await rawRequest(server.port, { path: `/files/${id}`, headers: { range: 'bytes=0-4' } });
    assert.equal(head.status, 206);
    assert.equal(head.headers['content-range'], `bytes 0-4/${whole.length}`);
    assert.equal(head.body, '%PDF-');
    const tail = await fetch(`${base}/files/${id}`, { headers: { range: 'bytes=-16' } });
    assert.equal(tail.status, 206);
    assert.deepEqual(Buffer.from(await tail.arrayBuffer()), whole.subarray(whole.length - 16));
    const beyond = await rawRequest(server.port, { path: `/files/${id}`, headers: { range: `bytes=${whole.length}-` } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers['content-range'], `bytes */${whole.length}`);
  });

  it('lets an eval report run the script its own CSP allows, and nothing else', async () => {
    mkdirSync(path.join(tmp.root, 'reports'), { recursive: true });
    const script = 'document.body.dataset.ready = "1";';
    const hash = createHash('sha256').update(script).digest('base64');
    const other = createHash('sha256').update('alert(1)').digest('base64');
    writeFileSync(
      path.join(tmp.root, 'reports', 'filters.html'),
      `<!doctype html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-${hash}'"></head>` +
        `<body><meta http-equiv="Content-Security-Policy" content="script-src 'sha256-${other}'"><script>${script}</script></body>`,
    );
    const res = await fetch(`${base}/reports/filters.html`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, new RegExp(`script-src 'sha256-${hash.replace(/[+/]/g, (c) => `\\${c}`)}'`));
    assert.ok(!csp.includes(other), 'a policy written in the body is not taken');
    assert.match(csp, /default-src 'none'/);
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
    const { status } = await rawRequest(server.port, { path: '/', headers: { host: 'evil.example:80' } });
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

  it('refuses cross-site requests that would answer or spend the LLM budget, and serves its own page', async () => {
    const own = `http://127.0.0.1:${server.port}`;
    const body = JSON.stringify({ question: QUESTION, answerer: 'agent' });
    const asked = llm.chatRequests().length;
    // A form on another site can POST text/plain without a preflight; a script there can send JSON with its Origin.
    const textPlain = await rawRequest(server.port, {
      method: 'POST',
      path: '/api/ask',
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
      body,
    });
    assert.equal(textPlain.status, 403, textPlain.body);
    assert.match(textPlain.body, /^\{"error":"refused a request from another origin \(http:\/\/evil\.example\)/);
    const json = await rawRequest(server.port, {
      method: 'POST',
      path: '/api/ask',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body,
    });
    assert.equal(json.status, 403, json.body);
    // A link or an image on another site: a GET the browser marks cross-site.
    const link = await rawRequest(server.port, {
      path: `/ask?q=${encodeURIComponent(QUESTION)}&answerer=llm`,
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    assert.equal(link.status, 403, link.body);
    assert.equal(link.body.split('\n').length, 1, 'one line');
    const sameSite = await rawRequest(server.port, {
      path: `/api/search?q=${encodeURIComponent('基金')}`,
      headers: { 'sec-fetch-site': 'same-site' },
    });
    assert.equal(sameSite.status, 403);
    // A POST without an origin but with a non-JSON body is refused too (415).
    const untyped = await rawRequest(server.port, { method: 'POST', path: '/api/ask', headers: { 'content-type': 'text/plain' }, body });
    assert.equal(untyped.status, 415, untyped.body);
    assert.equal(llm.chatRequests().length, asked, 'no refused request reached the LLM');

    // The page's own requests still work: a same-origin POST, and the question form (a same-origin navigation).
    const ownPost = await rawRequest(server.port, {
      method: 'POST',
      path: '/api/ask',
      headers: { 'content-type': 'application/json; charset=utf-8', origin: own },
      body: JSON.stringify({ question: QUESTION, answerer: 'llm' }),
    });
    assert.equal(ownPost.status, 200, ownPost.body);
    assert.equal((JSON.parse(ownPost.body) as { answerer: string }).answerer, 'llm');
    const form = await rawRequest(server.port, {
      path: `/ask?q=${encodeURIComponent(QUESTION)}&answerer=llm`,
      headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' },
    });
    assert.equal(form.status, 200);
    // Answered by the LLM (from its cache: the same question was just asked), as the form asked.
    assert.match(form.body, /<option value="llm" selected>/);
    assert.doesNotMatch(form.body, /answered offline/);
    // A client that does not say where it comes from (a script, an old browser) gets the offline answer and a note.
    const unmarked = llm.chatRequests().length;
    const script = await rawRequest(server.port, { path: `/ask?q=${encodeURIComponent(QUESTION)}&answerer=llm` });
    assert.equal(script.status, 200);
    assert.match(script.body, /answered offline: the LLM and the agent run only for a question asked from this page/);
    assert.match(script.body, /<option value="offline" selected>/);
    assert.equal(llm.chatRequests().length, unmarked, 'the LLM was not called');
  });
});

describe('serve through the CLI', () => {
  it('ends with one line and exit 2 for a port out of range or in use', async () => {
    const outOfRange = runOfflineCli(['serve', '--port', '99999']);
    assert.equal(outOfRange.status, 2, outOfRange.stderr);
    assert.equal(outOfRange.stderr.trim().split('\n').length, 1, outOfRange.stderr);
    assert.match(outOfRange.stderr, /--port must be a whole number from 1 to 65535/);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as AddressInfo).port;
      const inUse = runOfflineCli(['serve', '--port', String(port)]);
      assert.equal(inUse.status, 2, inUse.stderr);
      assert.equal(inUse.stderr.trim().split('\n').length, 1, inUse.stderr);
      assert.match(inUse.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`));
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

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

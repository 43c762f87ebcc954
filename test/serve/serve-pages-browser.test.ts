import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serve } from '@hono/node-server';
import type { Page } from 'puppeteer-core';
import type { OptionVerdict } from '../../src/answer/answer-types.js';
import type { AskResult } from '../../src/answer/run-ask.js';
import { toEvidence } from '../../src/answer/evidence.js';
import { loadConfig } from '../../src/config/load-config.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { projectPaths } from '../../src/paths.js';
import { createServeApp } from '../../src/serve/serve-app.js';
import { createServeContext, type ServeContext } from '../../src/serve/serve-context.js';
import { quotePdfPage } from '../../src/text/citation.js';
import type { Chunk } from '../../src/types.js';
import { launchHeadless, skipWithoutBrowser, type HeadlessChromium } from '../helpers/headless-chromium.js';
import { fixturesDir, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。\nA.基金托管人\nB.基金管理人\nC.基金销售机构\nD.基金份额登记机构';
/** A question the sample books say nothing about: the offline answerer abstains with a guess. */
const OFF_BOOK = '火星上最高的山是（ ）。\nA.奥林匹斯山\nB.珠穆朗玛峰\nC.乞力马扎罗山\nD.富士山';
/** A sentence of the sample that starts on the second page of its chunk (sample 上册, printed p.4). */
const SECOND_PAGE_SENTENCE = '基金管理人是基金产品的募集者和管理者，';

/** Runs an expression in the page (tests compile without DOM types, so page code is a string). */
async function inPage<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

function textsOf(page: Page, selector: string): Promise<string[]> {
  return inPage(page, `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent || '')`);
}

/** True when the element is wholly inside the visible part of the page. */
function inViewport(page: Page, selector: string): Promise<boolean> {
  return inPage(
    page,
    `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return false; const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; })()`,
  );
}

/** Waits for the viewer to finish the page it is rendering, and reads which page and how many highlights. */
async function viewerState(page: Page): Promise<{ rendered: string; page: number; highlights: number; status: string }> {
  await page.waitForSelector('#viewer[data-rendered]', { timeout: 30_000 });
  return inPage(
    page,
    `(() => { const v = document.getElementById('viewer'); return { rendered: v.dataset.rendered, page: Number(v.dataset.shown || v.dataset.page), highlights: Number(v.dataset.highlights || '0'), status: document.getElementById('viewer-status').textContent }; })()`,
  );
}

describe('serve pages a student reads, in a real browser', { skip: skipWithoutBrowser }, () => {
  let tmp: TempRoot;
  let context: ServeContext;
  let server: ReturnType<typeof serve>;
  let base: string;
  let chromium: HeadlessChromium | undefined;
  let secondPageChunk: Chunk;
  let errors: string[];

  before(async () => {
    tmp = await sampleRoot();
    copyFileSync(path.join(fixturesDir, 'notes', '开放式基金笔记.md'), path.join(tmp.root, 'rawdoc', '开放式基金笔记.md'));
    const { config } = loadConfig({ root: tmp.root, env: {} });
    await runIngest({ root: tmp.root, config });
    const chunks = readFileSync(projectPaths(tmp.root).chunks, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Chunk);
    const found = chunks.find((c) => (c.page_breaks[0]?.offset ?? Infinity) <= c.text.indexOf(SECOND_PAGE_SENTENCE));
    assert.ok(found, 'the sample has a chunk whose second page holds the sentence');
    secondPageChunk = found;
    const real = createServeContext({ root: tmp.root, config, topK: 8 });
    // Verdicts written by hand for the sample question, from real chunks of the index (A from the answer's own
    // evidence, B from a chunk's second page), so the page's rendering of a quote on a later page is pinned whatever the
    // offline answerer reads; every other question shows the answerer's own verdicts.
    const withVerdicts = (question: string, out: AskResult): AskResult => {
      if (question !== QUESTION) return out;
      const [a] = out.result.evidence;
      assert.ok(a, 'the sample question has evidence');
      const verdicts: OptionVerdict[] = [
        { label: 'A', target: 'option', text: '基金托管人', verdict: 'supported', evidence: a },
        {
          label: 'B',
          target: 'option',
          text: '基金管理人',
          verdict: 'contradicted',
          reason: '主体不同：基金管理人负责投资运作',
          evidence: toEvidence(secondPageChunk, SECOND_PAGE_SENTENCE, ['基金管理人']),
        },
        { label: 'C', target: 'option', text: '基金销售机构', verdict: 'not_found' },
        { label: 'D', target: 'option', text: '基金份额登记机构', verdict: 'not_found' },
      ];
      return { ...out, result: { ...out.result, verdicts } };
    };
    context = {
      ...real,
      async ask(question, options) {
        return withVerdicts(question, await real.ask(question, options));
      },
      withIndex: (use) => real.withIndex((index) => use({ ...index, ask: async (q, o) => withVerdicts(q, await index.ask(q, o)) })),
    };
    const app = createServeApp({ context, allowedHosts: [] });
    server = await new Promise((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    chromium = await launchHeadless();
  });
  after(async () => {
    await chromium?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await context?.close();
    tmp.cleanup();
  });

  async function open(url: string, viewport = { width: 1100, height: 1000 }): Promise<Page> {
    assert.ok(chromium);
    const page = await chromium.browser.newPage();
    errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(base)) errors.push(`left the machine: ${r.url()}`);
    });
    await page.setViewport(viewport);
    await page.goto(url, { waitUntil: 'load' });
    return page;
  }

  it("shows the answer with its option's text, the options as a list, and each option's verdict", async () => {
    const page = await open(`${base}/ask?q=${encodeURIComponent(QUESTION)}`);
    assert.deepEqual(await textsOf(page, '#answer'), ['A']);
    assert.deepEqual(await textsOf(page, '.answer-text'), ['基金托管人']);
    assert.deepEqual(await textsOf(page, '.options li'), ['A 基金托管人', 'B 基金管理人', 'C 基金销售机构', 'D 基金份额登记机构']);
    const verdicts = await textsOf(page, '.verdict .verdict-head');
    assert.deepEqual(verdicts, [
      'A 基金托管人 ✓ 支持 supported',
      'B 基金管理人 ✗ 矛盾 contradicted',
      'C 基金销售机构 ? 未找到 not found',
      'D 基金份额登记机构 ? 未找到 not found',
    ]);
    // The supported and contradicted options show their quote, highlighted, and the CLI's citation.
    const quotes = await textsOf(page, '.verdict .verdict-quote');
    assert.equal(quotes.length, 2);
    assert.ok(quotes[1]?.includes(SECOND_PAGE_SENTENCE), quotes.join('\n'));
    const marks = await textsOf(page, '.verdict.contradicted .verdict-quote mark');
    // Adjacent matches are one mark (the heading （二）基金管理人 runs into the sentence when the lines are joined).
    assert.ok(marks.length >= 1 && marks.every((m) => /^(基金管理人)+$/u.test(m)), marks.join(','));
    assert.match((await textsOf(page, '.verdict.contradicted .citation')).join(''), /^上册 \| 第一章/u);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("opens a quote on its chunk's second page at that page, highlighted, and turns pages", async () => {
    const expected = secondPageChunk.page_breaks[0]?.pdf_page;
    assert.ok(expected && expected !== secondPageChunk.pdf_page_start);
    // The passage's link with the quote, as every evidence card and search hit makes it.
    const direct = await open(`${base}/view?chunk=${secondPageChunk.chunk_id}&quote=${encodeURIComponent(SECOND_PAGE_SENTENCE)}`);
    const opened = await viewerState(direct);
    assert.equal(opened.page, expected, `the page the quote is on (${expected}), not the chunk's first`);
    assert.ok(opened.highlights >= 1, opened.status);
    await direct.close();

    const page = await open(`${base}/ask?q=${encodeURIComponent(QUESTION)}`);
    await Promise.all([page.waitForNavigation(), page.click('.verdict.contradicted a.quote-link')]);
    let state = await viewerState(page);
    assert.equal(state.rendered, 'true', state.status);
    assert.equal(state.page, expected, 'the page the quote is on, not the chunk’s first');
    assert.ok(state.highlights >= 1, state.status);
    assert.match(state.status, /已标出引文/u);

    await page.click('#prev-page');
    await page.waitForFunction(`document.getElementById('viewer').dataset.shown === '${expected - 1}'`, { timeout: 30_000 });
    state = await viewerState(page);
    assert.equal(state.page, expected - 1);
    await page.click('#next-page');
    await page.waitForFunction(`document.getElementById('viewer').dataset.shown === '${expected}'`, { timeout: 30_000 });
    state = await viewerState(page);
    assert.ok(state.highlights >= 1, 'the quote is boxed again on its page');
    assert.ok(page.url().includes(`page=${expected}`), page.url());
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('boxes each part of a quote with an inner ellipsis, not the lines the ellipsis leaves out', async () => {
    const later = '基金管理人的主要职责包括：';
    assert.ok(secondPageChunk.text.indexOf(later) > secondPageChunk.text.indexOf(SECOND_PAGE_SENTENCE) + 100);
    const boxes = async (quote: string): Promise<number> => {
      const page = await open(`${base}/view?chunk=${secondPageChunk.chunk_id}&quote=${encodeURIComponent(quote)}`);
      const state = await viewerState(page);
      await page.close();
      assert.ok(state.highlights >= 1, `${quote}: ${state.status}`);
      return state.highlights;
    };
    const first = await boxes(SECOND_PAGE_SENTENCE);
    const last = await boxes(later);
    // The sentences between the two parts (two lines and more) are not boxed.
    assert.equal(await boxes(`${SECOND_PAGE_SENTENCE}…${later}`), first + last);
    assert.deepEqual(errors, []);
  });

  it('boxes on each page the parts of an ellipsis quote that stand there (a lead on one page, its item on the next)', async () => {
    const lead = '基金份额持有人享有的基本权利包括：';
    assert.ok(secondPageChunk.text.indexOf(lead) < (secondPageChunk.page_breaks[0]?.offset ?? 0), 'the lead is on the first page');
    const view = async (quote: string): Promise<Page> =>
      open(`${base}/view?chunk=${secondPageChunk.chunk_id}&quote=${encodeURIComponent(quote)}`);
    // How much of the page the boxes cover: the sum of their widths, in pixels.
    const boxed = (page: Page): Promise<number> =>
      inPage(page, `[...document.querySelectorAll('.highlights .hl')].reduce((n, e) => n + e.getBoundingClientRect().width, 0)`);
    const alone = async (quote: string): Promise<number> => {
      const page = await view(quote);
      await viewerState(page);
      const width = await boxed(page);
      await page.close();
      return width;
    };
    const leadBoxes = await alone(lead);
    const itemBoxes = await alone(SECOND_PAGE_SENTENCE);
    const page = await view(`${lead}…${SECOND_PAGE_SENTENCE}`);
    const first = await viewerState(page);
    assert.equal(first.page, secondPageChunk.pdf_page_start, 'opened where the quote starts');
    assert.ok(Math.abs((await boxed(page)) - leadBoxes) < 1, 'the lead, whole');
    await page.click('#next-page');
    await page.waitForFunction(`document.getElementById('viewer').dataset.shown === '${(first.page ?? 0) + 1}'`, { timeout: 30_000 });
    await viewerState(page);
    assert.ok(Math.abs((await boxed(page)) - itemBoxes) < 1, 'the item, whole, on the next page');
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("opens the supported option's quote at the quote's own page", async () => {
    const page = await open(`${base}/ask?q=${encodeURIComponent(QUESTION)}`);
    const href = (await inPage<string>(page, `document.querySelector('.verdict.supported a.quote-link').getAttribute('href')`)) ?? '';
    const link = new URL(href, base);
    const chunk = await context.chunk(link.searchParams.get('chunk') ?? '');
    assert.ok(chunk);
    await Promise.all([page.waitForNavigation(), page.click('.verdict.supported a.quote-link')]);
    const state = await viewerState(page);
    assert.equal(state.page, quotePdfPage(chunk, link.searchParams.get('quote') ?? ''));
    assert.ok(state.highlights >= 1, state.status);
    await page.close();
  });

  it('says an abstention in words with the guess and its option, and fits a 375 px phone', async () => {
    const page = await open(`${base}/ask?q=${encodeURIComponent(OFF_BOOK)}`, { width: 375, height: 800 });
    const body = (await textsOf(page, 'main')).join('');
    assert.doesNotMatch(body, /fallback|no_evidence|off_topic/u);
    assert.match(body, /未在教材中找到明确依据/u);
    assert.match((await textsOf(page, '.guess')).join(''), /猜测.*A 奥林匹斯山/u);
    const widths = await inPage<{ scroll: number; client: number }>(
      page,
      `({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })`,
    );
    assert.ok(widths.scroll <= widths.client, `no horizontal scroll at 375 px: ${JSON.stringify(widths)}`);
    await page.goto(`${base}/ask?q=${encodeURIComponent(QUESTION)}`, { waitUntil: 'load' });
    const answered = await inPage<{ scroll: number; client: number }>(
      page,
      `({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })`,
    );
    assert.ok(answered.scroll <= answered.client, `no horizontal scroll at 375 px: ${JSON.stringify(answered)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('opens a Markdown note rendered, with the passage and its heading in view', async () => {
    const page = await open(`${base}/search?q=${encodeURIComponent('赎回款项 T+2日')}&mode=keyword&type=note`, {
      width: 1100,
      height: 700,
    });
    await Promise.all([page.waitForNavigation(), page.click('.hit a')]);
    const text = (await textsOf(page, '.note-body')).join('');
    assert.doesNotMatch(text, /\*\*|:::|\| *--- *\|/u);
    assert.ok((await textsOf(page, '.note-body table td')).includes('赎回费率上限'));
    assert.deepEqual(await textsOf(page, '.note-body .callout.warning .callout-title'), ['注意']);
    assert.ok((await textsOf(page, '.note-body strong')).includes('T+2日'));
    assert.match((await textsOf(page, 'mark#hl')).join(''), /\S/u);
    // The note's name heads the page once, and the citation under it opens with that name.
    const [title] = await textsOf(page, 'h1');
    const [where] = await textsOf(page, '.where');
    assert.ok(title && where?.startsWith(`${title} | `), `${title} / ${where}`);
    assert.ok(!title.includes(' | '), title);
    // The page's script has placed the passage with its heading (it runs after the load event).
    await page.waitForSelector('body[data-revealed]', { timeout: 10_000 });
    assert.ok(await inViewport(page, 'mark#hl'), 'the highlighted passage is on the screen');
    const heading = await inPage<boolean>(
      page,
      `(() => { const h = [...document.querySelectorAll('.note-body h2')].find((e) => e.textContent === '申购赎回的资金交收'); if (!h) return false; const r = h.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })()`,
    );
    assert.ok(heading, 'the heading of the passage is on the screen');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/serve/run-serve.js';
import { launchHeadless, skipWithoutBrowser, type HeadlessChromium } from '../helpers/headless-chromium.js';
import { type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

const QUESTION = '根据证券投资基金的定义，基金财产由（　）负责保管。\nA.基金托管人\nB.基金管理人\nC.基金销售机构\nD.基金份额登记机构';

/**
 * Runs an expression in the page and returns its value. Page code is passed as a string because the tests compile
 * without DOM types (the project targets Node); `selector` values are embedded with JSON.stringify.
 */
async function inPage<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

function textsOf(page: Page, selector: string): Promise<string[]> {
  return inPage(page, `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent || '')`);
}

/** Counts canvas pixels that are not white: a rendered page has text on it. (Page code is a string: tests compile without DOM types.) */
async function inkedPixels(page: Page): Promise<number> {
  const count = await inPage<number>(
    page,
    `(() => {
    const canvas = document.getElementById('page-canvas');
    const ctx = canvas && canvas.getContext('2d');
    if (!ctx) return 0;
    const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let inked = 0;
    for (let i = 0; i < data.length; i += 16) if (data[i] < 200) inked++;
    return inked;
  })()`,
  );
  return Number(count);
}

/** Waits until the viewer script has finished (rendered or failed) and reads its outcome from data attributes. */
async function waitForViewer(page: Page): Promise<{ rendered: string; highlights: number }> {
  await page.waitForSelector('#viewer[data-rendered]', { timeout: 30_000 });
  return inPage(
    page,
    `({ rendered: document.getElementById('viewer').dataset.rendered, highlights: Number(document.getElementById('viewer').dataset.highlights || '0') })`,
  );
}

describe('serve in a real browser', { skip: skipWithoutBrowser }, () => {
  let tmp: TempRoot;
  let server: RunningServer;
  let browser: Browser;
  let chromium: HeadlessChromium | undefined;
  let errors: string[];

  before(async () => {
    tmp = await sampleRoot();
    const { config } = loadConfig({ root: tmp.root, env: {} });
    server = await startServer({ root: tmp.root, config, host: '127.0.0.1', port: 0, topK: 8 });
    chromium = await launchHeadless();
    browser = chromium.browser;
  });
  after(async () => {
    await chromium?.close();
    await server?.close();
    tmp.cleanup();
  });

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url)) errors.push(`left the machine: ${r.url()}`);
    });
    await page.setViewport({ width: 1100, height: 1400 });
    await page.goto(url, { waitUntil: 'load' });
    return page;
  }

  it('asks a pasted multi-line question and shows the answer with evidence', async () => {
    const page = await open(server.url);
    await page.type('#q', QUESTION);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    assert.deepEqual(await textsOf(page, '#answer'), ['A']);
    assert.match((await textsOf(page, '.confidence')).join(''), /\d\.\d\d · \S/);
    const cards = await textsOf(page, '.evidence');
    assert.ok(cards.length >= 1);
    assert.ok(
      cards.some((c) => c.includes('上册') && c.includes('基金托管人')),
      cards.join('\n'),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('opens the cited PDF page rendered by pdf.js with the quote highlighted', async () => {
    const page = await open(`${server.url}ask?q=${encodeURIComponent(QUESTION)}`);
    await Promise.all([page.waitForNavigation(), page.click('a.open')]);
    const state = await waitForViewer(page);
    assert.equal(state.rendered, 'true', (await textsOf(page, '#viewer-status')).join(''));
    assert.ok(state.highlights >= 1, 'at least one highlighted line');
    assert.ok((await inkedPixels(page)) > 500, 'the page canvas has text on it');
    const box = await inPage<{ w: number; h: number }>(
      page,
      `(() => { const r = document.querySelector('.highlights .hl').getBoundingClientRect(); return { w: r.width, h: r.height }; })()`,
    );
    assert.ok(box.w > 20 && box.h > 5, JSON.stringify(box));
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('searches with a book filter and browses the TOC to a page', async () => {
    const page = await open(`${server.url}search`);
    await page.type('input[name=q]', '基金托管人');
    await page.select('select[name=book]', '下册');
    await Promise.all([page.waitForNavigation(), page.click('.search-form button[type=submit]')]);
    const wheres = await textsOf(page, '.hit .where');
    assert.ok(wheres.length > 0);
    assert.ok(
      wheres.every((w) => w.startsWith('下册')),
      wheres.join('\n'),
    );

    await page.goto(`${server.url}toc`, { waitUntil: 'load' });
    const titles = await textsOf(page, 'ul.toc a');
    assert.ok(titles.some((t) => t.startsWith('第一章')));
    await Promise.all([page.waitForNavigation(), page.click('ul.toc a')]);
    const state = await waitForViewer(page);
    assert.equal(state.rendered, 'true');
    assert.ok((await inkedPixels(page)) > 500);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import type { RunRecord } from '../../src/evaluate/eval-types.js';
import { readRunFile } from '../../src/evaluate/run-files.js';
import { launchHeadless, skipWithoutBrowser, type HeadlessChromium } from '../helpers/headless-chromium.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { sampleRoot } from '../helpers/sample-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const MODES = ['keyword', 'vector', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
// Offline, no colour, no spinner, and no LLM from the developer's environment.
const env = offlineEnv({ CI: 'true' });

/** Page code is passed as a string because the tests compile without DOM types (the project targets Node). */
async function inPage<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

/** The ids of the cards the page shows now. */
function visibleCards(page: Page): Promise<string[]> {
  return inPage(
    page,
    `[...document.querySelectorAll('#cards .card')].filter((c) => !c.hidden && c.offsetParent !== null).map((c) => c.dataset.id)`,
  );
}

describe('the eval HTML report in a real browser', { skip: skipWithoutBrowser }, () => {
  let tmp: TempRoot;
  let browser: Browser;
  let chromium: HeadlessChromium | undefined;
  let reportUrl: string;
  let errors: string[];
  /** The run files' records by question id and mode: what the page must show, read independently of the renderer. */
  const byId = new Map<string, Partial<Record<Mode, RunRecord>>>();
  let ids: string[] = [];

  before(async () => {
    tmp = await sampleRoot();
    const run = (args: string[]): void => {
      const r = spawnSync(process.execPath, [bin, '--root', tmp.root, ...args], { env, encoding: 'utf8', timeout: 300_000 });
      assert.equal(r.status, 0, r.stderr);
    };
    const html = path.join(tmp.root, 'reports', 'eval.html');
    const runs = path.join(tmp.root, 'runs');
    const evalArgs = [
      'eval',
      path.join(tmp.root, 'rawdoc', 'validation.csv'),
      '--limit',
      '30',
      '--modes',
      MODES.join(','),
      '--run-dir',
      runs,
      '--report-html',
      html,
    ];
    run(evalArgs);
    // On the sample every mode gives the same letters, so the "modes disagree" filter would only ever be empty here,
    // and the first 30 questions are all answered right, so "wrong everywhere" would be too. One vector answer, and one
    // other question in every mode, are changed to a wrong letter in the run files, as a different answerer could have
    // given them, and the report is written again from the run files (--resume reuses every row and answers none).
    const makeWrong = (mode: Mode, pick: (r: RunRecord) => boolean): string | null => {
      const file = path.join(runs, `validation.${mode}.jsonl`);
      let changed: string | null = null;
      const lines = readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => {
          if (changed !== null || !line.startsWith('{')) return line;
          const r = JSON.parse(line) as RunRecord;
          const wrong = r.options?.find((o) => o.letter !== r.gold);
          if (!r.correct || !wrong || !pick(r)) return line;
          changed = r.id;
          return JSON.stringify({ ...r, predicted: wrong.letter, correct: false });
        });
      writeFileSync(file, lines.join('\n'));
      return changed;
    };
    const vectorOnly = makeWrong('vector', () => true);
    assert.ok(vectorOnly !== null, 'no right vector answer to change');
    const everywhere = makeWrong('keyword', (r) => r.id !== vectorOnly);
    assert.ok(everywhere !== null, 'no other right answer to change');
    for (const mode of MODES.filter((m) => m !== 'keyword')) makeWrong(mode, (r) => r.id === everywhere);
    run([...evalArgs, '--resume']);
    for (const mode of MODES) {
      for (const r of readRunFile(path.join(runs, `validation.${mode}.jsonl`)).records) {
        byId.set(r.id, { ...byId.get(r.id), [mode]: r });
      }
    }
    // Run files are in the order answers finished; the sample's ids (S001…) sort in dataset order.
    ids = [...byId.keys()].sort();
    reportUrl = pathToFileURL(html).href;
    chromium = await launchHeadless();
    browser = chromium.browser;
  });
  after(async () => {
    await chromium?.close();
    tmp?.cleanup();
  });

  async function open(hash = ''): Promise<Page> {
    const page = await browser.newPage();
    errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      // A Content-Security-Policy refusal (the filter script blocked) is reported on the console.
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(reportUrl)) errors.push(`requested something else than the report: ${r.url()}`);
    });
    await page.setViewport({ width: 1200, height: 1400 });
    await page.goto(reportUrl + hash, { waitUntil: 'load' });
    return page;
  }

  /** Which filters a question belongs to, by the report's definitions (wrong = not right), from the run records. */
  function expectedFilters(): Map<string, string[]> {
    const keep = new Map<string, string[]>();
    const add = (key: string, id: string): void => {
      keep.set(key, [...(keep.get(key) ?? []), id]);
    };
    for (const id of ids) {
      const records = byId.get(id) ?? {};
      const wrong = MODES.filter((m) => records[m]?.correct === false);
      add('all', id);
      if (wrong.length > 0) add('wrong-any', id);
      if (wrong.length === 1) add(`wrong-only-${wrong[0]}`, id);
      if (wrong.length === MODES.length) add('wrong-all', id);
      if (wrong.length > 0 && wrong.length < MODES.length) add('disagree', id);
      if (wrong.length === 0) add('right-all', id);
      if (MODES.some((m) => records[m]?.predicted === '')) add('abstained-any', id);
    }
    return keep;
  }

  it('leads with accuracy per mode and the wrong questions: both on the first screen at 1280×800, statistics below', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(reportUrl, { waitUntil: 'load' });
    const layout = await inPage<{
      accuracyBottom: number;
      first: { id: string; top: number; wrong: boolean } | null;
      stats: number;
      cards: number;
    }>(
      page,
      `(() => {
          const first = [...document.querySelectorAll('#cards .card')].find((c) => !c.hidden);
          return {
            accuracyBottom: document.getElementById('accuracy').getBoundingClientRect().bottom,
            first: first ? { id: first.dataset.id, top: first.getBoundingClientRect().top, wrong: first.classList.contains('has-wrong') } : null,
            stats: document.getElementById('statistics').getBoundingClientRect().top,
            cards: document.getElementById('cards').getBoundingClientRect().top,
          };
        })()`,
    );
    const wrong = expectedFilters().get('wrong-any') ?? [];
    assert.ok(layout.accuracyBottom < 800, JSON.stringify(layout));
    // The first card shown is the first wrong question, and its head is on the first screen.
    assert.equal(layout.first?.id, wrong[0]);
    assert.ok(layout.first?.wrong === true && layout.first.top < 800 - 100, JSON.stringify(layout));
    assert.ok(layout.stats > layout.cards, 'the statistics come after the questions');
    // Opened without a filter, the page shows the wrong questions.
    assert.deepEqual(await visibleCards(page), wrong);
    assert.equal(await inPage<string>(page, `document.querySelector('#filters [aria-pressed=true]').dataset.filter`), 'wrong-any');
    await page.close();
  });

  it('without scripts (as serve shows it, its CSP allowing none) the wrong questions show first, and a link shows all', async () => {
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(reportUrl, { waitUntil: 'load' });
    const wrong = expectedFilters().get('wrong-any') ?? [];
    assert.deepEqual(await visibleCards(page), wrong);
    // The filter buttons need the script: hidden rather than dead.
    assert.equal(await inPage<boolean>(page, `document.getElementById('filters').offsetParent === null`), true);
    await page.click('a[href="#all-questions"]');
    assert.deepEqual(await visibleCards(page), ids);
    await page.click('a[href="#questions"]');
    assert.deepEqual(await visibleCards(page), wrong);
    await page.close();
  });

  it("the reliability diagram's legend overlaps none of its points", async () => {
    const page = await open();
    const overlaps = await inPage<string[]>(
      page,
      `(() => {
          const svg = document.querySelector('svg[aria-label="reliability diagram"]');
          const boxes = (sel) => [...svg.querySelectorAll(sel)].map((e) => e.getBoundingClientRect());
          const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          const out = [];
          const legend = boxes('.legend-item');
          if (legend.length === 0) out.push('no legend');
          for (const l of legend) for (const c of boxes('circle')) if (hit(l, c)) out.push(JSON.stringify([l, c]));
          return out;
        })()`,
    );
    assert.deepEqual(overlaps, []);
    await page.close();
  });

  it("shows one card per question, in dataset order, with each mode's result and confidence in words", async () => {
    const page = await open('#filter=all');
    assert.equal(ids.length, 30);
    assert.deepEqual(await visibleCards(page), ids);
    const rows = await inPage<string[][]>(
      page,
      `[...document.querySelectorAll('#cards .card')].map((c) => [...c.querySelectorAll('.results tr')].map((tr) => tr.dataset.mode + ' ' + tr.className + ' ' + tr.querySelector('.letter').textContent + ' ' + tr.querySelector('.n').textContent))`,
    );
    rows.forEach((cardRows, i) => {
      const records = byId.get(ids[i] ?? '') ?? {};
      assert.deepEqual(
        cardRows,
        MODES.map((m) => {
          const r = records[m] as RunRecord;
          const outcome = r.correct ? 'right' : r.predicted === '' ? 'abstained' : 'wrong';
          const letter = r.predicted || (r.guess ? `— (guess ${r.guess})` : '—');
          return `${m} ${outcome} ${letter} ${r.confidence.toFixed(2)} ${r.confidence_words ?? ''}`;
        }),
      );
    });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("marks the gold option and each mode's pick on the options, and shows the quotes with marked terms", async () => {
    const page = await open();
    const cards = await inPage<Array<{ id: string; options: number; gold: string[]; picks: Record<string, string[]>; marks: number }>>(
      page,
      `[...document.querySelectorAll('#cards .card')].map((c) => {
          const picks = {};
          for (const p of c.querySelectorAll('.opt .pick')) (picks[p.dataset.mode] = picks[p.dataset.mode] || []).push(p.closest('.opt').dataset.letter);
          return {
            id: c.dataset.id,
            options: c.querySelectorAll('.opt').length,
            gold: [...c.querySelectorAll('.opt.gold')].map((o) => o.dataset.letter),
            picks,
            marks: c.querySelectorAll('.quote mark').length,
          };
        })`,
    );
    for (const card of cards) {
      const records = byId.get(card.id) ?? {};
      const any = records.hybrid as RunRecord;
      assert.equal(card.options, any.options?.length, card.id);
      assert.deepEqual(card.gold, [...any.gold], card.id);
      for (const m of MODES) {
        const r = records[m] as RunRecord;
        assert.deepEqual(card.picks[m] ?? [], [...(r.predicted || r.guess || '')], `${card.id} ${m}`);
      }
    }
    // A card shows marked terms exactly when some mode cited a quote with highlights.
    for (const card of cards) {
      const records = byId.get(card.id) ?? {};
      const highlighted = MODES.some((m) => records[m]?.evidence.some((e) => (e.highlights ?? []).length > 0));
      assert.equal(card.marks > 0, highlighted, card.id);
    }
    assert.ok(cards.some((c) => c.marks > 0));
    await page.close();
  });

  it('filters: each button shows exactly its questions, and its count is what it shows', async () => {
    const page = await open();
    const expected = expectedFilters();
    const buttons = await inPage<Array<{ key: string; count: number }>>(
      page,
      `[...document.querySelectorAll('#filters button')].map((b) => ({ key: b.dataset.filter, count: Number(b.querySelector('.count').textContent) }))`,
    );
    const keys = buttons.map((b) => b.key);
    for (const k of [
      'all',
      'wrong-any',
      'wrong-only-keyword',
      'wrong-only-vector',
      'wrong-only-hybrid',
      'wrong-all',
      'disagree',
      'right-all',
    ])
      assert.ok(keys.includes(k), k);
    // Among the sample's first 30 questions some are wrong everywhere, some wrong in only some modes, some right everywhere.
    for (const k of ['wrong-any', 'wrong-all', 'disagree', 'right-all']) assert.ok((expected.get(k) ?? []).length > 0, k);
    for (const b of buttons) {
      await page.click(`#filters button[data-filter="${b.key}"]`);
      const shown = await visibleCards(page);
      assert.deepEqual(shown, expected.get(b.key) ?? [], b.key);
      assert.equal(b.count, shown.length, b.key);
      assert.equal(await inPage<string>(page, `document.getElementById('shown').textContent`), String(shown.length));
      assert.equal(await inPage<string>(page, `document.querySelector('#filters [aria-pressed=true]').dataset.filter`), b.key);
    }
    await page.click('#filters button[data-filter="all"]');
    assert.equal((await visibleCards(page)).length, ids.length);
    assert.deepEqual(errors, []);
    await page.close();
    // A link can name the filter.
    const linked = await open('#filter=wrong-any');
    assert.deepEqual(await visibleCards(linked), expected.get('wrong-any'));
    await linked.close();
  });

  it('draws the chance line at 1/4 on the accuracy chart, between the 20% and 40% gridlines', async () => {
    const page = await open();
    const chart = await inPage<{ chance: string; line: number; label: string; at20: number; at40: number }>(
      page,
      `(() => {
          const svg = document.querySelector('svg[aria-label^="accuracy per mode"]');
          const g = svg.querySelector('g.chance');
          const tick = (t) => [...svg.querySelectorAll('text')].find((x) => x.textContent === t).getBoundingClientRect().top;
          return { chance: g.dataset.chance, line: g.querySelector('line').getBoundingClientRect().top, label: g.querySelector('text').textContent, at20: tick('20%'), at40: tick('40%') };
        })()`,
    );
    // Every sample question has four options and one answer.
    assert.equal(chart.chance, '0.2500');
    assert.equal(chart.label, '随机 chance 25.0%');
    assert.ok(chart.line > chart.at40 && chart.line < chart.at20, JSON.stringify(chart));
    assert.match(await inPage<string>(page, `document.getElementById('chance-note').textContent`), /chance level 25\.0%/);
    await page.close();
  });

  it("breaks accuracy down by chapter (gold chapters of the sample), per mode, adding up to each mode's totals", async () => {
    const page = await open();
    const rows = await inPage<string[][]>(
      page,
      `[...document.querySelectorAll('#chapters tr')].slice(1).map((tr) => [...tr.cells].map((td) => td.textContent))`,
    );
    assert.ok(rows.length >= 2);
    const gold = byId.get(ids[0] ?? '')?.hybrid?.gold_evidence;
    assert.ok(
      rows.some((r) => r[0] === `${gold?.book} › ${gold?.chapter}`),
      JSON.stringify(rows),
    );
    assert.equal(
      rows.reduce((s, r) => s + Number(r[1]), 0),
      ids.length,
    );
    MODES.forEach((m, i) => {
      const fractions = rows.map((r) => /\((\d+)\/(\d+)\)/.exec(r[3 + i] ?? '') ?? ['', '0', '0']);
      const right = [...byId.values()].filter((x) => x[m]?.correct).length;
      assert.equal(
        fractions.reduce((s, f) => s + Number(f[1]), 0),
        right,
        m,
      );
      assert.equal(
        fractions.reduce((s, f) => s + Number(f[2]), 0),
        ids.length,
        m,
      );
    });
    // The sample gives gold evidence for every row, so every chapter comes from it.
    assert.ok(
      rows.every((r) => /^gold \d+$/.test(r[2] ?? '')),
      JSON.stringify(rows.map((r) => r[2])),
    );
    // Clicking a chapter shows exactly its questions.
    for (const [i, row] of rows.entries()) {
      await page.click(`#chapters tr:nth-child(${i + 2}) button`);
      const expected = ids.filter((id) => {
        const g = byId.get(id)?.hybrid?.gold_evidence;
        return `${g?.book} › ${g?.chapter}` === row[0];
      });
      assert.deepEqual(await visibleCards(page), expected, row[0]);
      assert.equal(await inPage<string>(page, `document.getElementById('shown').textContent`), row[1]);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('the written file is one self-contained page', () => {
    const html = readFileSync(new URL(reportUrl), 'utf8');
    assert.doesNotMatch(html, /<script[^>]*\bsrc=|<link|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });
});

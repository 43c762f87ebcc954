import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { citation, toEvidence } from '../../src/answer/evidence.js';
import { articlesInSpan, articleStarts } from '../../src/text/articles.js';
import { formatCitation, quoteLocation, quotePages } from '../../src/text/citation.js';
import { kindLevelsFromOutline, legacyHeadingFields, numberingKind, pushHeading, type OpenHeading } from '../../src/ingest/headings.js';
import { readNote } from '../../src/ingest/load-notes.js';
import { segmentsToChunks } from '../../src/ingest/make-chunks.js';
import { parsePdf } from '../../src/ingest/parse-pdf.js';
import { parseToc, tocLevels } from '../../src/ingest/parse-toc.js';
import type { PdfLine, PdfPage, RawPdf } from '../../src/ingest/pdf-types.js';
import { findRunningLines } from '../../src/ingest/running-lines.js';
import { structurePdf } from '../../src/ingest/structure-pdf.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { rawPdf } from '../helpers/raw-pdf.js';

const line = (text: string, y: number, size = 10.5, x = 84): PdfLine => ({
  text,
  x,
  y,
  right: x + text.length * size,
  size,
  bold: false,
  column: 0,
});
const page = (index: number, lines: PdfLine[]): PdfPage => ({ index, width: 595, height: 842, lines, itemCount: lines.length });
/** A statute-book page: running head, the given lines, and the footer `‒ N ‒` (U+2012, as Chromium prints it). */
const bookPage = (index: number, lines: PdfLine[]): PdfPage =>
  page(index, [line('中华人民共和国民法典', 807, 9, 253), ...lines, line(`‒ ${index} ‒`, 27, 9, 288)]);
const CHUNKING = { minChars: 300, maxChars: 800, overlap: 100 };

/**
 * A miniature civil code: a 目录 without page numbers over two pages (编 at one indent; 分编 and 章 at the next),
 * then a body of 编 > 分编 > 章 > 节 where every 编 restarts at 第一章 and the 物权编's chapters are not in the 目录.
 */
function miniCode(): RawPdf {
  const toc = (title: string, y: number, top = false): PdfLine => line(title, y, top ? 10.5 : 9.5, top ? 93 : 112);
  return {
    numPages: 8,
    pageLabels: null,
    bookmarks: [],
    warnings: [],
    pages: [
      page(1, [line('中华人民共和国民法典', 600, 22, 150)]),
      bookPage(2, [
        line('目 录', 759, 18, 271),
        toc('总则', 729, true),
        toc('第一章 基本规定', 714),
        toc('第二章 自然人', 698),
        toc('第二编 物权编', 683, true),
        toc('第一分编 通则', 668),
        toc('第二分编 所有权', 652),
      ]),
      bookPage(3, [
        line('第九十九章 不存在', 768, 9.5, 112),
        toc('第三编 合同编', 753, true),
        toc('第一章 一般规定', 738),
        toc('第二章 合同的订立', 722),
      ]),
      bookPage(4, [
        line('总则', 759, 18, 280),
        line('第一章 基本规定', 726, 13, 251),
        line('第一条 为了保护民事主体的合法权益，制定本法。', 699),
      ]),
      bookPage(5, [
        line('第二章 自然人', 759, 13, 258),
        line('第一节 民事权利能力和民事行为能力', 726, 11, 209),
        line('第十三条 自然人从出生时起到死亡时止，具有民事权利能力。', 699),
      ]),
      bookPage(6, [
        line('第二编 物权编', 759, 18, 242),
        line('第一分编 通则', 726, 13, 258),
        line('第一章 一般规定', 699, 11, 258),
        line('第二百零五条 本编调整因物的归属和利用产生的民事关系。', 672),
      ]),
      bookPage(7, [
        line('第二分编 所有权', 759, 13, 258),
        line('第四章 一般规定', 726, 11, 258),
        line('第二百四十条 所有权人对自己的不动产或者动产，依法享有占有、使用、收益和处分的权利。', 699),
      ]),
      bookPage(8, [
        line('第三编 合同编', 759, 18, 242),
        line('第一章 一般规定', 726, 13, 258),
        line('第四百六十三条 本编调整因合同产生的民事关系。', 699),
        line('第二章 合同的订立', 672, 13, 258),
        line('第四百七十一条 当事人订立合同，可以采取要约、承诺方式或者其他方式。', 645),
      ]),
    ],
  };
}

void describe('a 目录 without page numbers, mapped to the body headings', () => {
  const s = structurePdf(miniCode(), { book: '民法典', source: 'rawdoc/民法典.pdf' });
  void it('reads both 目录 pages and none of the body', () => {
    assert.deepEqual(s.tocPages, [2, 3]);
  });
  void it('places each entry on the page where its heading starts, never on the 目录 page, with the body headings it omits', () => {
    assert.deepEqual(
      s.outline.map((o) => [o.title, o.level, o.page, o.pdf_page]),
      [
        ['总则', 1, '4', 4],
        ['第一章 基本规定', 3, '4', 4],
        ['第二章 自然人', 3, '5', 5],
        // Body headings the 目录 does not list join the outline where they stand.
        ['第一节 民事权利能力和民事行为能力', 4, '5', 5],
        ['第二编 物权编', 1, '6', 6],
        ['第一分编 通则', 2, '6', 6],
        ['第一章 一般规定', 3, '6', 6],
        ['第二分编 所有权', 2, '7', 7],
        ['第四章 一般规定', 3, '7', 7],
        // The line at the top of the second 目录 page is a title, not a running head, although it is set small.
        ['第九十九章 不存在', 3, null, null],
        ['第三编 合同编', 1, '8', 8],
        // The 物权编's own 第一章 一般规定 (page 6) is not in the 目录: this entry is the 合同编's.
        ['第一章 一般规定', 3, '8', 8],
        ['第二章 合同的订立', 3, '8', 8],
      ],
    );
  });
  void it('keeps the whole heading path on every segment, 编 included', () => {
    const byArticle = (a: string): string[] => s.segments.find((g) => g.text.startsWith(a))?.headings ?? [];
    assert.deepEqual(byArticle('第一条'), ['总则', '第一章 基本规定']);
    assert.deepEqual(byArticle('第十三条'), ['总则', '第二章 自然人', '第一节 民事权利能力和民事行为能力']);
    assert.deepEqual(byArticle('第二百零五条'), ['第二编 物权编', '第一分编 通则', '第一章 一般规定']);
    assert.deepEqual(byArticle('第二百四十条'), ['第二编 物权编', '第二分编 所有权', '第四章 一般规定']);
    assert.deepEqual(byArticle('第四百七十一条'), ['第三编 合同编', '第二章 合同的订立']);
  });
  void it('gives chunks the path, the compatibility fields and the article numbers', () => {
    const chunks = segmentsToChunks(
      s.segments,
      { book: '民法典', source: 'rawdoc/民法典.pdf', chunkType: 'text', labels: s.labels },
      CHUNKING,
    );
    const c = chunks.find((x) => x.text.startsWith('第二百零五条'));
    assert.deepEqual(c?.headings, ['第二编 物权编', '第一分编 通则', '第一章 一般规定']);
    assert.deepEqual([c?.chapter, c?.section, c?.subsection], ['第二编 物权编', '第一分编 通则', '第一章 一般规定']);
    assert.deepEqual(c?.articles, ['第二百零五条']);
    assert.equal(
      formatCitation(c ?? { book: '', chapter: '', section: '', figure_ref: '', page_start: '', page_end: '' }),
      '民法典 | 第二编 物权编 | 第一分编 通则 | 第一章 一般规定 | 第二百零五条 | p.6',
    );
  });
});

void describe('TOC levels and kind levels', () => {
  void it('nests 分编 and 章 listed at one indent under their 编, and an unnumbered title at the 编 indent with the 编', () => {
    const levels = tocLevels([
      { title: '总则', x: 93 },
      { title: '第一章 基本规定', x: 112 },
      { title: '第二编 物权编', x: 93 },
      { title: '第一分编 通则', x: 112 },
    ]);
    assert.deepEqual(levels, [1, 3, 1, 2]);
  });
  void it('reads a book whose chapters are whole laws by indent: the same 第一章 at two levels', () => {
    const levels = tocLevels([
      { title: '第一章 证券投资基金法', x: 72 },
      { title: '第一章 总则', x: 90 },
      { title: '第二章 私募投资基金监督管理条例', x: 72 },
      { title: '第一章 总则', x: 90 },
    ]);
    assert.deepEqual(levels, [1, 2, 1, 2]);
  });
  void it('recognises 分编 and puts kinds the outline does not list below the ones it does', () => {
    assert.equal(numberingKind('第一分编 通则'), 'subpart');
    assert.equal(numberingKind('第二编 物权编'), 'part');
    const levels = kindLevelsFromOutline([
      { title: '第二编 物权编', level: 1 },
      { title: '第一分编 通则', level: 2 },
      { title: '第一章 一般规定', level: 2 },
    ]);
    assert.deepEqual([levels.part, levels.subpart, levels.chapter, levels.section], [1, 2, 3, 4]);
  });
  void it('parses a title-only 目录 into entries without pages', () => {
    const pages = miniCode().pages;
    // What findRunningLines drops on these pages: the running head (first line) and the footer (last line).
    const dropped = (p: number, i: number): boolean => p > 1 && (i === 0 || i === (pages[p - 1]?.lines.length ?? 0) - 1);
    const { entries, tocPages } = parseToc(pages, dropped);
    assert.deepEqual(tocPages, [2, 3]);
    assert.ok(entries.every((e) => e.page === null));
    assert.deepEqual(
      entries.slice(0, 3).map((e) => e.title),
      ['总则', '第一章 基本规定', '第二章 自然人'],
    );
  });
});

void describe('heading path', () => {
  void it('closes every open heading at the new level or deeper', () => {
    let path: OpenHeading[] = [];
    for (const h of [
      { title: '第五编 婚姻家庭编', level: 1 },
      { title: '第一章 一般规定', level: 3 },
      { title: '第二章 结婚', level: 3 },
    ]) {
      path = pushHeading(path, h);
    }
    assert.deepEqual(
      path.map((h) => h.title),
      ['第五编 婚姻家庭编', '第二章 结婚'],
    );
    path = pushHeading(path, { title: '第六编 继承编', level: 1 });
    assert.deepEqual(
      path.map((h) => h.title),
      ['第六编 继承编'],
    );
  });
  void it('derives chapter, section and subsection from the path', () => {
    assert.deepEqual(legacyHeadingFields(['第五编 婚姻家庭编', '第二章 结婚']), {
      chapter: '第五编 婚姻家庭编',
      section: '第二章 结婚',
      subsection: '',
    });
    assert.deepEqual(legacyHeadingFields(['编', '分编', '章', '节']), { chapter: '编', section: '分编', subsection: '节' });
  });
  void it('gives notes the full path of their Markdown headings', () => {
    const [seg] = readNote(
      '# 证券法\n## 第一章 总则\n### 第一节 通则\n#### 一、目的\n第一条 为了规范证券发行和交易行为。\n',
      true,
    ).segments;
    assert.deepEqual(seg?.headings, ['证券法', '第一章 总则', '第一节 通则', '一、目的']);
    assert.deepEqual([seg?.chapter, seg?.section, seg?.subsection], ['证券法', '第一章 总则', '一、目的']);
  });
});

void describe('footers on the last page of a part', () => {
  void it('drops the footer of a nearly blank page, where it is also among the top two lines', () => {
    const pages: PdfPage[] = [];
    for (let i = 1; i <= 5; i++)
      pages.push(page(i, [line('中华人民共和国证券投资基金法', 792, 9, 181), line(`第${i}条 正文。`, 700), line(`– ${i} –`, 46, 9, 290)]));
    // The blank verso after the law's last page: the running head and the footer only.
    pages.push(page(6, [line('中华人民共和国证券投资基金法', 792, 9, 181), line('– 6 –', 46, 9, 290)]));
    const running = findRunningLines(pages, 10.5);
    assert.deepEqual([...(running.drop.get(6) ?? [])].sort(), [0, 1]);
    assert.deepEqual(running.numbers.get(6), { kind: 'arabic', value: 6 });
  });
  void it('keeps the footer out of the body text of the law that ends before it', () => {
    const raw: RawPdf = {
      numPages: 6,
      pageLabels: null,
      bookmarks: [],
      warnings: [],
      pages: [
        ...[1, 2, 3, 4].map((i) =>
          page(i, [
            line('中华人民共和国证券投资基金法', 792, 9, 181),
            line(`第${i}条 基金财产独立于基金管理人的固有财产。`, 700),
            line(`– ${i} –`, 46, 9, 290),
          ]),
        ),
        page(5, [
          line('中华人民共和国证券投资基金法', 792, 9, 181),
          line('第一百五十四条 本法自2013年6月1日起施行。', 700),
          line('– 5 –', 46, 9, 290),
        ]),
        page(6, [line('中华人民共和国证券投资基金法', 792, 9, 181), line('– 6 –', 46, 9, 290)]),
      ],
    };
    const s = structurePdf(raw, { book: 'b', source: 'b.pdf' });
    const last = s.segments[s.segments.length - 1];
    assert.ok(last?.text.endsWith('本法自2013年6月1日起施行。'), last?.text);
  });
});

void describe('article numbers and the page of a quote', () => {
  void it('finds article headings at line starts, not references that wrapped there', () => {
    const text = '第一条 为了规范。\n第二条 适用本法。\n第一百四十二条第一款的规定不适用。\n第十条之一 补充规定。';
    assert.deepEqual(
      articleStarts(text).map((a) => a.article),
      ['第一条', '第二条', '第十条之一'],
    );
    const starts = articleStarts(text);
    // A span starting inside 第一条 and ending inside 第二条 covers both.
    assert.deepEqual(articlesInSpan(starts, 3, 14), ['第一条', '第二条']);
    assert.deepEqual(articlesInSpan([], 0, 10), []);
  });
  void it('cites the page a quote is on when the chunk spans a page break', () => {
    const raw: RawPdf = {
      numPages: 3,
      pageLabels: null,
      bookmarks: [],
      warnings: [],
      pages: [1, 2, 3].map((i) =>
        page(i, [
          line('基金法', 792, 9, 181),
          ...(i === 2 ? [line('第三章 基金托管人', 760, 14, 200)] : []),
          line(
            i === 2
              ? '第三十二条 基金托管人由依法设立的商业银行担任。'
              : i === 3
                ? '第三十三条 基金托管人应当具备下列条件：净资产和资本充足率符合有关规定。'
                : '第三十一条 前文。',
            700,
          ),
          line(`– ${i + 10} –`, 46, 9, 290),
        ]),
      ),
    };
    const s = structurePdf(raw, { book: '基金法', source: 'f.pdf' });
    const chunks = segmentsToChunks(s.segments, { book: '基金法', source: 'f.pdf', chunkType: 'text', labels: s.labels }, CHUNKING);
    const c = chunks.find((x) => x.text.includes('第三十二条'));
    assert.ok(c);
    assert.deepEqual([c.page_start, c.page_end], ['12', '13']);
    assert.deepEqual(
      c.page_breaks.map((b) => [b.page, b.pdf_page, c.text.slice(b.offset, b.offset + 5)]),
      [['13', 3, '第三十三条']],
    );
    assert.deepEqual(c.articles, ['第三十二条', '第三十三条']);
    assert.deepEqual(quotePages(c, '基金托管人由依法设立的 商业银行担任'), { page_start: '12', page_end: '12' });
    assert.deepEqual(quotePages(c, '基金托管人应当具备…'), { page_start: '13', page_end: '13' });
    assert.deepEqual(quotePages(c, '担任。第三十三条'), { page_start: '12', page_end: '13' });
    assert.deepEqual(quotePages(c, '不在这一块里的话'), { page_start: '12', page_end: '13' });
    // A quote with an inner ellipsis runs from its first part to its last, each found after the one before.
    assert.deepEqual(quotePages(c, '商业银行担任…应当具备下列条件'), { page_start: '12', page_end: '13' });
    assert.deepEqual(quotePages(c, '应当具备下列条件…商业银行担任'), { page_start: '12', page_end: '13' });
    assert.deepEqual(quotePages(c, '应当具备下列条件…资本充足率'), { page_start: '13', page_end: '13' });
    assert.equal(formatCitation(c), '基金法 | 第三章 基金托管人 | 第三十二条、第三十三条 | p.12-13');
    // Evidence cites the quote's own page and article.
    assert.equal(formatCitation({ ...c, ...quoteLocation(c, '商业银行担任') }), '基金法 | 第三章 基金托管人 | 第三十二条 | p.12');
    assert.deepEqual(quoteLocation(c, '应当具备下列条件').articles, ['第三十三条']);
    // A chunk that starts inside an article: a quote before the next heading belongs to the running article.
    const tail = {
      ...c,
      text: c.text.slice(3),
      articles: c.articles,
      page_breaks: c.page_breaks.map((b) => ({ ...b, offset: b.offset - 3 })),
    };
    assert.deepEqual(quoteLocation(tail, '基金托管人由').articles, ['第三十二条']);
    // What ask shows: the evidence of a quote from the chunk's second page cites that page and that article.
    const ev = toEvidence(c, '第三十三条 基金托管人应当具备下列条件：净资产和资本充足率符合有关规定。');
    assert.equal(citation(ev), '基金法 | 第三章 基金托管人 | 第三十三条 | p.13');
  });
});

/**
 * A real PDF whose text layer maps glyphs to radicals, as Chromium/Skia writes it: the font's ToUnicode CMap sends
 * codes to ⼈ (U+2F08, Kangxi) and ⺠ (U+2EA0, CJK Radicals Supplement) instead of 人 and 民.
 */
function radicalPdf(): Buffer {
  const chars = [...'第一章总则条为了保护的事主体能中华共和国法典。⼈⺠⾏⼒ '];
  const code = (ch: string): string => (0x21 + chars.indexOf(ch)).toString(16).toUpperCase().padStart(2, '0');
  const hex = (s: string): string => `<${[...s].map(code).join('')}>`;
  const cmap = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def /CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <00> <FF> endcodespacerange',
    `${chars.length} beginbfchar`,
    ...chars.map((ch) => `<${code(ch)}> <${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`),
    'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const content = [
    `BT /F1 18 Tf 250 760 Td ${hex('第一章 总则')} Tj ET`,
    `BT /F1 10 Tf 72 700 Td ${hex('第一条 为了保护⼈⺠的⺠事主体⾏为能⼒。')} Tj ET`,
    `BT /F1 10 Tf 72 680 Td ${hex('中华⼈⺠共和国⺠法典。')} Tj ET`,
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 33 /LastChar ${32 + chars.length} /Widths [${chars.map(() => 1000).join(' ')}] /ToUnicode 6 0 R >>`,
    `<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`,
    `<< /Length ${Buffer.byteLength(cmap)} >>\nstream\n${cmap}\nendstream`,
  ];
  return rawPdf(objects, 1);
}

void describe('a PDF whose text layer carries CJK radicals', () => {
  void it('comes out with standard ideographs in headings and text', async () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'radicals.pdf');
      writeFileSync(file, radicalPdf());
      const raw = await parsePdf(file, { pageTimeoutMs: 10_000, fileTimeoutMs: 30_000 });
      // pdf.js itself hands out the radicals: the fixture reproduces the fault.
      assert.ok(
        raw.pages[0]?.lines.some((l) => l.text.includes('⺠')),
        JSON.stringify(raw.pages[0]?.lines.map((l) => l.text)),
      );
      const s = structurePdf(raw, { book: 'b', source: 'radicals.pdf' });
      const chunks = segmentsToChunks(s.segments, { book: 'b', source: 'radicals.pdf', chunkType: 'text', labels: s.labels }, CHUNKING);
      const all = JSON.stringify({ chunks, outline: s.outline });
      assert.doesNotMatch(all, /[\u2E80-\u2FDF]/u);
      assert.equal(chunks[0]?.text, '第一条 为了保护人民的民事主体行为能力。\n中华人民共和国民法典。');
      assert.deepEqual(chunks[0]?.headings, ['第一章 总则']);
    } finally {
      tmp.cleanup();
    }
  });
});

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { segmentsToChunks } from '../../src/ingest/make-chunks.js';
import { parsePdf } from '../../src/ingest/parse-pdf.js';
import { structurePdf } from '../../src/ingest/structure-pdf.js';
import { makeTempRoot } from '../helpers/temp-root.js';

const FONT = '/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc';
const FONT_NAME = 'NotoSerifCJKsc-Regular';
const PAGE: [number, number] = [595, 842];
const LEFT = 72;
const PER_LINE = 40;
const BODY = 10.5;
const LAW = '中华人民共和国测试法';

/** One printed line: its text, size and left edge. */
interface Line {
  text: string;
  size: number;
  x: number;
}

const heading = (text: string, size = 15): Line => ({ text, size, x: 297 - (text.length * size) / 2 });

/** A paragraph wrapped at 40 characters, every line but the last reaching the right margin. */
function para(text: string): Line[] {
  const out: Line[] = [];
  for (let i = 0; i < text.length; i += PER_LINE) out.push({ text: text.slice(i, i + PER_LINE), size: BODY, x: LEFT });
  return out;
}

const filler = (n: number): string => '基金托管人应当按照规定妥善保管基金财产并履行相关职责，'.repeat(n).replace(/，$/u, '。');

/**
 * A statute book laid out as 基金从业法律法规汇编 is: a 目录 of the chapters (not their 节), then body pages whose running
 * head is the law's title on even pages and the current chapter on odd pages, and a footer `– N –`. 第二章 fits on two
 * pages, so its running head is printed once, in the middle of 第四条 (which crosses the page); 第三章, the last,
 * starts at the top of a page whose running head repeats its title.
 */
function bookPages(): { head: string | null; footer: string | null; lines: Line[] }[] {
  return [
    {
      head: null,
      footer: null,
      lines: [
        heading('目 录', 16),
        { text: '第一章 总则 . . . . . . . . . . . . . . . . . . . . 1', size: BODY, x: LEFT },
        { text: '第二章 基金托管人 . . . . . . . . . . . . . . . . . 2', size: BODY, x: LEFT },
        { text: '第三章 法律责任 . . . . . . . . . . . . . . . . . . 5', size: BODY, x: LEFT },
      ],
    },
    {
      head: '第一章 总则',
      footer: '– 1 –',
      lines: [
        heading(LAW, 18),
        heading('第一章 总则'),
        ...para(`第一条 为了规范测试活动，${filler(3)}`),
        ...para(`第二条 ${filler(4)}`),
        ...para(`第三条 ${filler(4)}`),
      ],
    },
    {
      head: LAW,
      footer: '– 2 –',
      lines: [
        ...para(`第三条之一 ${filler(2)}`),
        heading('第二章 基金托管人'),
        heading('第一节 托管职责', 12),
        ...para('第四条 基金托管人应当履行下列职责：'),
        ...para('（一）安全保管基金财产；'),
        ...para('（二）按照规定开设基金财产的资金账户和证券账户；'),
        ...para('（三）对所托管的不同基金财产分别设置账户；'),
        ...para('（四）保存基金托管业务活动的记录、账册、报表和其他相关资料；'),
      ],
    },
    {
      head: '第二章 基金托管人',
      footer: '– 3 –',
      lines: [
        ...para('（五）按照基金合同的约定，根据基金管理人的投资指令，及时办理清算、交割事宜；'),
        ...para('（六）办理与基金托管业务活动有关的信息披露事项。'),
        ...para(`第五条 ${filler(3)}`),
      ],
    },
    {
      head: LAW,
      footer: '– 4 –',
      lines: [...para(`第六条 ${filler(3)}`), ...para(`第六条之一 ${filler(3)}`)],
    },
    {
      head: '第三章 法律责任',
      footer: '– 5 –',
      lines: [heading('第三章 法律责任'), ...para(`第七条 违反本法规定的，${filler(2)}`), ...para(`第八条 ${filler(2)}`)],
    },
  ];
}

function writeBook(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, size: PAGE, margin: 0 });
    const parts: Buffer[] = [];
    doc.on('data', (c) => parts.push(c));
    doc.on('end', () => {
      writeFileSync(file, Buffer.concat(parts));
      resolve();
    });
    doc.on('error', reject);
    doc.registerFont('cjk', FONT, FONT_NAME);
    doc.font('cjk');
    for (const p of bookPages()) {
      doc.addPage({ size: PAGE, margin: 0 });
      if (p.head) doc.fontSize(9).text(p.head, 297 - (p.head.length * 9) / 2, 40, { lineBreak: false });
      let y = 80;
      for (const l of p.lines) {
        doc.fontSize(l.size).text(l.text, l.x, y, { lineBreak: false });
        y += l.size > BODY ? 2.4 * l.size : 18;
      }
      if (p.footer) doc.fontSize(9).text(p.footer, 280, 790, { lineBreak: false });
    }
    doc.end();
  });
}

void describe('page furniture and headings of a typeset statute book (real PDF)', { skip: existsSync(FONT) ? false : `no ${FONT}` }, () => {
  let parsed: Promise<ReturnType<typeof structurePdf>> | null = null;
  const load = (): Promise<ReturnType<typeof structurePdf>> => (parsed ??= parseBook());
  const parseBook = async (): Promise<ReturnType<typeof structurePdf>> => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'book.pdf');
      await writeBook(file);
      const raw = await parsePdf(file, { pageTimeoutMs: 10_000, fileTimeoutMs: 30_000 });
      return structurePdf(raw, { book: '测试法', source: 'rawdoc/book.pdf' });
    } finally {
      tmp.cleanup();
    }
  };

  void it('keeps a running head that names a chapter once out of the passage crossing its page', async () => {
    const s = await load();
    const chunks = segmentsToChunks(
      s.segments,
      { book: '测试法', source: 'rawdoc/book.pdf', chunkType: 'text', labels: s.labels },
      { minChars: 300, maxChars: 800, overlap: 100 },
    );
    const c = chunks.find((x) => x.text.startsWith('第四条'));
    assert.ok(c, JSON.stringify(chunks.map((x) => x.text.slice(0, 10))));
    assert.match(c.text, /记录、账册、报表和其他相关资料；\n（五）按照基金合同/u);
    // No running head, law title or footer anywhere inside a passage.
    for (const x of chunks) {
      const inner = x.text.split('\n').slice(1);
      for (const l of inner)
        assert.ok(!/^(第[一二三]章 |中华人民共和国测试法$|– \d+ –$)/u.test(l), `${JSON.stringify(l)} in ${JSON.stringify(x.text)}`);
    }
    // The chapter that ends before the last chapter's first page ends with its own text.
    const before = chunks.filter((x) => x.text.includes('第六条之一')).at(-1);
    assert.ok(before?.text.endsWith('职责。'), before?.text);
  });

  void it('puts every body heading in the outline in its place, the 节 the 目录 leaves out included', async () => {
    const s = await load();
    assert.deepEqual(
      s.outline.map((o) => [o.title, o.page]),
      [
        ['第一章 总则', '1'],
        ['第二章 基金托管人', '2'],
        ['第一节 托管职责', '2'],
        ['第三章 法律责任', '5'],
      ],
    );
    const seventh = s.segments.find((g) => g.text.startsWith('第七条'));
    assert.deepEqual(seventh?.headings.slice(-1), ['第三章 法律责任']);
  });
});

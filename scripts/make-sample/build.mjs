// Renders the two-volume sample textbook in rawdoc/ from the original content in
// scripts/make-sample/content/, and writes the files derived from the layout it actually
// produced: rawdoc/table_explain.csv, rawdoc/validation.csv and test/golden/sample-structure.json.
//
// The layout engine is hand-written (instead of pdfkit's own text flow) so that the script
// knows on which page every line, heading, table and figure lands: the TOC, the CSVs and the
// golden file are all computed from that single layout, never typed by hand.
//
// Run: node scripts/make-sample/build.mjs   (or npm run sample:pdf)
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import { questions } from './content/questions.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const RAWDOC = join(ROOT, 'rawdoc');
const GOLDEN = join(ROOT, 'test', 'golden', 'sample-structure.json');

// ---------------------------------------------------------------- fonts
const FONT_DIR = '/usr/share/fonts/opentype/noto';
const FONTS = {
  sans: [join(FONT_DIR, 'NotoSansCJK-Regular.ttc'), 'NotoSansCJKsc-Regular'],
  sansBold: [join(FONT_DIR, 'NotoSansCJK-Bold.ttc'), 'NotoSansCJKsc-Bold'],
  serif: [join(FONT_DIR, 'NotoSerifCJK-Regular.ttc'), 'NotoSerifCJKsc-Regular'],
};
const FALLBACK = ['/usr/share/fonts/truetype/wqy/wqy-microhei.ttc', 'WenQuanYiMicroHei'];

// ---------------------------------------------------------------- page geometry (pt)
// 16开-like page (B5 JIS, 182 × 257 mm), as many Chinese textbooks use.
const PAGE_W = 515.9;
const PAGE_H = 728.5;
const BODY = { size: 10.5, lead: 18.5, font: 'serif' };
const TEXT_W = 38 * BODY.size; // exactly 38 full-width characters per line
const LEFT = (PAGE_W - TEXT_W) / 2;
const RIGHT = LEFT + TEXT_W;
const TOP = 74; // first baseline is TOP + ascent of the first line
const BOTTOM = PAGE_H - 66; // no baseline below this
const HEADER_BASE = 42;
const HEADER_RULE = 49;
const FOOTER_BASE = PAGE_H - 36;
const FRONT_MATTER_PAGES = 2; // cover + 目录; body page 1 is physical page 3
const FIXED_DATE = new Date(Date.UTC(2025, 0, 1, 0, 0, 0));

const HEADING = {
  1: { font: 'sansBold', size: 18, before: 36, after: 30, align: 'center' },
  2: { font: 'sansBold', size: 14, before: 16, after: 10, align: 'center' },
  3: { font: 'sansBold', size: 12, before: 10, after: 6, align: 'left' },
  4: { font: 'sansBold', size: 10.5, before: 4, after: 3, align: 'indent' },
};

// ---------------------------------------------------------------- content parsing
/**
 * Parses the simple markup of content/*.txt into blocks.
 * `# ` chapter, `## ` section, `### ` 一、 subhead, `#### ` （一） subhead, `%` comment,
 * `@table 题注 | 列宽` rows `a | b` `@explain 转录开头语` or `@transcribe 完整转录` `@end`, `@figure 题注 | 图名` `@explain …` `@end`,
 * any other non-empty line is one paragraph.
 */
function parseContent(text, file) {
  const blocks = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('%')) continue;
    const h = /^(#{1,4}) (.+)$/.exec(line);
    if (h) {
      blocks.push({ type: 'heading', level: h[1].length, text: h[2] });
      continue;
    }
    const obj = /^@(table|figure) (\S+) (.+?) \| (.+)$/.exec(line);
    if (obj) {
      const block = { type: obj[1], ref: obj[2], caption: `${obj[2]} ${obj[3]}`, rows: [], explain: '' };
      if (obj[1] === 'table') block.widths = obj[4].split(',').map(Number);
      else block.drawing = obj[4];
      for (i++; i < lines.length && lines[i].trim() !== '@end'; i++) {
        const l = lines[i].trim();
        if (!l) continue;
        if (l.startsWith('@explain ')) block.explain = l.slice(9);
        else if (l.startsWith('@transcribe ')) block.transcribe = l.slice(12);
        else block.rows.push(l.split(' | ').map((c) => c.trim()));
      }
      if (i >= lines.length) throw new Error(`${file}: ${block.ref} has no @end`);
      blocks.push(block);
      continue;
    }
    if (line.startsWith('@')) throw new Error(`${file}:${i + 1}: unknown directive ${line}`);
    blocks.push({ type: 'para', text: line });
  }
  return blocks;
}

// ---------------------------------------------------------------- line breaking
const NO_START = new Set('，。、；：？！）》」』”’％…—·,.;:!?)]%'.split(''));
const NO_END = new Set('（《「『“‘([Σ'.split(''));

/** Splits text into unbreakable tokens: runs of Latin letters/digits stay together. */
function tokenize(text) {
  return text.match(/[A-Za-z0-9+.%×]+(?:[A-Za-z0-9+.%×])*|[\s\S]/gu) ?? [];
}

/**
 * Greedy line breaking with simple kinsoku rules. Returns [{text, start, end, last}], where
 * start/end are character offsets into `text` (used to map sentences to pages).
 */
function breakLines(doc, text, fontKey, size, width, firstIndent = 0) {
  setFont(doc, fontKey, size);
  const tokens = tokenize(text);
  const widths = tokens.map((t) => doc.widthOfString(t));
  const lines = [];
  let cur = [];
  let curW = 0;
  let lineStart = 0;
  const avail = () => width - (lines.length === 0 ? firstIndent : 0);
  const flush = (last) => {
    const s = cur.map((i) => tokens[i]).join('');
    lines.push({ text: s, start: lineStart, end: lineStart + s.length, last });
    lineStart += s.length;
    cur = [];
    curW = 0;
  };
  for (let i = 0; i < tokens.length; i++) {
    const w = widths[i];
    if (curW + w > avail() + 0.01 && cur.length > 0) {
      // token does not fit: break before it, honouring kinsoku
      const carry = [];
      if (NO_START.has(tokens[i])) carry.unshift(cur.pop());
      while (cur.length > 1 && NO_END.has(tokens[cur[cur.length - 1]])) carry.unshift(cur.pop());
      flush(false);
      for (const c of carry) {
        cur.push(c);
        curW += widths[c];
      }
    }
    cur.push(i);
    curW += w;
  }
  if (cur.length) flush(true);
  return lines;
}

function setFont(doc, key, size) {
  doc.font(key);
  doc.fontSize(size);
}

// ---------------------------------------------------------------- layout
/**
 * Lays out a book's blocks into pages of draw operations. Returns pages and the records
 * (outline, paragraphs with line placements, tables/figures) the derived files are built from.
 */
function layoutBook(doc, book, blocks) {
  const pages = [];
  const outline = [];
  const paragraphs = [];
  const objects = [];
  let page = null;
  let y = 0; // current baseline position of the *previous* line bottom (top of free space)
  let chapter = '';
  let section = '';
  let pending = []; // floats (tables/figures) that did not fit and go to the next page top

  const newPage = () => {
    page = { printed: pages.length + 1, chapter, ops: [] };
    pages.push(page);
    y = TOP;
    const floats = pending;
    pending = [];
    for (const f of floats) placeObject(f, true);
  };
  const space = () => BOTTOM - y;

  const textOp = (str, x, baseline, fontKey, size, cs = 0) => page.ops.push({ kind: 'text', str, x, y: baseline, font: fontKey, size, cs });

  const placeLines = (lines, fontKey, size, lead, indent, justify, record) => {
    setFont(doc, fontKey, size);
    for (let li = 0; li < lines.length; li++) {
      if (y + lead > BOTTOM + 0.01) newPage();
      const line = lines[li];
      const x = LEFT + (li === 0 ? indent : 0);
      const base = y + size * 0.88 + (lead - size) / 2;
      let cs = 0;
      const n = [...line.text].length;
      if (justify && !line.last && n > 1) {
        const natural = doc.widthOfString(line.text);
        cs = (RIGHT - x - natural) / (n - 1);
        if (cs < -0.5 || cs > 4) cs = 0;
      }
      textOp(line.text, x, base, fontKey, size, cs);
      if (record) record.push({ ...line, page: page.printed });
      y += lead;
    }
  };

  function placeObject(obj, atTop) {
    const h = obj.height;
    if (!atTop && h > space()) {
      pending.push(obj);
      return;
    }
    if (!atTop) y += 6;
    obj.page = page.printed;
    obj.pdfPage = page.printed + FRONT_MATTER_PAGES;
    obj.draw(y);
    y += h + 8;
  }

  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi];
    if (b.type === 'heading') {
      const st = HEADING[b.level];
      if (b.level === 1) {
        // flush floats of the previous chapter on their own page, then start a new page
        if (pending.length && page) newPage();
        chapter = b.text;
        section = '';
        newPage();
        page.chapter = chapter;
        y += st.before;
      } else {
        if (b.level === 2) section = b.text;
        // keep heading with at least two body lines
        const need = st.before + st.size + st.after + 2 * BODY.lead;
        if (space() < need) newPage();
        else if (y > TOP) y += st.before;
      }
      setFont(doc, st.font, st.size);
      const w = doc.widthOfString(b.text);
      const x = st.align === 'center' ? (PAGE_W - w) / 2 : st.align === 'indent' ? LEFT + 2 * BODY.size : LEFT;
      const base = y + st.size * 0.88;
      textOp(b.text, x, base, st.font, st.size);
      y += st.size * 1.15 + st.after;
      if (b.level <= 2) outline.push({ title: b.text, level: b.level, page: String(page.printed) });
      continue;
    }
    if (b.type === 'para') {
      const lines = breakLines(doc, b.text, BODY.font, BODY.size, TEXT_W, 2 * BODY.size);
      const placed = [];
      // avoid a single orphan line at the page bottom
      if (space() < 2 * BODY.lead && lines.length > 1) newPage();
      placeLines(lines, BODY.font, BODY.size, BODY.lead, 2 * BODY.size, true, placed);
      paragraphs.push({ text: b.text, chapter, section, lines: placed });
      continue;
    }
    if (b.type === 'table') {
      const obj = makeTable(doc, b, () => page);
      Object.assign(obj, { book, chapter, section });
      objects.push(obj);
      placeObject(obj, false);
      continue;
    }
    if (b.type === 'figure') {
      const obj = makeFigure(doc, b, () => page);
      Object.assign(obj, { book, chapter, section });
      objects.push(obj);
      placeObject(obj, false);
      continue;
    }
  }
  if (pending.length) newPage();
  return { pages, outline, paragraphs, objects };
}

// ---------------------------------------------------------------- tables
const TABLE = { size: 9, lead: 13.5, pad: 4, caption: 9.5 };

function makeTable(doc, b, getPage) {
  const total = b.widths.reduce((a, c) => a + c, 0);
  const colW = b.widths.map((w) => (w / total) * TEXT_W);
  const rows = b.rows.map((cells, ri) => {
    if (cells.length !== colW.length) throw new Error(`${b.ref}: row ${ri + 1} has ${cells.length} cells`);
    const font = ri === 0 ? 'sansBold' : 'serif';
    const wrapped = cells.map((c, ci) => breakLines(doc, c, font, TABLE.size, colW[ci] - 2 * TABLE.pad));
    const h = Math.max(...wrapped.map((l) => l.length)) * TABLE.lead + 2 * TABLE.pad;
    return { font, wrapped, h };
  });
  // a column is centred when every data cell in it is a short single line (numbers, rates)
  const centerCol = colW.map((w, ci) =>
    rows
      .slice(1)
      .every((r) => r.wrapped[ci].length === 1 && doc.font(r.font).fontSize(TABLE.size).widthOfString(r.wrapped[ci][0].text) < w * 0.7),
  );
  const capH = TABLE.caption * 1.2 + 6;
  const height = capH + rows.reduce((a, r) => a + r.h, 0);
  return {
    kind: 'table',
    ref: b.ref,
    caption: b.caption,
    rows: b.rows,
    explain: b.explain,
    transcribe: b.transcribe,
    height,
    draw(top) {
      const ops = getPage().ops;
      setFont(doc, 'sansBold', TABLE.caption);
      const cw = doc.widthOfString(b.caption);
      ops.push({
        kind: 'text',
        str: b.caption,
        x: (PAGE_W - cw) / 2,
        y: top + TABLE.caption * 0.88,
        font: 'sansBold',
        size: TABLE.caption,
        cs: 0,
      });
      let ry = top + capH;
      ops.push({ kind: 'line', x1: LEFT, y1: ry, x2: RIGHT, y2: ry, w: 1 });
      rows.forEach((r, ri) => {
        let cx = LEFT;
        r.wrapped.forEach((lines, ci) => {
          setFont(doc, r.font, TABLE.size);
          const textH = lines.length * TABLE.lead;
          let ly = ry + (r.h - textH) / 2;
          for (const l of lines) {
            const lw = doc.widthOfString(l.text);
            const center = ri === 0 || ci === 0 || centerCol[ci];
            const x = center ? cx + (colW[ci] - lw) / 2 : cx + TABLE.pad;
            ops.push({
              kind: 'text',
              str: l.text,
              x,
              y: ly + TABLE.size * 0.88 + (TABLE.lead - TABLE.size) / 2,
              font: r.font,
              size: TABLE.size,
              cs: 0,
            });
            ly += TABLE.lead;
          }
          cx += colW[ci];
        });
        ry += r.h;
        ops.push({ kind: 'line', x1: LEFT, y1: ry, x2: RIGHT, y2: ry, w: ri === rows.length - 1 ? 1 : 0.5 });
      });
      let vx = LEFT;
      for (let ci = 0; ci <= colW.length; ci++) {
        ops.push({ kind: 'line', x1: vx, y1: top + capH, x2: vx, y2: ry, w: ci === 0 || ci === colW.length ? 1 : 0.5 });
        vx += colW[ci] ?? 0;
      }
    },
  };
}

// ---------------------------------------------------------------- figures
// Each drawing is a list of boxes and arrows in a local coordinate system (pt, origin at the
// figure's top-left, width TEXT_W); labels are deliberately short.
const DRAWINGS = {
  operation: {
    height: 232,
    boxes: {
      holder: { x: 130, y: 0, w: 139, h: 30, label: '基金份额持有人' },
      sales: { x: 0, y: 0, w: 92, h: 30, label: '销售机构' },
      registrar: { x: 307, y: 0, w: 92, h: 30, label: '登记机构' },
      fund: { x: 150, y: 96, w: 99, h: 34, label: '基金财产', bold: true },
      manager: { x: 0, y: 96, w: 92, h: 34, label: '基金管理人' },
      custodian: { x: 307, y: 96, w: 92, h: 34, label: '基金托管人' },
      market: { x: 130, y: 196, w: 139, h: 30, label: '证券市场' },
    },
    arrows: [
      { from: [175, 30], to: [175, 96], label: '出资', lx: 141, ly: 60 },
      { from: [224, 96], to: [224, 30], label: '收益', lx: 230, ly: 60 },
      { from: [130, 15], to: [92, 15], label: '申赎', lx: 95, ly: 3 },
      { from: [269, 15], to: [307, 15], label: '登记', lx: 272, ly: 3 },
      { from: [92, 113], to: [150, 113], label: '投资运作', lx: 97, ly: 100 },
      { from: [307, 113], to: [249, 113], label: '保管', lx: 266, ly: 100 },
      { from: [46, 130], to: [46, 160], to2: [340, 160], to3: [340, 130], label: '划款指令', lx: 150, ly: 147 },
      { from: [362, 130], to: [362, 178], to2: [28, 178], to3: [28, 130], label: '监督', lx: 150, ly: 165 },
      { from: [380, 130], to: [380, 211], to2: [269, 211], label: '清算交割', lx: 290, ly: 198 },
    ],
  },
  meeting: {
    height: 206,
    boxes: {
      propose: { x: 0, y: 0, w: 88, h: 40, label: '提议', sub: '管理人/托管人/10%' },
      convene: { x: 104, y: 0, w: 88, h: 40, label: '召集' },
      notice: { x: 208, y: 0, w: 88, h: 40, label: '公告', sub: '提前≥30日' },
      check: { x: 311, y: 0, w: 88, h: 40, label: '核验参会份额' },
      again: { x: 160, y: 100, w: 100, h: 40, label: '重新召集', sub: '3～6个月内' },
      vote: { x: 311, y: 100, w: 88, h: 40, label: '召开并表决' },
      publish: { x: 160, y: 166, w: 100, h: 40, label: '公告决议', sub: '生效后2日内' },
      file: { x: 311, y: 166, w: 88, h: 40, label: '备案', sub: '5日内' },
    },
    arrows: [
      { from: [88, 20], to: [104, 20] },
      { from: [192, 20], to: [208, 20] },
      { from: [296, 20], to: [311, 20] },
      { from: [375, 40], to: [375, 100], label: '≥1/2', lx: 380, ly: 62 },
      { from: [335, 40], to: [335, 70], to2: [210, 70], to3: [210, 100], label: '＜1/2', lx: 240, ly: 58 },
      { from: [260, 120], to: [311, 120], label: '≥1/3', lx: 272, ly: 106 },
      { from: [355, 140], to: [355, 166] },
      { from: [311, 186], to: [260, 186] },
    ],
  },
};

function makeFigure(doc, b, getPage) {
  const d = DRAWINGS[b.drawing];
  if (!d) throw new Error(`${b.ref}: unknown drawing ${b.drawing}`);
  const capH = TABLE.caption * 1.2 + 8;
  return {
    kind: 'figure',
    ref: b.ref,
    caption: b.caption,
    explain: b.explain,
    height: d.height + 14 + capH,
    draw(top) {
      const ops = getPage().ops;
      const ox = LEFT;
      const oy = top + 6;
      for (const box of Object.values(d.boxes)) {
        ops.push({ kind: 'rect', x: ox + box.x, y: oy + box.y, w: box.w, h: box.h, w2: box.bold ? 1.2 : 0.7 });
        const size = box.sub ? 9.5 : 10;
        setFont(doc, 'sansBold', size);
        const lw = doc.widthOfString(box.label);
        const lines = box.sub ? 2 : 1;
        const baseTop = oy + box.y + (box.h - lines * 13) / 2;
        ops.push({ kind: 'text', str: box.label, x: ox + box.x + (box.w - lw) / 2, y: baseTop + 10, font: 'sansBold', size, cs: 0 });
        if (box.sub) {
          setFont(doc, 'sans', 8);
          const sw = doc.widthOfString(box.sub);
          ops.push({ kind: 'text', str: box.sub, x: ox + box.x + (box.w - sw) / 2, y: baseTop + 23, font: 'sans', size: 8, cs: 0 });
        }
      }
      for (const a of d.arrows) {
        const pts = [a.from, a.to, a.to2, a.to3].filter(Boolean).map(([px, py]) => [ox + px, oy + py]);
        ops.push({ kind: 'arrow', pts });
        if (a.label) {
          ops.push({ kind: 'text', str: a.label, x: ox + a.lx, y: oy + a.ly + 8, font: 'sans', size: 8, cs: 0 });
        }
      }
      setFont(doc, 'sansBold', TABLE.caption);
      const cw = doc.widthOfString(b.caption);
      ops.push({
        kind: 'text',
        str: b.caption,
        x: (PAGE_W - cw) / 2,
        y: oy + d.height + 14 + TABLE.caption,
        font: 'sansBold',
        size: TABLE.caption,
        cs: 0,
      });
    },
  };
}

// ---------------------------------------------------------------- rendering
function renderOps(doc, ops) {
  for (const op of ops) {
    if (op.kind === 'text') {
      setFont(doc, op.font, op.size);
      doc.fillColor('black').text(op.str, op.x, op.y, { lineBreak: false, baseline: 'alphabetic', characterSpacing: op.cs });
    } else if (op.kind === 'line') {
      doc.save().lineWidth(op.w).moveTo(op.x1, op.y1).lineTo(op.x2, op.y2).stroke('black').restore();
    } else if (op.kind === 'rect') {
      doc.save().lineWidth(op.w2).rect(op.x, op.y, op.w, op.h).stroke('black').restore();
    } else if (op.kind === 'arrow') {
      const [first, ...rest] = op.pts;
      doc.save().lineWidth(0.7).moveTo(first[0], first[1]);
      for (const p of rest) doc.lineTo(p[0], p[1]);
      doc.stroke('black');
      const [px, py] = op.pts[op.pts.length - 2];
      const [qx, qy] = op.pts[op.pts.length - 1];
      const ang = Math.atan2(qy - py, qx - px);
      const L = 6;
      const W = 2.6;
      doc
        .moveTo(qx, qy)
        .lineTo(qx - L * Math.cos(ang) + W * Math.sin(ang), qy - L * Math.sin(ang) - W * Math.cos(ang))
        .lineTo(qx - L * Math.cos(ang) - W * Math.sin(ang), qy - L * Math.sin(ang) + W * Math.cos(ang))
        .closePath()
        .fill('black')
        .restore();
    }
  }
}

function centered(doc, str, fontKey, size, baseline) {
  setFont(doc, fontKey, size);
  const w = doc.widthOfString(str);
  doc.text(str, (PAGE_W - w) / 2, baseline, { lineBreak: false, baseline: 'alphabetic' });
}

function renderCover(doc, title) {
  doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
  doc.save().rect(0, 150, PAGE_W, 150).fill('#1f3a5f').restore();
  doc.fillColor('white');
  centered(doc, title, 'sansBold', 28, 228);
  centered(doc, '基金从业资格考试 · 样例教材', 'sans', 13, 268);
  doc.fillColor('black');
  centered(doc, 'exam-copilot 项目原创示例内容，仅供软件测试与演示', 'sans', 10, 420);
  centered(doc, '内容中的数字与规则均为示例，不代表现行监管规定', 'sans', 10, 440);
  centered(doc, 'exam-copilot 编写组', 'sans', 12, 620);
}

function renderToc(doc, outline) {
  doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
  centered(doc, '目录', 'sansBold', 18, 100);
  let y = 150;
  for (const item of outline) {
    const lvl1 = item.level === 1;
    if (lvl1 && y > 150) y += 8;
    const font = lvl1 ? 'sansBold' : 'serif';
    const size = lvl1 ? 11 : 10.5;
    const x = LEFT + (lvl1 ? 0 : 2 * BODY.size);
    setFont(doc, font, size);
    const tw = doc.widthOfString(item.title);
    doc.text(item.title, x, y, { lineBreak: false, baseline: 'alphabetic' });
    // leader dots, then the printed page number right-aligned (drawn in reading order)
    setFont(doc, 'serif', size);
    const nw = doc.widthOfString(item.page);
    const dotW = doc.widthOfString('.');
    const gapStart = x + tw + 6;
    const gapEnd = RIGHT - nw - 6;
    const n = Math.max(3, Math.floor((gapEnd - gapStart) / dotW));
    doc.text('.'.repeat(n), gapEnd - n * dotW, y, { lineBreak: false, baseline: 'alphabetic' });
    doc.text(item.page, RIGHT - nw, y, { lineBreak: false, baseline: 'alphabetic' });
    y += 24;
  }
}

function renderBodyPage(doc, page, volumeTitle) {
  doc.addPage({ size: [PAGE_W, PAGE_H], margin: 0 });
  const header = page.printed % 2 === 0 ? volumeTitle : page.chapter;
  page.header = header;
  doc.fillColor('black');
  centered(doc, header, 'sans', 9, HEADER_BASE);
  doc.save().lineWidth(0.5).moveTo(LEFT, HEADER_RULE).lineTo(RIGHT, HEADER_RULE).stroke('black').restore();
  renderOps(doc, page.ops);
  centered(doc, `— ${page.printed} —`, 'sans', 9, FOOTER_BASE);
}

// ---------------------------------------------------------------- golden sentences
/** Picks whole sentences from the layout, recording the page(s) each is printed on. */
function pickSentences(paragraphs) {
  const all = [];
  for (const p of paragraphs) {
    const re = /[^。！？]+[。！？]/gu;
    let m;
    while ((m = re.exec(p.text))) {
      const start = m.index;
      const end = m.index + m[0].length;
      const lines = p.lines.filter((l) => l.end > start && l.start < end);
      if (!lines.length) continue;
      const first = lines[0].page;
      const last = lines[lines.length - 1].page;
      all.push({ text: m[0], page: first, pageEnd: last, chapter: p.chapter, section: p.section });
    }
  }
  const out = [];
  const seenPages = new Set();
  for (const s of all) {
    if (s.page === s.pageEnd && s.text.length >= 12 && s.text.length <= 90 && !seenPages.has(s.page)) {
      seenPages.add(s.page);
      out.push(s);
    }
  }
  const split = all.filter((s) => s.page !== s.pageEnd && s.text.length >= 12).slice(0, 3);
  out.push(...split);
  out.sort((a, b) => a.page - b.page);
  return out.map((s) => ({
    text: s.text,
    page: String(s.page),
    ...(s.page !== s.pageEnd ? { pageEnd: String(s.pageEnd) } : {}),
    pdfPage: s.page + FRONT_MATTER_PAGES,
    chapter: s.chapter,
    section: s.section,
  }));
}

// ---------------------------------------------------------------- CSV helpers
function csvField(v) {
  const s = String(v ?? '');
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
const csvLine = (fields) => fields.map(csvField).join(',');

function explainText(obj) {
  if (obj.kind === 'figure') return obj.explain;
  const [head, ...rows] = obj.rows;
  const body = rows
    .map(
      (r) =>
        `${r[0]}——${head
          .slice(1)
          .map((h, i) => `${h}：${r[i + 1]}`)
          .join('；')}`,
    )
    .join('。');
  if (obj.transcribe) return obj.transcribe;
  const lead = (obj.explain || obj.caption).replace(/[。：]$/u, '');
  return `${lead}：${body}。`;
}

// ---------------------------------------------------------------- main
async function renderBook(spec) {
  const doc = new PDFDocument({
    autoFirstPage: false,
    size: [PAGE_W, PAGE_H],
    margin: 0,
    compress: true,
    info: {
      Title: `证券投资基金（${spec.book}）——exam-copilot 样例教材`,
      Author: 'exam-copilot sample',
      Subject: '基金从业资格考试样例教材（原创示例内容）',
      Keywords: '证券投资基金, 基金从业资格, 样例',
      Creator: 'scripts/make-sample/build.mjs',
      Producer: 'exam-copilot make-sample (pdfkit)',
      CreationDate: FIXED_DATE,
      ModDate: FIXED_DATE,
    },
  });
  for (const [key, [file, ps]] of Object.entries(FONTS)) {
    if (existsSync(file)) doc.registerFont(key, file, ps);
    else doc.registerFont(key, FALLBACK[0], FALLBACK[1]);
  }
  const blocks = parseContent(readFileSync(spec.source, 'utf8'), spec.source);
  const layout = layoutBook(doc, spec.book, blocks);
  renderCover(doc, spec.title);
  renderToc(doc, layout.outline);
  for (const p of layout.pages) renderBodyPage(doc, p, spec.title);
  const done = new Promise((resolve, reject) => {
    const out = createWriteStream(spec.file);
    out.on('finish', resolve);
    out.on('error', reject);
    doc.pipe(out);
  });
  doc.end();
  await done;
  return { ...spec, ...layout, physicalPages: layout.pages.length + FRONT_MATTER_PAGES };
}

function buildValidation(books) {
  const rows = [];
  const counts = { A: 0, B: 0, C: 0, D: 0 };
  questions.forEach((q, i) => {
    const id = `S${String(i + 1).padStart(3, '0')}`;
    let hit;
    if (q.type === 'table') {
      for (const b of books) {
        const o = b.objects.find((x) => x.ref === q.ref);
        if (o) hit = { book: b.book, chapter: o.chapter, section: o.section, page: o.page };
      }
      if (!hit) throw new Error(`${id}: no table/figure ${q.ref}`);
    } else {
      const found = [];
      for (const b of books) {
        for (const p of b.paragraphs) {
          const at = p.text.indexOf(q.ev);
          if (at >= 0) {
            const line = p.lines.find((l) => l.end > at);
            found.push({ book: b.book, chapter: p.chapter, section: p.section, page: line.page });
          }
        }
      }
      if (found.length !== 1) throw new Error(`${id}: evidence "${q.ev}" found ${found.length} times`);
      hit = found[0];
    }
    if (!['A', 'B', 'C', 'D'].includes(q.answer)) throw new Error(`${id}: bad answer ${q.answer}`);
    counts[q.answer]++;
    rows.push([
      id,
      q.q,
      q.A,
      q.B,
      q.C,
      q.D,
      q.answer,
      q.type,
      hit.book,
      hit.chapter,
      hit.section,
      hit.page,
      q.type === 'table' ? q.ref : '',
    ]);
  });
  return { rows, counts };
}

async function main() {
  mkdirSync(RAWDOC, { recursive: true });
  mkdirSync(dirname(GOLDEN), { recursive: true });
  const specs = ['上册', '下册'].map((book) => ({
    book,
    title: `证券投资基金（${book}）`,
    source: join(HERE, 'content', `${book}.txt`),
    file: join(RAWDOC, `证券投资基金_${book}.pdf`),
  }));
  const books = [];
  for (const s of specs) books.push(await renderBook(s));

  // table_explain.csv
  const te = [csvLine(['book', 'chapter', 'section', 'figure_ref', 'content', 'page'])];
  for (const b of books) for (const o of b.objects) te.push(csvLine([b.book, o.chapter, o.section, o.ref, explainText(o), o.page]));
  writeFileSync(join(RAWDOC, 'table_explain.csv'), te.join('\r\n') + '\r\n');

  // validation.csv
  const { rows, counts } = buildValidation(books);
  const va = [csvLine(['id', 'question', 'A', 'B', 'C', 'D', 'answer', 'type', 'book', 'chapter', 'section', 'page', 'figure_ref'])];
  for (const r of rows) va.push(csvLine(r));
  writeFileSync(join(RAWDOC, 'validation.csv'), va.join('\r\n') + '\r\n');

  // golden structure
  const golden = {
    generatedBy: 'scripts/make-sample/build.mjs',
    books: books.map((b) => ({
      file: relative(ROOT, b.file).split('\\').join('/'),
      book: b.book,
      physicalPages: b.physicalPages,
      pageLabelOffset: FRONT_MATTER_PAGES,
      headingSeparator: ' ',
      outline: b.outline,
      headers: [...new Set(b.pages.map((p) => p.header))],
      footers: b.pages.map((p) => `— ${p.printed} —`),
      tables: b.objects.map((o) => ({
        ref: o.ref,
        kind: o.kind,
        caption: o.caption,
        page: String(o.page),
        pdfPage: o.pdfPage,
        chapter: o.chapter,
        section: o.section,
      })),
      sentences: pickSentences(b.paragraphs),
    })),
  };
  writeFileSync(GOLDEN, JSON.stringify(golden, null, 2) + '\n');

  for (const b of books) {
    console.log(`${relative(ROOT, b.file)}: ${b.physicalPages} pages (body ${b.pages.length}), ${b.objects.length} tables/figures`);
  }
  const types = rows.reduce((a, r) => ({ ...a, [r[7]]: (a[r[7]] ?? 0) + 1 }), {});
  console.log(`validation.csv: ${rows.length} questions, answers ${JSON.stringify(counts)}, types ${JSON.stringify(types)}`);
}

main().catch((err) => {
  console.error(`make-sample: ${err.message}`);
  process.exit(1);
});

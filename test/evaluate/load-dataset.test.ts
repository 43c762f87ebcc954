import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { UserError } from '../../src/errors.js';
import { loadDataset, normalizeAnswer, splitOptionsCell } from '../../src/evaluate/load-dataset.js';
import { decodeCsvBytes } from '../../src/text/decode-csv-bytes.js';
import { fixturesDir, makeTempRoot } from '../helpers/temp-root.js';

const fixtures = path.join(fixturesDir, 'evaluate');
const tmp = makeTempRoot();
after(() => tmp.cleanup());

void describe('loadDataset', () => {
  void it("reads FinanceIQ's original layout (unnamed index column, Question, A-D, Answer) as it is", async () => {
    const ds = await loadDataset(path.join(fixtures, 'financeiq-unnamed-index.csv'));
    assert.equal(ds.encoding, 'utf-8');
    assert.equal(ds.skipped, 0);
    assert.deepEqual(
      ds.rows.map((r) => [r.id, r.line, r.answer]),
      [
        ['0', 2, 'D'],
        ['1', 3, 'C'],
        ['2', 6, 'B'],
      ],
    );
    assert.equal(ds.rows[1]?.question, '请选出正确的陈述（）。\nⅠ.甲\nⅡ.乙');
    assert.deepEqual(
      ds.rows[1]?.options.map((o) => o.text),
      ['Ⅰ', 'Ⅱ', 'Ⅰ、Ⅱ', '以上都不对'],
    );
    // Empty C and D cells leave a two-option question.
    assert.deepEqual(
      ds.rows[2]?.options.map((o) => o.letter),
      ['A', 'B'],
    );
    assert.equal(ds.rows[0]?.gold, null);
  });

  void it('reports bad rows with their file line and skips and counts them', async () => {
    const file = path.join(fixtures, 'bad-rows.csv');
    const ds = await loadDataset(file);
    assert.deepEqual(
      ds.rows.map((r) => [r.id, r.line, r.answer]),
      [
        ['q1', 2, 'A'],
        ['q6', 8, 'AC'],
        ['q7', 10, 'B'],
      ],
    );
    assert.equal(ds.skipped, 4);
    assert.deepEqual(
      ds.warnings.map((w) => w.where),
      [`${file}:3`, `${file}:4`, `${file}:5`, `${file}:6`],
    );
    assert.match(ds.warnings[0]?.message ?? '', /empty question; row skipped/);
    assert.match(ds.warnings[1]?.message ?? '', /only 1 option/);
    assert.match(ds.warnings[2]?.message ?? '', /answer "D" is not among the options \(ABC\)/);
    assert.match(ds.warnings[3]?.message ?? '', /answer "X" is not an option letter/);
  });

  void it('counts each kind of bad row (empty question, answer not among the options, duplicate id) with file and line', async () => {
    const file = path.join(tmp.root, 'issues.csv');
    writeFileSync(
      file,
      [
        'id,question,A,B,C,D,answer',
        'q1,题干一,甲,乙,丙,丁,A',
        'q2,   ,甲,乙,丙,丁,B',
        'q3,三个选项,甲,乙,丙,,D',
        'q4,多选越界,甲,乙,丙,丁,"A,E"',
        'q1,重复编号,甲,乙,丙,丁,C',
        'q6,无答案,甲,乙,丙,丁,',
        'q7,选项文字作答,正确,错误,,,对',
      ].join('\n') + '\n',
    );
    const ds = await loadDataset(file);
    assert.deepEqual(ds.issues, { empty_question: 1, answer_not_an_option: 2, duplicate_id: 1, no_answer: 1 });
    assert.equal(ds.skipped, 4);
    assert.deepEqual(
      ds.rows.map((r) => [r.id, r.answer]),
      [
        ['q1', 'A'],
        ['q1@6', 'C'],
        ['q7', 'A'],
      ],
    );
    assert.deepEqual(
      ds.warnings.map((w) => w.where),
      [3, 4, 5, 6, 7].map((line) => `${file}:${line}`),
    );
    assert.match(ds.warnings[3]?.message ?? '', /duplicate id "q1" \(first on line 2\)/);
  });

  void it('detects UTF-8 with BOM and GBK (what Excel on a Chinese system writes)', async () => {
    const text =
      '题目,选项A,选项B,选项C,选项D,答案,题型\r\n基金托管人的职责是？,保管基金财产,决定投资,发售份额,制定费率,A,文字\r\n表2-1列出的费用是？,管理费,托管费,销售服务费,以上都是,D,表格\r\n';
    const gbk = path.join(tmp.root, 'gbk.csv');
    writeFileSync(gbk, iconv.encode(text, 'gbk'));
    const bom = path.join(tmp.root, 'bom.csv');
    writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]));
    for (const [file, encoding] of [
      [gbk, 'gb18030'],
      [bom, 'utf-8-bom'],
    ] as const) {
      const ds = await loadDataset(file);
      assert.equal(ds.encoding, encoding);
      assert.deepEqual(
        ds.rows.map((r) => [r.id, r.question, r.answer, r.type]),
        [
          ['L2', '基金托管人的职责是？', 'A', 'text'],
          ['L3', '表2-1列出的费用是？', 'D', 'table'],
        ],
      );
      assert.equal(ds.rows[0]?.options[0]?.text, '保管基金财产');
    }
  });

  void it('reads the first sheet of an XLSX with an options column and gold-evidence columns', async () => {
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('验证集');
    sheet.addRow(['序号', '题干', '选项', '正确答案', '册', '章', '页码', '图表', 'type']);
    sheet.addRow([1, '货币市场工具包括？', 'A. 股票 B. 银行定期存单 C. 公司债 D. 可转债', 'B', '上册', '第二章', 45, '', 'text']);
    sheet.addRow([2, '表3-1中的基金类型是？', 'A、股票基金\nB、债券基金\nC、混合基金', 'A、C', '下册', '', 12, '表3-1', 'table']);
    sheet.addRow([3, '没有答案的题', 'A. 甲 B. 乙', '', '', '', '', '', '']);
    const file = path.join(tmp.root, 'set.xlsx');
    await wb.xlsx.writeFile(file);
    const ds = await loadDataset(file);
    assert.equal(ds.format, 'xlsx');
    assert.equal(ds.rows.length, 2);
    assert.deepEqual(ds.rows[0]?.options, [
      { letter: 'A', text: '股票' },
      { letter: 'B', text: '银行定期存单' },
      { letter: 'C', text: '公司债' },
      { letter: 'D', text: '可转债' },
    ]);
    assert.deepEqual(ds.rows[0]?.gold, { book: '上册', chapter: '第二章', page: '45' });
    assert.deepEqual(
      [ds.rows[1]?.id, ds.rows[1]?.answer, ds.rows[1]?.type, ds.rows[1]?.gold],
      ['2', 'AC', 'table', { book: '下册', page: '12', figure_ref: '表3-1' }],
    );
    assert.equal(ds.skipped, 1);
    assert.equal(ds.warnings[0]?.where, `${file}:4`);
    assert.match(ds.warnings[0]?.message ?? '', /no answer/);
  });

  void it('names the file, the missing column and the columns found', async () => {
    const file = path.join(tmp.root, 'noanswer.csv');
    writeFileSync(file, 'question,A,B\n题,甲,乙\n');
    await assert.rejects(loadDataset(file), (error: unknown) => {
      assert.ok(error instanceof UserError);
      assert.equal(
        error.message,
        `${file}: no answer column (answer/答案/Answer/正确答案); columns found: "question", "A", "B"; to answer a question-only set, use \`exam-copilot answer ${file}\``,
      );
      return true;
    });
    const missing = path.join(tmp.root, 'nope.csv');
    await assert.rejects(loadDataset(missing), /nope\.csv: cannot read the question set \(no such file\)/);
    // A missing workbook is a missing file, not a broken workbook to re-save.
    const missingXlsx = path.join(tmp.root, 'nope.xlsx');
    await assert.rejects(loadDataset(missingXlsx), /nope\.xlsx: cannot read the question set \(no such file\); check the path/);
  });
});

void describe('loader helpers', () => {
  void it('splits an options cell and normalises answers', () => {
    assert.deepEqual(splitOptionsCell('A.甲 B.乙；C.丙'), [
      { letter: 'A', text: '甲' },
      { letter: 'B', text: '乙' },
      { letter: 'C', text: '丙' },
    ]);
    const opts = [
      { letter: 'A', text: '正确' },
      { letter: 'B', text: '错误' },
    ];
    assert.equal(normalizeAnswer('错误', opts), 'B');
    assert.equal(normalizeAnswer('×', opts), 'B');
    assert.equal(normalizeAnswer(' b ', opts), 'B');
    assert.equal(normalizeAnswer('D、A,B', opts), 'ABD');
    assert.equal(normalizeAnswer('maybe', opts), null);
  });

  void it('falls back from invalid UTF-8 to GB18030', () => {
    assert.equal(decodeCsvBytes(iconv.encode('基金', 'gbk')).text, '基金');
    assert.equal(decodeCsvBytes(Buffer.from('基金', 'utf8')).encoding, 'utf-8');
  });
});

void describe('line numbers in warnings', () => {
  void it('name the line a bad row starts on after multi-line questions, with LF or CRLF line ends', async () => {
    const rows = ['id,question,A,B,answer', 'q1,"两行', '题干",甲,乙,A', 'q2,,甲,乙,A', 'q3,"又是', '两行",甲,乙,Z'];
    for (const [name, eol] of [
      ['lf.csv', '\n'],
      ['crlf.csv', '\r\n'],
    ] as const) {
      const file = path.join(tmp.root, name);
      writeFileSync(file, rows.join(eol) + eol);
      const ds = await loadDataset(file);
      assert.deepEqual(
        ds.rows.map((r) => [r.id, r.line]),
        [['q1', 2]],
      );
      assert.deepEqual(
        ds.warnings.map((w) => w.where),
        [`${file}:4`, `${file}:5`],
      );
    }
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { askedRow, quotedCell, tableRowsOf } from '../../src/answer/table-rows.js';
import type { Chunk } from '../../src/types.js';
import { assertReadings, notesBook, verdictOf } from '../helpers/notes-book.js';

// A table whose rows are the options: the stem quotes one row's cell whole and asks whose row it is, naming no column.
// Its quote holds another row's label (限价指令 in 达到止损价格时触发限价指令), which names no row the stem asks about.
const TABLE = `| 指令类型 | 说明 |
|---------|------|
| 市价指令 | 以当前市场价格立即成交 |
| 限价指令 | 限定价格，达到价格才成交 |
| 止损指令 | 达到止损价格时触发市价指令 |
| 止损限价指令 | 达到止损价格时触发限价指令 |`;

const BOOK = `# 第七章 投资交易管理

## 7.1 交易执行

### 7.1.2 交易指令的类型

${TABLE}
`;

const book = notesBook({ 'rawdoc/交易.md': BOOK });

const STEM = '达到止损价格时触发限价指令的交易指令是（ ）。';

void test('a stem quoting one row’s cell is answered by that row, each other option by its own row', async () => {
  const r = await book.ask(`${STEM}A.市价指令 B.限价指令 C.止损指令 D.止损限价指令`);
  assert.equal(r.answer, 'D');
  assert.match(verdictOf(r, 'D').evidence?.quote ?? '', /止损限价指令 达到止损价格时触发限价指令/u);
  assertReadings(r, {
    A: { verdict: 'contradicted', reason: '说明：以当前市场价格立即成交' },
    B: { verdict: 'contradicted', reason: '说明：限定价格，达到价格才成交' },
    C: { verdict: 'contradicted', reason: '说明：达到止损价格时触发市价指令' },
    D: { verdict: 'supported' },
  });
});

void test('the quoted cell: one whole cell of the table the stem holds, not a label inside it', () => {
  const chunk = { chunk_id: 't', text: TABLE, headings: [] } as unknown as Chunk;
  const rows = tableRowsOf(chunk);
  const row = rows[1];
  assert.ok(row);
  assert.deepEqual(quotedCell(row, rows, STEM), { column: '说明', value: '达到止损价格时触发限价指令' });
  // 限价指令 in the stem stands inside the quote: the stem asks about no row by name.
  assert.equal(askedRow(row, rows, STEM), null);
  assert.equal(askedRow(row, rows, '限价指令的特点是（ ）。'), 'this');
  assert.equal(quotedCell(row, rows, '限价指令的特点是（ ）。'), null);
});

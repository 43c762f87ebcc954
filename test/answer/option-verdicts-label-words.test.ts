import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReadings, notesBook } from '../helpers/notes-book.js';

// Lists under two labels, one item naming two options in a shorter form of its own (管理费、托管费收入): the option is
// in that item's class by its own words, as the item it names verbatim is.
const BOOK = `# 第十一章 基金利润分配与税收

## 11.2 基金税收

### 11.2.1 基金自身的税收

**免税项目：**
- 基金买卖股票的差价收入
- 基金的债券利息收入

**应税项目：**
- 基金管理人、托管人的管理费、托管费收入
`;

const book = notesBook({ 'rawdoc/税收.md': BOOK });

void test('an item holding an option by its own words puts it in the item’s class, as the written form does', async () => {
  const r = await book.ask('下列属于基金自身免税项目的是（ ）。A.管理费收入 B.托管费收入 C.基金买卖股票的差价收入 D.销售服务费收入');
  assert.equal(r.answer, 'C');
  const taxed = { verdict: 'contradicted', reason: '类别不同：应税项目' } as const;
  assertReadings(r, { A: taxed, B: taxed, C: { verdict: 'supported' } });
  // Not a tie with A, read as stated by 管理费 … 收入 where the other class lists it.
  assert.doesNotMatch(r.message ?? '', /同样有教材依据/u);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { polarityClash } from '../../src/answer/clause-cues.js';
import { asksForStatement } from '../../src/answer/parse-question.js';
import { askedColumn, parseTableRow } from '../../src/answer/table-rows.js';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// Study notes comparing two kinds of fund in a pipe table, and describing one of them on its own: a question asking
// which statement about 开放式基金 holds is answered in that column, not in the 封闭式基金 column beside it.
const BOOK = `# 第二章 证券投资基金概述

## 2.3 基金的运作方式

### 2.3.1 封闭式基金与开放式基金的比较

| 比较项目 | 封闭式基金 | 开放式基金 |
|---------|-----------|-----------|
| 份额总额 | 合同期限内固定不变 | 不固定，随申购赎回变动 |
| 期限 | 有固定封闭期 | 无固定期限 |
| 交易方式 | 证券交易所上市交易 | 通过基金管理人或代销机构申购赎回 |
| 价格形成 | 市场供求决定（可能溢价或折价） | 按基金份额净值 |

# 第三章 证券投资基金的类型

## 3.2 按运作方式分类

### 3.2.2 开放式基金

开放式基金的份额总额不固定，投资者可以在每个开放日申购或赎回基金份额。
`;

const book = notesBook({ 'rawdoc/基金法律法规.md': BOOK });

void test('a stem asking which statement about its subject holds asks for statements, not for a name filling a blank', () => {
  assert.equal(asksForStatement('下列关于开放式基金的说法，正确的是（ ）。'), true);
  assert.equal(asksForStatement('以下表述中，错误的是（ ）。'), true);
  assert.equal(asksForStatement('组织基金从业人员资格考试的机构是（ ）。'), false);
  assert.equal(asksForStatement('开放式基金的份额总额（ ）。'), false);
});

void test('a column named outside the asking clause is the one asked, when the stem names it alone', () => {
  const row = parseTableRow('期限——封闭式基金：有固定封闭期；开放式基金：无固定期限。');
  assert.ok(row);
  assert.equal(askedColumn(row, '下列关于开放式基金的说法，正确的是（ ）。'), '开放式基金');
  // The asking clause still wins where it names one, and a stem naming both asks of neither.
  assert.equal(askedColumn(row, '与开放式基金相比，封闭式基金的期限是（ ）。'), '封闭式基金');
  assert.equal(askedColumn(row, '下列关于封闭式基金和开放式基金的说法，正确的是（ ）。'), null);
});

void test('a bare 不 before a whole word of the claim negates it, even where the claim writes 不 after that word', () => {
  assert.equal(polarityClash(['份额总额不固定，随申购赎回变动'], '份额总额固定不变', ['份额', '总额', '固定', '不变']), '不');
  assert.equal(polarityClash(['合同期限内份额总额固定不变'], '份额总额固定不变', ['份额', '总额', '固定', '不变']), null);
});

void test("which statement about 开放式基金 holds: the other column's cells and the negated 固定 rule the others out", async () => {
  const result = await book.ask(
    '下列关于开放式基金的说法，正确的是（ ）。A.份额总额固定不变 B.有固定封闭期 C.无固定期限 D.价格由市场供求决定',
  );
  assert.equal(result.answer, 'C');
  assert.equal(result.fallback, null, result.message);
  assert.equal(verdictOf(result, 'C').verdict, 'supported');
  const a = verdictOf(result, 'A');
  assert.equal(a.verdict, 'contradicted');
  assert.equal(a.reason, '肯定/否定相反：不');
  for (const letter of ['B', 'D']) {
    const v = verdictOf(result, letter);
    assert.equal(v.verdict, 'contradicted', letter);
    // Found in the other kind's column: said as such, never as the book stating C in its place.
    assert.equal(v.reason, '主体不同：封闭式基金', letter);
  }
  // Each quoted from its own row: B from 期限 (not 份额总额, whose 封闭式基金 cell holds only its 固定), D from 价格形成.
  assert.match(verdictOf(result, 'B').evidence?.quote ?? '', /期限 有固定封闭期 无固定期限/u);
  assert.match(verdictOf(result, 'D').evidence?.quote ?? '', /价格形成 市场供求决定/u);
  assertVerbatim(result);
});

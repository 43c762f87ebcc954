import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closedListReadings } from '../../src/answer/closed-list.js';
import { unitsOf } from '../../src/answer/passage-units.js';
import type { Reading } from '../../src/answer/reading-order.js';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';
import { chunk } from '../retrieve/make-chunk.js';

// A small hand-made book, ingested for real, with lists a question's statements are written against: one list of
// clauses ending in ；, the last in 。, one of marked items, and one whose passage ends before the list does.
const BOOK = `# 第一章 信息披露

## 第一节 临时报告

发生重大事件时，基金管理人应当编制临时报告书。本书所称的重大事件主要包括：更换基金管理人、基金托管人、基金份额登记机构；基金经理发生变动；基金份额净值计价错误达基金份额净值的百分之零点五。

# 第二章 基金的上市

## 第一节 上市条件

基金份额上市交易，应当符合下列条件：
（一）基金合同期限为五年以上；
（二）基金募集金额不低于二亿元人民币；
（三）基金份额持有人不少于一千人。

# 第三章 基金管理人

## 第一节 职责

基金管理人的职责包括：依法办理基金备案手续；对所管理的不同基金财产分别管理、分别记账；
`;

const ask = notesBook({ 'rawdoc/信息披露笔记.md': BOOK }).ask;

void test('a statement a whole list does not hold, beside statements its items state, is contradicted, quoting the list', async () => {
  const r = await ask(
    '下列属于应当披露临时报告的重大事件的有（ ）。Ⅰ.更换基金托管人 Ⅱ.基金经理发生变动 Ⅲ.基金份额净值计价错误达基金份额净值的0.5% Ⅳ.基金份额净值随市场正常波动 A.Ⅰ、Ⅲ B.Ⅱ、Ⅳ C.Ⅰ、Ⅱ、Ⅲ、Ⅳ D.Ⅰ、Ⅱ、Ⅲ',
  );
  assert.equal(r.answer, 'D');
  for (const label of ['Ⅰ', 'Ⅱ', 'Ⅲ']) assert.equal(verdictOf(r, label).verdict, 'supported', label);
  const outside = verdictOf(r, 'Ⅳ');
  assert.equal(outside.verdict, 'contradicted');
  assert.equal(outside.reason, '不在所列之中：本书所称的重大事件主要包括');
  assert.equal(
    outside.evidence?.quote,
    '本书所称的重大事件主要包括：更换基金管理人、基金托管人、基金份额登记机构；基金经理发生变动；基金份额净值计价错误达基金份额净值的百分之零点五。',
  );
  assert.equal(verdictOf(r, 'D').verdict, 'supported');
  assert.equal(verdictOf(r, 'C').verdict, 'contradicted');
  assertVerbatim(r);
});

void test('a marked list read whole rules out the statement it does not hold', async () => {
  const r = await ask(
    '封闭式基金需要满足哪些条件才可以上市交易？Ⅰ.基金合同期限为5年以上 Ⅱ.基金募集金额不低于2亿元人民币 Ⅲ.基金份额持有人不少于1000人 Ⅳ.基金管理人自有资金认购不少于1000万元人民币 A.Ⅰ、Ⅲ、Ⅳ B.Ⅰ、Ⅱ、Ⅲ C.Ⅰ、Ⅱ、Ⅲ、Ⅳ D.Ⅱ、Ⅳ',
  );
  assert.equal(r.answer, 'B');
  const outside = verdictOf(r, 'Ⅳ');
  assert.equal(outside.verdict, 'contradicted');
  assert.match(outside.reason ?? '', /^不在所列之中：基金份额上市交易，应当符合下列条件$/u);
  assert.match(outside.evidence?.quote ?? '', /^基金份额上市交易，应当符合下列条件：.*（三）基金份额持有人不少于一千人。$/u);
  assertVerbatim(r);
});

void test('a list that runs past its passage rules out nothing: an item may follow', async () => {
  const r = await ask(
    '下列属于基金管理人职责的有（ ）。Ⅰ.依法办理基金备案手续 Ⅱ.对所管理的不同基金财产分别管理、分别记账 Ⅲ.召集基金份额持有人大会 A.Ⅰ、Ⅱ B.Ⅰ、Ⅲ C.Ⅱ、Ⅲ D.Ⅰ、Ⅱ、Ⅲ',
  );
  assert.equal(verdictOf(r, 'Ⅰ').verdict, 'supported');
  assert.equal(verdictOf(r, 'Ⅱ').verdict, 'supported');
  assert.equal(verdictOf(r, 'Ⅲ').verdict, 'not_found');
});

void test('a multi-select option a whole list does not hold is ruled out, the listed ones chosen', async () => {
  const r = await ask(
    '下列属于应当披露临时报告的重大事件的有（ ）。（多选）A.更换基金托管人 B.基金经理发生变动 C.基金份额净值随市场正常波动 D.基金份额净值计价错误达基金份额净值的0.5%',
  );
  assert.equal(verdictOf(r, 'C').verdict, 'contradicted');
  assert.match(verdictOf(r, 'C').reason ?? '', /^不在所列之中/u);
  assert.equal(r.answer, 'ABD');
  assertVerbatim(r);
});

void test('a statement one item of the list mostly holds is not ruled out: it may be that item, written otherwise', () => {
  const passage = chunk('list', {
    text: '本书所称的重大事件主要包括：更换基金管理人、基金托管人；基金经理发生变动；基金份额净值计价错误达基金份额净值的百分之零点五。',
  });
  const items = unitsOf(passage, 0).filter((u) => u.listLead !== undefined && u.lead === undefined);
  assert.equal(items.length, 3);
  const supported = (i: number): Reading => ({ verdict: 'supported', unit: items[i]!, coverage: 1, marks: [] });
  const readings = [supported(0), supported(1), null, null];
  const words = [
    ['更换', '基金托管人'],
    ['基金经理', '变动'],
    ['基金份额', '净值', '计价', '错误'],
    ['净值', '正常', '波动'],
  ];
  const listed = closedListReadings(readings, words);
  // Ⅲ's words all stand in the third item (its 0.5% was written another way): left unsettled.
  assert.equal(listed[2], null);
  // Ⅳ's do not: ruled out by the list, quoted whole.
  assert.equal(listed[3]?.verdict, 'contradicted');
  assert.equal(listed[3]?.unit.span, passage.text);
  assert.deepEqual(listed.slice(0, 2), [null, null]);
});

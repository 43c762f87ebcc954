import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A small hand-made book, ingested for real, where a sentence speaks of the stem's words but not of its case: a rule
// for another threshold, a value the stem itself states, and a word the stem names that sets one option apart.
const BOOK = `# 第一章 估值

## 第一节 估值错误的处理

基金份额净值计价错误达到或超过该基金份额净值的百分之零点二五时，基金管理人应当通报基金托管人，并报监管机构备案；错误偏差达到基金份额净值的百分之零点五时，基金管理人应当公告，并报监管机构备案。

# 第二章 信息披露

## 第一节 文本

基金信息披露文件应当采用中文文本。同时采用外文文本的，基金管理人应当保证两种文本的内容一致。两种文本发生歧义的，以中文文本为准。

# 第三章 久期

## 第一节 修正久期

例如，某债券的修正久期为4，当到期收益率上升百分之一时，其价格大约下跌百分之四。

# 第四章 私募基金管理人

## 第一节 任职限制

有下列情形之一的，不得担任私募基金管理人的董事、监事、高级管理人员、执行事务合伙人或者委派代表：
（一）因故意犯罪被判处刑罚，刑罚执行完毕未逾五年；
（二）最近五年被证券监督管理机构认定为不适当人选。

# 第五章 证券投资基金概述

## 第一节 证券投资基金的特点

- 基金财产独立于基金管理人的固有财产
- 基金财产独立于基金托管人的固有财产
`;

const ask = notesBook({ 'rawdoc/估值与披露笔记.md': BOOK }).ask;

void test("a rule stated for another threshold (百分之零点二五时) says nothing of the stem's (0.5%时)", async () => {
  const r = await ask(
    '基金份额净值计价错误偏差达到基金份额净值的0.5%时，基金管理人应当（ ）。A.仅在内部记录，无须对外说明 B.仅通报基金托管人 C.等待下一个季度报告时一并说明 D.公告，并报监管机构备案',
  );
  assert.equal(r.answer, 'D');
  assert.match(verdictOf(r, 'D').evidence?.quote ?? '', /百分之零点五时，基金管理人应当公告/u);
  // B is ruled out by the stem's own rule, which states D in its place, not by the 0.25% rule.
  const b = verdictOf(r, 'B');
  assert.equal(b.verdict, 'contradicted');
  assert.equal(b.inferred, true);
  assert.equal(b.reason, '教材此处为：公告，并报监管机构备案');
  assert.match(b.evidence?.quote ?? '', /百分之零点五时，基金管理人应当公告/u);
  assertVerbatim(r);
});

void test('an option made only of a value the stem states (1%) is ruled out by the value the clause states in its place', async () => {
  const r = await ask('某债券的修正久期为4，当到期收益率上升1%时，其价格大约（ ）。A.下跌4% B.上涨4% C.下跌1% D.上涨1%');
  assert.equal(r.answer, 'A');
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  const c = verdictOf(r, 'C');
  assert.equal(c.verdict, 'contradicted');
  assert.equal(c.reason, '数字不同：百分之四');
  assertVerbatim(r);
});

void test('what sets an option apart may be a word the stem names: 以中文文本为准 does not state 以外文文本为准', async () => {
  const r = await ask(
    '基金信息披露文件同时采用中文和外文文本，两种文本发生歧义的，（ ）。A.以外文文本为准 B.以中文文本为准 C.由基金托管人决定 D.两种文本均无效',
  );
  assert.equal(r.answer, 'B');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  assert.notEqual(verdictOf(r, 'A').verdict, 'supported');
  assertVerbatim(r);
});

void test('a long option that is a name with another name in brackets is a name: a 不得 about who may serve says nothing of it', async () => {
  const r = await ask(
    '请从以下选项中选择一个不被视为私募基金管理人高级管理人员的职位（ ）。A.人事负责人 B.副总经理 C.合规风控负责人 D.执行事务合伙人（委派代表）',
  );
  assert.equal(r.question.negated, true);
  const d = verdictOf(r, 'D');
  assert.notEqual(d.reason, '肯定/否定相反：不得');
  assert.notEqual(r.answer, 'D');
  assertVerbatim(r);
});

void test("a sentence holding a statement's names but not its act (挪用) does not state it", async () => {
  const r = await ask(
    '下列关于证券投资基金的说法，正确的是（ ）。A.基金财产可以归入基金管理人的固有财产 B.基金财产独立于基金管理人的固有财产 C.基金管理人可以将基金财产用于抵押 D.基金托管人可以挪用基金财产',
  );
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  assert.notEqual(verdictOf(r, 'D').verdict, 'supported');
  assertVerbatim(r);
});

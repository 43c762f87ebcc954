import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// One option fills a single-choice blank, so the clause that states one option where the question's words are also
// says why each other option is wrong, though it never names them: 教材此处为：…, the same clause, marked inferred.
// The letter and its confidence weigh such a verdict as not found: it adds nothing to the stated option's clause.
const BOOK = `# 第五章 基金的信息披露

## 第一节 披露文件

基金信息披露文件应当采用中文文本。同时采用外文文本的，两种文本发生歧义的，以中文文本为准。

在开始办理申购或者赎回后，基金管理人应当在不晚于每个开放日的次日，通过指定网站披露开放日的基金份额净值。

## 第二节 投资范围

货币市场基金可以投资于现金、中央银行票据和同业存单。
`;

// A note's line states its heading's subject: 投资期限：通常3-7年 under 私募股权投资基金 answers the question about it.
const NOTES = `# 第一章 股权投资基金概述

## 私募股权投资基金的特点

- 投资期限：通常3-7年
- 流动性：较差
`;

const book = notesBook({ 'rawdoc/信息披露.md': BOOK, 'rawdoc/股权投资笔记.md': NOTES });

void test('options the book never names are ruled out by the clause stating another in their place', async () => {
  const r = await book.ask(
    '开放式基金开始办理申购或者赎回后，基金管理人应当在不晚于（ ）披露开放日的基金份额净值。A.每个开放日的次日 B.每周最后一个工作日 C.每月最后一个工作日 D.每个季度结束之日',
  );
  assert.equal(r.answer, 'A');
  const stated = verdictOf(r, 'A');
  assert.equal(stated.verdict, 'supported');
  for (const label of ['B', 'C']) {
    const v = verdictOf(r, label);
    assert.deepEqual([v.verdict, v.inferred, v.reason], ['contradicted', true, '教材此处为：每个开放日的次日'], label);
    assert.equal(v.evidence?.quote, stated.evidence?.quote, label);
  }
  // D's own words (每个…日) are in that clause, which states A in their place: its own verdict, not an inferred one.
  assert.equal(verdictOf(r, 'D').verdict, 'contradicted');
  assert.equal(verdictOf(r, 'D').inferred, undefined);
  // The confidence weighs the inferred verdicts as not found: one of the three others is ruled out by its own clause.
  assert.equal(r.calibration?.ruledOut, 1 / 3);
});

void test('every other option inferred: the answer and its confidence are what they were with the others not found', async () => {
  const r = await book.ask(
    '基金信息披露文件同时采用中文和外文文本，两种文本发生歧义的，（ ）。A.以外文文本为准 B.以中文文本为准 C.由基金托管人决定 D.两种文本均无效',
  );
  assert.equal(r.answer, 'B');
  for (const label of ['A', 'C', 'D']) {
    const v = verdictOf(r, label);
    assert.deepEqual([v.verdict, v.inferred, v.reason], ['contradicted', true, '教材此处为：以中文文本为准'], label);
  }
  assert.equal(r.calibration?.ruledOut, 0);
  assert.equal(r.calibration?.against, 0);
});

void test("a note's line is read with its heading: the subject it leaves to the heading is the question's", async () => {
  const r = await book.ask('私募股权投资基金的投资期限通常为（ ）。A.1-2年 B.3-7年 C.8-10年 D.10年以上');
  assert.equal(r.answer, 'B');
  for (const label of ['A', 'C', 'D']) {
    const v = verdictOf(r, label);
    assert.deepEqual([v.verdict, v.inferred, v.reason], ['contradicted', true, '教材此处为：3-7年'], label);
  }
});

void test('a clause listing the stated option among others rules nothing out', async () => {
  const r = await book.ask('货币市场基金可以投资的是（ ）。A.股票期权 B.中央银行票据 C.信用衍生品 D.黄金');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  for (const label of ['A', 'C', 'D']) assert.equal(verdictOf(r, label).verdict, 'not_found', label);
});

void test('a negated stem infers nothing', async () => {
  const r = await book.ask(
    '关于开放式基金净值披露，下列说法错误的是（ ）。A.每个开放日的次日 B.每周最后一个工作日 C.每月最后一个工作日 D.每个季度结束之日',
  );
  assert.ok((r.verdicts ?? []).every((v) => v.inferred === undefined));
});

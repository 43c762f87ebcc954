import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// A single-choice question whose book states two or three of its options alike (a list names them all): the
// verdicts cannot tell them apart, so the letter chosen by support among them claims no more than its share, and
// the answer says which others the book states too.
const BOOK = `# 第九章 基金的信息披露

## 9.3 定期报告

基金管理人应当在每年结束之日起三个月内，编制完成基金年度报告。

基金管理人应当在上半年结束之日起两个月内，编制完成基金中期报告。

基金年度报告、基金中期报告和基金季度报告统称为基金定期报告。

## 9.4 临时报告

发生重大事件时，基金管理人应当编制临时报告书，并予公告。
`;

const book = notesBook({ 'rawdoc/信息披露.md': BOOK });

void test('two options the book states alike: the confidence is at most one half, and the answer names the other', async () => {
  const result = await book.ask('以下哪项属于基金定期报告？A.临时报告书 B.基金年度报告 C.基金中期报告 D.重大事件公告');
  assert.equal(verdictOf(result, 'B').verdict, 'supported');
  assert.equal(verdictOf(result, 'C').verdict, 'supported');
  assert.ok(['B', 'C'].includes(result.answer), result.answer);
  const other = result.answer === 'B' ? 'C' : 'B';
  // It stated 0.98 "high" for one of the two before.
  assert.ok(result.confidence <= 0.5, String(result.confidence));
  assert.match(result.message ?? '', new RegExp(`^${other} 同样有教材依据：教材未能区分，按支持度选 ${result.answer}`, 'u'));
});

void test('three options stated alike: at most a third', async () => {
  const result = await book.ask('以下哪项属于基金定期报告？A.基金季度报告 B.基金年度报告 C.基金中期报告 D.重大事件公告');
  for (const letter of ['A', 'B', 'C']) assert.equal(verdictOf(result, letter).verdict, 'supported', letter);
  assert.ok(result.confidence <= 1 / 3 + 0.005, String(result.confidence));
  assert.match(result.message ?? '', /同样有教材依据/u);
});

void test('one option the book singles out keeps its confidence, with no such note', async () => {
  const result = await book.ask('基金管理人应当在每年结束之日起三个月内编制完成的是？A.基金中期报告 B.临时报告书 C.基金年度报告');
  assert.equal(result.answer, 'C');
  assert.ok(result.confidence > 0.5, String(result.confidence));
  assert.doesNotMatch(result.message ?? '', /同样/u);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// Where the clause stating one option says nothing of the others: an item of a list, whose other items may state them
// in other words (（二）中期报告 for 半年度报告), and a question with 以上都是 among its options, which allows several.
const BOOK = `# 第六章 基金的信息披露

## 第一节 定期报告

基金定期报告包括：
（一）基金年度报告；
（二）基金中期报告；
（三）基金季度报告。

## 第二节 年度报告

基金管理人应当在每年结束之日起三个月内编制完成基金年度报告，并经会计师事务所审计。
`;

const book = notesBook({ 'rawdoc/信息披露.md': BOOK });

void test('an item of a list rules out no option its other items might state', async () => {
  const r = await book.ask('以下属于基金定期报告的是（ ）。A.基金年度报告 B.基金半年度报告 C.基金临时公告 D.基金招募说明书');
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  assert.match(verdictOf(r, 'A').evidence?.quote ?? '', /基金定期报告包括/u);
  for (const label of ['B', 'C', 'D']) assert.equal(verdictOf(r, label).verdict, 'not_found', label);
});

void test('with 以上都是 among the options, one option stated rules out none of the others, and ties with 以上都是', async () => {
  const r = await book.ask('基金管理人在每年结束之日起三个月内编制完成的是（ ）。A.基金年度报告 B.基金季度报告 C.基金月度报告 D.以上都是');
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  for (const label of ['B', 'C', 'D']) {
    assert.equal(verdictOf(r, label).verdict, 'not_found', label);
    assert.equal(verdictOf(r, label).inferred, undefined, label);
  }
  // The book states A and says nothing of B and C: A alone or all of them, it cannot tell.
  assert.equal(r.answer, 'A');
  assert.ok(r.confidence <= 0.5, String(r.confidence));
  assert.match(r.message ?? '', /^D 以上都是 未能排除：教材未说明 B、C，无法区分 A 与 D/u);
});

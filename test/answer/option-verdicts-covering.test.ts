import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coveringOf } from '../../src/answer/parse-question.js';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// Options that speak of the others (以上都是, 以上都不是) are stated by no clause: their verdict is read off the
// verdicts of the options they cover, with the clause of one of those, and the letter follows it. The same book has a
// rule per period (三个月, 两个月, 十五个工作日): a rule for another period than the stem's states none of its names.
const BOOK = `# 第九章 基金的信息披露

## 9.3 定期报告

基金管理人应当在每年结束之日起三个月内，编制完成基金年度报告。

基金管理人应当在上半年结束之日起两个月内，编制完成基金中期报告。

基金管理人应当在每个季度结束之日起十五个工作日内，编制完成基金季度报告。

基金年度报告、基金中期报告和基金季度报告统称为基金定期报告。

## 9.4 临时报告

发生重大事件时，基金管理人应当编制临时报告书，并予公告。
`;

const book = notesBook({ 'rawdoc/信息披露.md': BOOK });
const STEM = '以下哪项是主要的基金定期报告？';
const LISTED = '基金年度报告、基金中期报告和基金季度报告统称为基金定期报告。';

void test('all of the above, none of the above, and options that name something', () => {
  assert.equal(coveringOf('以上都是'), 'all');
  assert.equal(coveringOf('全部以上选项'), 'all');
  assert.equal(coveringOf('以上都不是'), 'none');
  assert.equal(coveringOf('以上均不正确'), 'none');
  assert.equal(coveringOf('All of the above'), 'all');
  assert.equal(coveringOf('基金年度报告'), null);
});

void test('以上都是 is supported when every other option is, and is then the answer', async () => {
  const result = await book.ask(`${STEM}A.以上都是 B.基金年度报告 C.基金中期报告 D.基金季度报告`);
  const all = verdictOf(result, 'A');
  assert.equal(all.verdict, 'supported');
  assert.equal(all.reason, 'B、C、D 均有教材依据');
  assert.equal(all.evidence?.quote, LISTED);
  // Before, the list naming B, C and D "stood in its place" and ruled it out, and the letter went to B.
  assert.equal(result.answer, 'A');
});

void test('以上都是 is contradicted by the clause of an option the book rules out', async () => {
  const result = await book.ask(`${STEM}A.以上都是 B.基金年度报告 C.基金中期报告 D.临时报告书`);
  assert.equal(verdictOf(result, 'D').verdict, 'contradicted');
  const all = verdictOf(result, 'A');
  assert.equal(all.verdict, 'contradicted');
  assert.equal(all.reason, 'D 与教材不符');
  assert.equal(all.evidence?.quote, verdictOf(result, 'D').evidence?.quote);
  assert.notEqual(result.answer, 'A');
});

void test('以上都不是 is contradicted by an option the book supports', async () => {
  const result = await book.ask(`${STEM}A.基金年度报告 B.临时报告书 C.重大事件公告 D.以上都不是`);
  assert.equal(verdictOf(result, 'A').verdict, 'supported');
  assert.equal(verdictOf(result, 'D').verdict, 'contradicted');
  assert.equal(verdictOf(result, 'D').reason, 'A 有教材依据');
  assert.equal(result.answer, 'A');
});

void test("a name in a rule for another period than the stem's is not stated for it", async () => {
  // 上半年结束之日起两个月内…基金中期报告 is the rule for another period than 三个月: it does not make 中期报告 the answer.
  const result = await book.ask(
    '基金管理人应当在每年结束之日起三个月内编制完成的是？A.基金中期报告 B.临时报告书 C.基金年度报告 D.以上都不是',
  );
  assert.equal(verdictOf(result, 'C').verdict, 'supported');
  assert.equal(result.answer, 'C');
  // 中期报告 is ruled out by the three-month rule, which states 年度报告 in its place, not by its own two-month rule.
  const a = verdictOf(result, 'A');
  assert.deepEqual([a.verdict, a.inferred, a.reason], ['contradicted', true, '教材此处为：基金年度报告']);
  assert.match(a.evidence?.quote ?? '', /^基金管理人应当在每年结束之日起三个月内/u);
});

void test('a rule in working days is another period than one in months', async () => {
  // 每个季度结束之日起十五个工作日内…基金季度报告 is no rule for 两个月: it does not make 季度报告 the answer.
  const result = await book.ask('基金管理人应当在上半年结束之日起两个月内编制完成的是？A.基金年度报告 B.基金季度报告 C.以上都不是');
  assert.equal(verdictOf(result, 'B').verdict, 'not_found');
  // The rule in working days still states its own period's report.
  const own = await book.ask(
    '基金管理人应当在每个季度结束之日起十五个工作日内编制完成的是？A.基金年度报告 B.基金中期报告 C.基金季度报告 D.临时报告书',
  );
  assert.equal(verdictOf(own, 'C').verdict, 'supported');
  assert.equal(own.answer, 'C');
});

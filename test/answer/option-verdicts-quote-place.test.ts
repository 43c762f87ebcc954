import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A small hand-made book, ingested for real, that states some facts twice: in a section and again in its chapter's
// summary, in two chapters under headings that name the question's subject or not, and a list of goals that settles a
// 不包括 question by the options it names.
const BOOK = `# 第一章 募集与设立

## 1.1 基金备案

基金管理人应当在基金募集完毕后20个工作日内办理基金备案手续。

## 1.2 募集对象

私募基金应当向合格投资者募集，单只私募基金的投资者人数累计不得超过法律规定的特定数量。

## 考点速记

- 基金备案时限：募集完毕后20个工作日内

# 第二章 基金管理人

## 2.1 设立条件

- 主要股东具有金融资产管理经验，最近3年没有违法记录，注册资本不低于3亿元人民币

# 第三章 监管

## 3.1 对基金管理人的监管

### 3.1.1 基金管理人的市场准入

- 主要股东应当具有金融资产管理经验，最近3年没有违法记录，注册资本应当不低于3亿元人民币

# 第四章 内部控制

## 4.1 内部控制的目标

基金管理人内部控制的目标包括：

（一）保证公司经营运作严格遵守法律法规；
（二）防范和化解经营风险；
（三）保障基金份额持有人的利益。

# 第五章 销售机构

## 5.1 销售业务

销售机构应当防范和化解经营风险，保障基金份额持有人的利益，保证经营运作严格遵守法律法规。
`;

const book = notesBook({ 'rawdoc/notes.md': BOOK });

void test("a fact the chapter's summary restates is quoted from the section that first states it", async () => {
  const r = await book.ask('基金备案的时限是基金募集完毕后：\nA. 10个工作日内\nB. 20个工作日内\nC. 30个工作日内\nD. 5个工作日内');
  assert.equal(r.answer, 'B');
  const b = verdictOf(r, 'B');
  assert.equal(b.verdict, 'supported');
  // The summary line holds more of the question's words (时限), but it repeats what 1.1 states.
  assert.match(b.evidence?.quote ?? '', /基金管理人应当在基金募集完毕后20个工作日内办理基金备案手续/);
  assert.deepEqual(b.evidence?.headings, ['第一章 募集与设立', '1.1 基金备案']);
  assertVerbatim(r);
});

void test('of two chapters stating the same clause, the one whose nearest heading names the question is quoted', async () => {
  const r = await book.ask('基金管理人主要股东最近几年不得有违法记录：\nA. 最近1年\nB. 最近2年\nC. 最近3年\nD. 最近5年');
  assert.equal(r.answer, 'C');
  const c = verdictOf(r, 'C');
  assert.equal(c.verdict, 'supported');
  assert.deepEqual(c.evidence?.headings, ['第三章 监管', '3.1 对基金管理人的监管', '3.1.1 基金管理人的市场准入']);
  assertVerbatim(r);
});

void test('an answer by elimination is shown first with the clauses that rule out the other options', async () => {
  const r = await book.ask(
    '内部控制的目标不包括：\nA. 保证公司经营运作严格遵守法律法规\nB. 防范和化解经营风险\nC. 追求利润最大化\nD. 保障基金份额持有人的利益',
  );
  assert.equal(r.answer, 'C');
  assert.equal(verdictOf(r, 'C').verdict, 'not_found');
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'supported');
  assert.equal(a.evidence?.headings?.[0], '第四章 内部控制');
  // The first evidence is the clause that rules out A, not the passage that merely holds most of the options' words.
  assert.equal(r.evidence[0]?.chunk_id, a.evidence?.chunk_id);
  assert.equal(r.evidence[0]?.quote, a.evidence?.quote);
  assertVerbatim(r);
});

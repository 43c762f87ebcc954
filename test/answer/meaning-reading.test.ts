import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A small hand-made book, ingested for real, that states what each measure is (含义：…) under a heading naming it.
const BOOK = `# 第一章 绩效评估

## 第一节 夏普比率

**公式：** S = (Rp - Rf) / σp

**含义：** 单位风险的超额收益，越大越好

## 第二节 特雷诺比率

**公式：** T = (Rp - Rf) / βp

**含义：** 单位系统风险的超额收益，越大越好
`;

const ask = notesBook({ 'rawdoc/绩效评估笔记.md': BOOK }).ask;

void test('more of a measure is more of what the book says it is: the same direction supported, the other contradicted', async () => {
  const r = await ask('夏普比率越大，表示：A.单位风险的超额收益越低 B.单位风险的超额收益越高 C.总风险越大 D.系统风险越大');
  assert.equal(r.answer, 'B');
  const b = verdictOf(r, 'B');
  assert.equal(b.verdict, 'supported');
  assert.match(b.evidence?.quote ?? '', /^含义：\s*单位风险的超额收益，越大越好$/u);
  assert.ok(
    b.evidence?.headings?.some((h) => h.includes('夏普比率')),
    JSON.stringify(b.evidence?.headings),
  );
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'contradicted');
  assert.equal(a.reason, '相反：单位风险的超额收益越大');
  assertVerbatim(r);
});

void test('less of a measure is less of it, read in the passage about that measure', async () => {
  const r = await ask(
    '特雷诺比率越小，说明：A.单位系统风险的超额收益越小 B.单位系统风险的超额收益越大 C.总风险越小 D.单位风险的超额收益越小',
  );
  assert.equal(r.answer, 'A');
  assert.equal(verdictOf(r, 'B').verdict, 'contradicted');
  // The Sharpe ratio's statement is another measure's: it says nothing of D.
  assert.equal(verdictOf(r, 'D').verdict, 'not_found');
  assertVerbatim(r);
});

void test('options about other quantities than the measure is get no verdict from its statement', async () => {
  const r = await ask('夏普比率越大，表示：A.总风险越大 B.系统风险越大 C.基金规模越大 D.管理费越高');
  for (const letter of ['A', 'B', 'C', 'D']) assert.equal(verdictOf(r, letter).verdict, 'not_found', letter);
});

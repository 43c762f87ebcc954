import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReadings, notesBook, verdictOf } from '../helpers/notes-book.js';

// Study notes that define each term as a section of its own: the heading names the term, and the sentence under it
// states the question without ever writing the term. The option is read in the section named after it, though no
// window of that section holds the option's words.
const BOOK = `# 第七章 基金的信息披露

## 7.1 信息披露的原则

信息披露的内容必须真实、准确、完整，不得有虚假记载、误导性陈述或者重大遗漏。

## 7.4 信息披露的禁止行为

### 7.4.1 虚假记载

- 记载的内容与事实不符

### 7.4.2 误导性陈述

- 信息披露的内容使投资者产生错误判断

### 7.4.3 重大遗漏

- 信息披露的内容有重大遗漏
`;

const book = notesBook({ 'rawdoc/信息披露.md': BOOK });

void test('an option is read in the section named after it, where the sentence states the question and names no option', async () => {
  const r = await book.ask('信息披露的内容使投资者产生错误判断，属于（ ）。A.虚假记载 B.误导性陈述 C.重大遗漏 D.违规承诺收益');
  assert.equal(r.answer, 'B');
  assert.equal(r.fallback, null, r.message);
  assert.match(verdictOf(r, 'B').evidence?.quote ?? '', /信息披露的内容使投资者产生错误判断/u);
  // The other terms, each with a section of its own beside it, are not what that sentence is under.
  const other = { verdict: 'contradicted', reason: '主体不同：误导性陈述' } as const;
  assertReadings(r, { A: other, B: { verdict: 'supported', reason: '所在小节：误导性陈述' }, C: other });
});

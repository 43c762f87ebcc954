import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deonticAgainst } from '../../src/answer/clause-cues.js';
import { normalizeText } from '../../src/text/analyzer.js';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A stem whose cue stands right before its blank (销售人员可以（ ）): what may be done is the option itself, so a
// sentence forbidding the option (不得接受投资者全权委托) contradicts it, and one allowing it supports it.
const BOOK = `# 第九章 基金销售行为规范

## 9.3 基金销售人员的行为规范

### 9.3.1 禁止行为

- 销售人员不得接受投资者全权委托
- 销售人员不得向投资者承诺收益

### 9.3.2 允许行为

- 销售人员可以向投资者提示投资风险
`;

const book = notesBook({ 'rawdoc/销售.md': BOOK });

void test('a sentence forbidding the option itself contradicts it when the stem’s cue stands before the blank', async () => {
  const r = await book.ask('基金销售人员可以（ ）。A.接受投资者全权委托 B.向投资者承诺收益 C.向投资者提示投资风险 D.代投资者签订合同');
  assert.equal(r.answer, 'C');
  assert.equal(r.fallback, null, r.message);
  // Before, 不得接受投资者全权委托 "supported" A as it writes A's words: three options alike, no letter to trust.
  for (const label of ['A', 'B']) assert.equal(verdictOf(r, label).verdict, 'contradicted', label);
  assert.equal(verdictOf(r, 'C').verdict, 'supported');
  assertVerbatim(r);
});

void test('the act is the option’s only where the cue stands right before the blank, and the sentence’s right before the option', () => {
  const asking = normalizeText('销售人员可以（ ）');
  const forbidding = normalizeText('销售人员不得接受投资者全权委托');
  assert.equal(deonticAgainst(forbidding, forbidding.indexOf('接受'), asking), '不得');
  // The sentence's cue is another act's (不得 … 向 … 接受): not this option's.
  const apart = normalizeText('销售人员不得以个人名义接受投资者全权委托');
  assert.equal(deonticAgainst(apart, apart.indexOf('接受'), asking), null);
  // A stem naming its act after the cue (可以投资的是) is read as before: the acts must be the same.
  const invest = normalizeText('货币市场基金不得投资于股票');
  assert.equal(deonticAgainst(invest, invest.indexOf('股票'), normalizeText('货币市场基金可以投资的是（ ）')), '不得');
  assert.equal(deonticAgainst(invest, invest.indexOf('股票'), normalizeText('货币市场基金可以持有的是（ ）')), null);
});

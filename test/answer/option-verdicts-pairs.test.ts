import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formerLatterTerm, withOpposites } from '../../src/answer/clause-cues.js';
import { assertSettled, notesBook, verdictOf } from '../helpers/notes-book.js';

// Pairs a clause can be read by: two terms introduced together and then said of by 前者 and 后者 (the 前者 clause is
// about the first term only), words of opposite sense (越短 against 越长), and two clauses of one sentence that state a
// claim of two clauses with its values.
const SENTENCE =
  '货币市场基金的收益一般以“每万份基金已实现收益”和“七日年化收益率”两个指标进行披露，前者反映每一万份基金份额在一天内实现的收益，后者是以最近七个自然日的平均收益水平折算的年收益率。';
const BOOK = `# 第二章 基金的类型

## 2.2 货币市场基金

货币市场基金的份额净值通常保持在一元。${SENTENCE}

# 第六章 债券久期

## 6.1 久期的性质

投资者在交易日即T日提交的申购申请，基金份额登记机构一般在T＋1日进行确认。

麦考利久期具有以下性质：零息债券的麦考利久期等于其剩余期限；附息债券的麦考利久期小于其剩余期限；在其他条件相同的情况下，票面利率越高，麦考利久期越短；剩余期限越长，麦考利久期一般越长。
`;

const book = notesBook({ 'rawdoc/基金基础知识.md': BOOK });

void test('前者 / 后者 name the terms of the pair before them, in order', () => {
  const former = '前者反映每一万份基金份额在一天内实现的收益，';
  assert.equal(formerLatterTerm(SENTENCE, former, '关于“七日年化收益率”的说法'), '每万份基金已实现收益');
  // A question about the 前者 term itself, or naming both, is answered by the clause as it stands.
  assert.equal(formerLatterTerm(SENTENCE, former, '关于“每万份基金已实现收益”的说法'), null);
  assert.equal(formerLatterTerm(SENTENCE, former, '每万份基金已实现收益与七日年化收益率的区别'), null);
  assert.equal(formerLatterTerm(SENTENCE, '后者是以最近七个自然日的平均收益水平折算的年收益率。', '关于七日年化收益率的说法'), null);
});

void test('an option stated by the 前者 clause is not what the 后者 term is', async () => {
  const result = await book.ask(
    '下列关于货币市场基金“七日年化收益率”的说法中，正确的是（ ）。A.反映每一万份基金份额在一天内实现的收益 B.是以最近七个自然日的平均收益水平折算的年收益率 C.是最近七个工作日的累计收益率 D.是对未来七日收益的预测值',
  );
  assertSettled(result, { answer: 'B', supported: 'B', contradicted: 'A', reason: '主体不同：每万份基金已实现收益' });
});

void test('a clause that says a word of the claim in reverse (越短 for 越长) is the one that speaks of it, and contradicts it', async () => {
  assert.equal(withOpposites('麦考利久期越短；', '麦考利久期越长'), '麦考利久期越短； 越长');
  // A claim holding both words (有限合伙人 … 无限) is not read as saying one in reverse.
  assert.equal(withOpposites('有限合伙人以认缴出资额为限承担责任', '有限合伙人承担无限责任'), '有限合伙人以认缴出资额为限承担责任');
  const result = await book.ask(
    '下列关于麦考利久期的说法中，不正确的是（ ）。A.附息债券的麦考利久期小于其剩余期限 B.剩余期限越长，麦考利久期一般越长 C.在其他条件相同的情况下，票面利率越高，麦考利久期越长 D.零息债券的麦考利久期等于其剩余期限',
  );
  // A negated stem: the answer is the option the book contradicts; the true statements are supported.
  assertSettled(result, { answer: 'C', supported: 'B', contradicted: 'C', reason: '相反：越短' });
});

void test('a claim of two clauses with values is stated across two clauses of one sentence', async () => {
  const result = await book.ask(
    '下列关于申购申请确认的说法中，正确的是（ ）。A.投资者T日提交的申购申请，登记机构一般在T＋1日确认 B.投资者T日提交的申购申请，登记机构一般在T＋2日确认 C.投资者T日提交的申购申请，登记机构一般在T＋3日确认 D.投资者T日提交的申购申请，登记机构一般在T＋5日确认',
  );
  assert.equal(verdictOf(result, 'A').verdict, 'supported');
  assert.equal(verdictOf(result, 'B').verdict, 'contradicted');
  assert.equal(result.answer, 'A');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A small hand-made book, ingested for real, whose lists are written without item markers: a lead ending in a colon
// that runs into its first item, then items ending in ；, the last in 。. Each item is read with its lead: who does
// it, and whether the lead says it must or need not be done.
const BOOK = `# 第一章 基金当事人

## 第一节 基金托管人

基金托管人是基金持有人权益的代表，通常由依法设立并取得基金托管资格的商业银行担任。为保证基金财产的安全，基金托管人与基金管理人不得为同一机构，也不得相互出资或者相互持有股份。

基金托管人的主要职责包括：安全保管基金财产；按照规定开设基金财产的资金账户和证券账户；
对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立；
复核、审查基金管理人计算的基金资产净值和基金份额申购、赎回价格。

## 第二节 基金份额持有人的权利

基金份额持有人可以对基金管理人、基金托管人、基金服务机构损害其合法权益的行为依法提起诉讼。

# 第二章 基金份额持有人大会

## 第一节 大会的职权

下列事项应当通过召开基金份额持有人大会审议决定：决定更换基金管理人、基金托管人；
决定转换基金运作方式；
决定与其他基金合并。
需要说明的是，在法律法规和基金合同允许的范围内调低基金管理费率，一般不需要召开持有人大会。

# 第三章 交易型开放式指数基金

## 第一节 套利

当ETF的二级市场价格与基金份额净值出现较大偏离时，投资者可以在两个市场之间进行套利：当二级市场价格高于净值时，可以在一级市场申购份额、在二级市场卖出；
价格低于净值时，则可以在二级市场买入份额、在一级市场赎回。

# 第四章 投资风险

## 第一节 系统性风险

系统性风险主要包括经济周期性波动风险、利率风险、购买力风险和汇率风险。

## 第二节 合规

基金管理人应当贯彻落实国家政策，健全风险防控体系。
`;

const ask = notesBook({ 'rawdoc/基金当事人笔记.md': BOOK }).ask;

void test('an item of a list without markers is read with its lead, and the clause holding every word of a statement decides it', async () => {
  const r = await ask(
    '下列关于基金托管人的说法中，错误的是（ ）。A.基金托管人可以与基金管理人为同一机构 B.基金托管人对所托管的不同基金财产分别设置账户 C.基金托管人复核基金管理人计算的基金资产净值 D.基金托管人安全保管基金财产',
  );
  assert.equal(r.answer, 'A');
  // The sentence holding every word of A says 不得; a sentence naming the two parties and some 机构 does not decide it.
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'contradicted');
  assert.equal(a.reason, '肯定/否定相反：不得');
  assert.match(a.evidence?.quote ?? '', /基金托管人与基金管理人不得为同一机构/u);
  // B and C are items after the lead's own sentence: quoted with the lead, the items between left out.
  for (const [label, item] of [
    ['B', '对所托管的不同基金财产分别设置账户'],
    ['C', '复核、审查基金管理人计算的基金资产净值'],
  ] as const) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'supported', label);
    assert.match(v.evidence?.quote ?? '', new RegExp(`^基金托管人的主要职责包括：…${item}`, 'u'), label);
  }
  assert.equal(verdictOf(r, 'D').verdict, 'supported');
  assert.equal(r.verdictConflict, undefined, 'the letter agrees with its evidence');
  assertVerbatim(r);
});

void test('a lead that says the items must be done contradicts each item for a stem asking what need not be', async () => {
  const r = await ask(
    '下列事项中，一般不需要召开基金份额持有人大会的是（ ）。A.更换基金管理人 B.转换基金运作方式 C.与其他基金合并 D.在法律法规和基金合同允许的范围内调低基金管理费率',
  );
  assert.equal(r.answer, 'D');
  for (const label of ['A', 'B', 'C']) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'contradicted', label);
    assert.equal(v.reason, '肯定/否定相反：应当', label);
    assert.match(v.evidence?.quote ?? '', /^下列事项应当通过召开基金份额持有人大会审议决定：/u, label);
  }
  assert.equal(verdictOf(r, 'D').verdict, 'supported');
  assertVerbatim(r);
});

void test("a clause said of the other case than the stem's (低于 for 高于) contradicts the option", async () => {
  const r = await ask(
    '当ETF的二级市场价格高于基金份额净值时，投资者可以进行的套利操作是（ ）。A.在一级市场申购份额、在二级市场卖出 B.在二级市场买入份额、在一级市场赎回 C.在二级市场买入份额并持有至到期 D.在一级市场申购份额后立即赎回',
  );
  assert.equal(r.answer, 'A');
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  const b = verdictOf(r, 'B');
  assert.equal(b.verdict, 'contradicted');
  assert.equal(b.reason, '相反：低于');
  assert.match(b.evidence?.quote ?? '', /价格低于净值时，则可以在二级市场买入份额、在一级市场赎回/u);
  assertVerbatim(r);
});

void test("a statement that only names something is found by its name where the stem's words are, not by its pieces", async () => {
  const r = await ask('下列属于系统性风险的是（ ）。Ⅰ.政策风险 Ⅱ.利率风险 Ⅲ.汇率风险 A.Ⅰ、Ⅱ B.Ⅰ、Ⅲ C.Ⅱ、Ⅲ D.Ⅰ、Ⅱ、Ⅲ');
  for (const label of ['Ⅱ', 'Ⅲ']) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'supported', label);
    assert.match(v.evidence?.quote ?? '', /^系统性风险主要包括/u, label);
  }
  // 政策 and 风险 stand in 贯彻落实国家政策，健全风险防控体系, which says nothing of 政策风险.
  assert.equal(verdictOf(r, 'Ⅰ').verdict, 'not_found');
  assertVerbatim(r);
});

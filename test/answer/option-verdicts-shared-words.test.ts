import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coveringOf } from '../../src/answer/parse-question.js';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// Options that share a word (认购 of 认购数量, 认购份额, 认购金额) name it together: a clause holding only one option's
// own part (基金份额 for 认购份额) does not state that option. An option that speaks of the others (全部以上选项) names
// nothing, so it does not hide the word the others share. The book writes 份额 and never 认购.
const BOOK = `# 第三章 基金的募集

## 3.1 开放式基金

采用开放式运作方式的基金（以下简称开放式基金），是指基金份额总额不固定，基金份额可以在基金合同约定的时间和场所申购或者赎回的基金。

## 3.2 封闭式基金

采用封闭式运作方式的基金（以下简称封闭式基金），是指基金份额总额在基金合同期限内固定不变，基金份额持有人不得申请赎回的基金。
`;

// 投资管理 asked of a stem about 基金管理人: the stem holds 管理 only inside its own word, so a clause holding 投资 (in
// 投资人, 投资风险) does not state it.
const SALES = `# 第六章 基金的销售

## 6.1 销售机构的义务

基金销售机构应当向投资人充分揭示投资风险，并根据投资人的风险承担能力销售不同风险等级的基金产品。

## 6.2 销售结算资金

基金销售结算资金是指由基金销售机构、基金销售支付机构或者基金份额登记机构归集的，在基金投资人结算账户与基金托管账户之间划转的申购、赎回等资金。
`;

const book = notesBook({ 'rawdoc/基金募集.md': BOOK, 'rawdoc/基金销售.md': SALES });

void test('options speaking of the others are told from options naming something', () => {
  for (const text of ['以上都是', '全部以上选项', '这些全部都是', '以上均不正确', '全部选项', '以上说法都正确']) {
    assert.notEqual(coveringOf(text), null, text);
  }
  for (const text of ['全部基金财产', '认购份额', '基金托管人', '50%以上', '一个月以上半年以下', '都市圈']) {
    assert.equal(coveringOf(text), null, text);
  }
});

void test('a clause holding an option only by the part the others do not share does not state it', async () => {
  // 基金份额总额不固定 speaks of 份额, not of 认购份额: no option is stated, with or without an option naming the others.
  for (const question of [
    '采取什么方式可以对开放式基金进行认购？A.认购数量 B.全部以上选项 C.认购份额 D.认购金额',
    '采取什么方式可以对开放式基金进行认购？A.认购数量 B.认购时间 C.认购份额 D.认购金额',
  ]) {
    const result = await book.ask(question);
    assert.equal(verdictOf(result, 'C').verdict, 'not_found', question);
    assert.equal(result.answer, '', question);
  }
});

void test("a word the stem holds only inside a longer word of its own is still the option's to be found", async () => {
  const result = await book.ask('以下哪项不属于基金管理人对基金销售机构的业务规范和监督范畴？A.信息传输 B.投资管理 C.销售服务 D.资金归集');
  assert.equal(verdictOf(result, 'B').verdict, 'not_found');
  // 资金归集 is written whole (…归集的…资金): it is stated.
  assert.equal(verdictOf(result, 'D').verdict, 'supported');
});

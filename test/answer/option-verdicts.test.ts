import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnswerResult } from '../../src/answer/answer-types.js';
import { valuesOf } from '../../src/answer/claim-forms.js';
import { wholePieces } from '../../src/answer/claim-reading.js';
import { superlativeUnstated } from '../../src/answer/clause-cues.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { assertSettled, assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A small hand-made book, ingested for real (chunks, FTS5, vectors), where options are contradicted three ways: by a
// number, by a negation, and by another party under a list lead.
const BOOK = `# 第一章 基金托管

## 第一节 基金托管人的职责

基金托管人应当履行下列职责：
（一）安全保管基金财产；
（二）按照规定开设基金财产的资金账户和证券账户；
（三）对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立；
（四）保存基金托管业务活动的记录、账册、报表和其他相关资料；
（五）复核、审查基金管理人计算的基金资产净值和基金份额申购、赎回价格。

## 第二节 基金份额持有人大会

召开基金份额持有人大会，召集人应当至少提前三十日公告持有人大会的召开时间、会议形式、审议事项和议事程序。

# 第二章 货币市场基金

## 第一节 投资范围

货币市场基金不得投资于股票，也不得投资于可转换债券。
货币市场基金可以投资于现金、中央银行票据和同业存单。

## 第二节 申购与赎回

基金管理人应当在T+1日内对投资者的申购、赎回申请进行确认。

# 第三章 基金费用

## 第一节 托管费

托管费按前一日基金资产净值的一定比例逐日计提，示例股票基金的年托管费率为百分之零点二，货币市场基金为百分之零点零五。

## 第二节 管理费

例如，某股票基金前一日的基金资产净值为三十六亿五千万元，年管理费率为百分之一点二，当年天数为三百六十五天，则当日应计提的管理费为三十六亿五千万元×百分之一点二÷三百六十五，即十二万元。

## 第三节 定期报告

表3-1 基金定期报告的披露时限报告类型 披露时限季度报告 每个季度结束之日起15个工作日内中期报告 上半年结束之日起2个月内年度报告 每年结束之日起3个月内

## 第四节 设立条件

投资条款清单（Term Sheet）是投资方与融资方就投资事项达成的初步意向书。设立基金管理公司，注册资本不低于一亿元人民币。私募基金合格投资者（个人）：金融资产不低于300万元或者最近3年个人年均收入不低于50万元。

# 第四章 绩效评价

## 第一节 风险调整后收益

特雷诺比率与夏普比率类似，区别在于它以贝塔系数而不是标准差作为风险的衡量指标。

# 第五章 投资条款

## 第一节 对赌条款

**对赌条款（估值调整条款）：**

- **业绩对赌**：根据企业未来业绩调整估值
- **上市对赌**：根据企业是否上市调整估值
- **回购对赌**：未达到约定条件时，企业或股东回购股权

# 第六章 风险与估值

## 第一节 风险价值

风险价值的定义：在给定的置信水平和持有期内，投资组合可能遭受的最大损失。

## 第二节 净值的计算与复核

基金份额净值由基金管理人负责计算，由基金托管人进行复核。基金管理人只收取管理费，并不参与基金收益的分配。

# 第七章 清算

## 第一节 清算财产的分配

支付清算费用 → 支付职工工资 → 缴纳所欠税款 → 清偿公司债务 → 分配剩余财产

# 第八章 股权投资基金

## 第一节 收益分配

- **管理费**：按基金规模的一定比例收取（通常2%）
- **业绩报酬**：按基金收益的一定比例收取（通常20%）

# 第九章 债券

## 第一节 当期收益率

当期收益率 = 年利息 / 债券价格

# 第十章 退出

## 第一节 各种退出方式的收益

股权投资的退出方式：上市、并购或管理层回购。

上市退出：收益最高，但时间最长。

清算退出：收益最低，可能亏损。

# 第十一章 合规管理

## 第一节 合规管理与内部控制的区别

| 项目 | 合规管理 | 内部控制 |
|------|------|------|
| 管理内容 | 法律法规合规 | 全面风险管理 |

## 第二节 合规管理的内容

- 法律法规合规
- 行业规范合规
- 职业道德合规

# 第十二章 私募基金

## 第一节 私募基金管理人和私募基金托管人

私募基金管理人应当履行下列职责：（一）依法募集资金，办理私募基金备案；
（二）对所管理的不同私募基金财产分别管理、分别记账，进行投资；
（三）保存私募基金财产管理业务活动的记录、账册、报表和其他有关资料。
`;

const book = notesBook({ 'rawdoc/基金托管笔记.md': BOOK });
const ask = book.ask;

/** The answer is the one option its clause supports, every other option is contradicted, and every quote is verbatim. */
function assertOnlySupported(r: AnswerResult, answer: string): void {
  assert.equal(r.answer, answer);
  assert.deepEqual(
    r.verdicts?.map((v) => [v.label, v.verdict]),
    r.verdicts?.map((v) => [v.label, v.label === answer ? 'supported' : 'contradicted']),
  );
  assert.equal(r.verdicts?.length, 4);
  assertVerbatim(r);
}

void test('numbers read in one normal form: 三十日 = 30日 = 30天, T日 = T+0, 12个月 = 12月', () => {
  assert.deepEqual(valuesOf('至少提前三十日'), ['30日']);
  assert.deepEqual(valuesOf('30天'), ['30日']);
  assert.deepEqual(valuesOf('T+1日'), ['t+1']);
  assert.deepEqual(valuesOf('T日'), ['t+0']);
  assert.deepEqual(valuesOf('控股股东36个月'), ['36月']);
  assert.deepEqual(valuesOf('百分之五'), ['5%']);
  // An amount written with both 亿 and 万, or with digits and a Chinese multiplier, is one value.
  assert.deepEqual(valuesOf('三十六亿五千万元'), ['36.5亿元']);
  assert.deepEqual(valuesOf('36.5亿元'), ['36.5亿元']);
  assert.deepEqual(valuesOf('3千万元'), valuesOf('三千万元'));
  assert.deepEqual(valuesOf('1亿5千万份'), ['1.5亿份']);
  assert.deepEqual(valuesOf('五万九千七百元'), ['59700元']);
});

void test("of several values in one clause, the one the question's words lead to is stated; in any option's unit", async () => {
  // A table flattened into one line: each report's time limit follows its name.
  const half = await ask('基金中期报告应当在上半年结束之日起（ ）内披露。A.15个工作日 B.1个月 C.2个月 D.3个月');
  assertSettled(half, { answer: 'C', supported: 'C', contradicted: 'A', reason: '数字不同：2个月' });
  assert.equal(verdictOf(half, 'D').reason, '数字不同：2个月');
  const quarter = await ask('基金季度报告应当在每个季度结束之日起（ ）内披露。A.15个工作日 B.1个月 C.2个月 D.3个月');
  assertSettled(quarter, { answer: 'A', supported: 'A', contradicted: 'C', reason: '数字不同：15个工作日' });
  // 年均收入 leads to 50万元, not to the 300万元 of 金融资产 that the clause states first.
  const income = await ask('私募基金合格投资者的个人年均收入要求是不低于（ ）。A.20万元 B.30万元 C.50万元 D.100万元');
  assertSettled(income, { answer: 'C', supported: 'C', contradicted: 'A', reason: '数字不同：50万元' });
  // 一亿元 answers options written in 万元 too.
  const capital = await ask('设立基金管理公司，注册资本不低于（ ）。A.1000万元人民币 B.3000万元人民币 C.5000万元人民币 D.1亿元人民币');
  assertSettled(capital, { answer: 'D', supported: 'D', contradicted: 'A', reason: '数字不同：一亿元' });
});

void test('a sentence that allows what the question forbids contradicts the option, and one that forbids it supports it', async () => {
  // 可以投资于现金、中央银行票据和同业存单 says the opposite of 不得投资 of each of them.
  const forbidden = await ask('货币市场基金不得投资的是（ ）。A.现金 B.中央银行票据 C.同业存单 D.商业汇票');
  for (const label of ['A', 'B', 'C']) assert.equal(verdictOf(forbidden, label).reason, '相反：可以', label);
  assert.equal(verdictOf(forbidden, 'D').verdict, 'not_found');
  assertVerbatim(forbidden);
  const allowed = await ask('货币市场基金可以投资的是（ ）。A.股票 B.可转换债券 C.中央银行票据 D.信用债券');
  assertSettled(allowed, { answer: 'C', supported: 'C', contradicted: 'A', reason: '否定：不得' });
  // The sentence that forbids 股票 and 可转换债券 does not state them in the place of what may be bought.
  assert.notEqual(verdictOf(allowed, 'D').verdict, 'contradicted');
});

void test('an acronym option is read as the English words the book writes beside the term, in the passages found for the stem', async () => {
  // No option is written in the book, so no option has passages of its own: the stem's are read.
  const r = await ask('投资条款清单的英文缩写是（ ）。A.MOU B.LOI C.TS D.SPA');
  assert.equal(verdictOf(r, 'C').verdict, 'supported');
  assert.match(verdictOf(r, 'C').evidence?.quote ?? '', /投资条款清单（Term Sheet）/u);
  for (const label of ['A', 'B', 'D']) assert.equal(verdictOf(r, label).reason, '教材此处为：TS', label);
  // The clauses settle it on their own, one option stated and the others ruled out: an answer, not a guess at chance,
  // though the book writes none of the options as such.
  assert.equal(r.answer, 'C');
  assert.equal(r.fallback, null);
  assert.ok(r.confidence > 0.5, String(r.confidence));
  assert.equal(r.evidence[0]?.quote, verdictOf(r, 'C').evidence?.quote);
  assertVerbatim(r);
});

void test("a stem's amount written otherwise in the book is the stem's, not another number: 36.5亿元 is 三十六亿五千万元", async () => {
  const r = await ask(
    '某股票基金前一日的基金资产净值为36.5亿元，年管理费率为1.2%，当年天数为365天，则当日应计提的管理费为（ ）。A.1.2万元 B.4.38万元 C.10万元 D.12万元',
  );
  assertSettled(r, { answer: 'D', supported: 'D', contradicted: 'A', reason: '数字不同：十二万元' });
  assert.equal(r.message, undefined, 'the letter agrees with its evidence');
});

void test('a list item is read with its lead: the party that does it is the lead, another party is contradicted', async () => {
  const r = await ask('复核、审查基金管理人计算的基金资产净值的是（ ）。A.基金份额持有人 B.基金管理人 C.基金托管人 D.基金销售机构');
  const b = assertSettled(r, { answer: 'C', supported: 'C', contradicted: 'B', reason: '主体不同：基金托管人' });
  // The quote holds the lead and the item.
  assert.match(b.evidence?.quote ?? '', /^基金托管人应当履行下列职责：.*（五）复核、审查基金管理人计算的基金资产净值/u);
  assert.equal(r.verdicts?.length, 4, 'every option gets a verdict');
});

void test("another party's list of duties says nothing of the stem's party: a 私募基金管理人 item neither supports nor rules out a 基金托管人 duty", async () => {
  const r = await ask(
    '基金托管人应当履行的职责不包括（ ）。A.安全保管基金财产 B.按照规定开设基金财产的资金账户和证券账户 C.依法募集资金，办理基金备案 D.保存基金财产管理业务活动的记录',
  );
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  // The first item shares its sentence with the lead; the third stands alone under it. Neither is the 托管人's.
  for (const label of ['C', 'D']) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'not_found', label);
    assert.doesNotMatch(v.evidence?.quote ?? '', /私募/u, label);
  }
  // Its own party's list still speaks: 基金托管人 keeps records of its own 托管业务, which the book writes.
  const own = await ask('基金托管人应当履行的职责包括（ ）。A.保存基金托管业务活动的记录 B.依法募集资金 C.办理私募基金备案 D.进行投资');
  assert.equal(verdictOf(own, 'A').verdict, 'supported');
  assert.match(verdictOf(own, 'A').evidence?.quote ?? '', /^基金托管人应当履行下列职责：/u);
  assertVerbatim(r);
});

void test('a different number contradicts the option; 三十日 supports 30天', async () => {
  const r = await ask('召开基金份额持有人大会，召集人应当至少提前（ ）公告会议的召开时间。A.10天 B.15天 C.30天 D.60天');
  assert.equal(r.answer, 'C');
  assert.equal(verdictOf(r, 'C').verdict, 'supported');
  for (const label of ['A', 'B', 'D']) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'contradicted', label);
    assert.match(v.reason ?? '', /^数字不同：.*三十日/u);
  }
  assertVerbatim(r);
});

void test('an elided clause is read with the one before it: 货币市场基金为百分之零点零五 states its 托管费率', async () => {
  const r = await ask('货币市场基金的年托管费率为（ ）。A.0.05% B.0.2% C.0.5% D.1%');
  assertSettled(r, { answer: 'A', supported: 'A', contradicted: 'B', reason: '数字不同：百分之零点零五' });
  // The clause that repeats the question's words stays first when the next one adds none of them.
  const stock = await ask('股票基金的年托管费率为（ ）。A.0.05% B.0.2% C.0.5% D.1%');
  assert.equal(stock.answer, 'B');
  assert.equal(verdictOf(stock, 'A').reason, '数字不同：百分之零点二');
});

void test('an option named only to be set aside (以贝塔系数而不是标准差) is contradicted, the one it gives way to supported', async () => {
  const r = await ask('特雷诺比率以（ ）作为风险的衡量指标。A.标准差 B.贝塔系数 C.最大回撤 D.跟踪误差');
  assertSettled(r, { answer: 'B', supported: 'B', contradicted: 'A', reason: '否定：而不是' });
});

void test('a term item answers for its own term: 上市对赌：… is not what 业绩对赌 means, and a clause holding only the words the options share supports none', async () => {
  const r = await ask(
    '对赌协议中，业绩对赌的含义是（ ）。A.根据企业未来业绩调整估值 B.根据企业是否上市调整估值 C.根据市场环境调整估值 D.根据行业趋势调整估值',
  );
  const b = assertSettled(r, {
    answer: 'A',
    supported: 'A',
    quote: /业绩对赌：根据企业未来业绩调整估值/u,
    contradicted: 'B',
    reason: '主体不同：上市对赌',
  });
  // B's clause is its own item, which holds 上市, never A's item, which holds only the words all four options share.
  assert.match(b.evidence?.quote ?? '', /上市对赌：根据企业是否上市调整估值/u);
  for (const label of ['C', 'D']) assert.equal(verdictOf(r, label).verdict, 'contradicted');
});

void test('a claim the book states across its comma is supported; one that leaves out a word and states its opposite is contradicted', async () => {
  const r = await ask(
    '风险价值的含义是（ ）。A.投资组合的最大可能收益 B.在给定置信水平和持有期内的最大可能损失 C.投资组合的平均收益 D.投资组合的标准差',
  );
  assertSettled(r, {
    answer: 'B',
    supported: 'B',
    quote: /在给定的置信水平和持有期内，投资组合可能遭受的最大损失/u,
    contradicted: 'A',
    reason: '相反：损失',
  });
});

void test('a claim of two clauses is read clause by clause: who computes and who checks stay bound; 并不 negates', async () => {
  const r = await ask(
    '关于基金份额净值的计算与复核，下列说法正确的是（ ）。A.由基金托管人计算，由基金管理人复核 B.由基金管理人计算，由基金托管人复核 C.由基金份额登记机构计算，由基金托管人复核 D.由会计师事务所计算，由监管机构复核',
  );
  assert.equal(r.answer, 'B');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  // The same sentence names both parties and both acts, but the other way round: that sentence rules A out.
  const swapped = verdictOf(r, 'A');
  assert.equal(swapped.verdict, 'contradicted');
  assert.equal(swapped.reason, '二者互换：基金托管人 ↔ 基金管理人');
  assert.match(swapped.evidence?.quote ?? '', /由基金管理人负责计算，由基金托管人进行复核/u);
  // Another party in one part is no exchange: not read as one.
  assert.doesNotMatch(verdictOf(r, 'C').reason ?? '', /互换/u);
  assertVerbatim(r);
  const negated = await ask(
    '关于基金管理人，下列说法错误的是（ ）。A.基金管理人参与基金收益的分配，并收取管理费 B.基金份额净值由基金管理人负责计算 C.基金份额净值由基金托管人进行复核 D.风险价值是投资组合可能遭受的最大损失',
  );
  const denied = verdictOf(negated, 'A');
  assert.equal(denied.verdict, 'contradicted');
  assert.equal(denied.reason, '肯定/否定相反：并不');
  assert.equal(negated.answer, 'A');
  assertVerbatim(negated);
});

void test('an order written with arrows answers 最后 and 首先 by position', async () => {
  const last = await ask('清算财产的分配中，最后分配的是（ ）。A.清算费用 B.职工工资 C.所欠税款 D.剩余财产');
  assertOnlySupported(last, 'D');
  assert.equal(verdictOf(last, 'A').reason, '顺序：最后为剩余财产');
  const first = await ask('清算财产的分配中，首先支付的是（ ）。A.剩余财产 B.职工工资 C.清算费用 D.所欠税款');
  assert.equal(first.answer, 'C');
  assert.equal(verdictOf(first, 'A').reason, '顺序：最先为清算费用');
});

void test("a word the analyzer finds straddling two others (募股 in 私募|股权) is not one of the question's words", () => {
  const { config } = loadConfig({ root: book.root(), env: {} });
  const { analyzer } = analyzerFromConfig(book.root(), config);
  const stem = '私募股权投资基金的业绩报酬通常为基金收益的';
  const tokens = analyzer.tokens(stem);
  assert.ok(tokens.includes('募股'), 'jieba gives the straddling piece');
  const pieces = wholePieces(tokens, stem);
  assert.ok(!pieces.includes('募股'));
  for (const word of ['私募', '股权', '业绩', '报酬', '收益']) assert.ok(pieces.includes(word), word);
});

void test('a formula question: the formula the book writes is supported, the others contradicted (公式 is how the answer is asked, not its subject)', async () => {
  const r = await ask('当期收益率的计算公式是（ ）。A.年利息 / 债券面值 B.年利息 / 债券价格 C.债券价格 / 年利息 D.债券面值 / 年利息');
  assertOnlySupported(r, 'B');
  assert.equal(verdictOf(r, 'A').reason, '公式不同');
});

void test('a question asking for the highest is settled by the sentence that says highest, not by a list naming the options', async () => {
  const r = await ask('股权投资中，收益最高的退出方式是（ ）。A.上市退出 B.并购 C.管理层回购 D.清算退出');
  assert.equal(r.answer, 'A');
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  assert.match(verdictOf(r, 'A').evidence?.quote ?? '', /上市退出：收益最高/u);
  assert.equal(verdictOf(r, 'D').verdict, 'contradicted');
  for (const label of ['B', 'C']) assert.notEqual(verdictOf(r, label).verdict, 'supported', label);
  assertVerbatim(r);
  // 股权投资的退出方式：上市、并购或管理层回购 names the exits; it says nothing of which earns most, so it settles none.
  assert.equal(superlativeUnstated('股权投资的退出方式：上市、并购或管理层回购。', '收益最高的退出方式是'), '最高');
  assert.equal(superlativeUnstated('上市退出：收益最高，但时间最长。', '收益最高的退出方式是'), null);
  assert.equal(superlativeUnstated('清算退出：收益最低，可能亏损。', '收益最高的退出方式是'), null);
  assert.equal(superlativeUnstated('股权投资的退出方式：上市、并购或管理层回购。', '股权投资的退出方式包括'), null);
});

void test('T+1 is not T+2', async () => {
  const r = await ask('基金管理人应当在（ ）内对投资者的申购、赎回申请进行确认。A.T日 B.T+1日 C.T+2日 D.T+3日');
  assertOnlySupported(r, 'B');
});

void test('a negated stem takes the option the book negates, shown with the clause that negates it', async () => {
  const r = await ask(
    '下列关于货币市场基金的说法，错误的是（ ）。A.货币市场基金可以投资于股票 B.基金托管人安全保管基金财产 C.基金托管人保存基金托管业务活动的记录 D.基金管理人在T+1日内确认申购申请',
  );
  assert.equal(r.question.negated, true);
  assert.equal(r.answer, 'A');
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'contradicted');
  assert.match(a.reason ?? '', /肯定\/否定相反：不得/u);
  assert.match(r.evidence[0]?.quote ?? '', /货币市场基金不得投资于股票/u);
  assertVerbatim(r);
});

void test('a negated stem: a passage listing the other options without this one rules it out; one naming another does not', async () => {
  const r = await ask('合规管理的内容不包括（ ）。A.法律法规合规 B.行业规范合规 C.利润最大化 D.职业道德合规');
  assert.equal(r.question.negated, true);
  assert.equal(r.answer, 'C');
  const c = verdictOf(r, 'C');
  assert.equal(c.verdict, 'contradicted');
  assert.equal(c.reason, '教材此处为：法律法规合规、行业规范合规、职业道德合规');
  // The list is quoted from its first line naming an option to its last.
  assert.equal(c.evidence?.quote, '法律法规合规…职业道德合规');
  // 管理内容 | 法律法规合规 names A where the question's words are, but B and D are contents too: it does not take their place.
  for (const label of ['A', 'B', 'D']) assert.notEqual(verdictOf(r, label).verdict, 'contradicted', label);
  assertVerbatim(r);
});

void test('an option found by its words is marked where the clause writes them (上市退出 in a list that writes 上市)', async () => {
  const r = await ask('股权投资的退出方式不包括（ ）。A.上市退出 B.并购 C.管理层回购 D.继续持有');
  assert.equal(r.answer, 'D');
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'supported');
  const quote = a.evidence?.quote ?? '';
  assert.match(quote, /^股权投资的退出方式：上市、并购或管理层回购/u);
  assert.deepEqual(
    (a.evidence?.highlights ?? []).map(([from, to]) => quote.slice(from, to)),
    ['上市'],
  );
  assertVerbatim(r);
});

void test('a combination question: each statement judged, the option naming exactly the supported ones chosen', async () => {
  const r = await ask(
    '下列属于基金托管人职责的有（ ）。Ⅰ.安全保管基金财产 Ⅱ.复核、审查基金管理人计算的基金资产净值 Ⅲ.货币市场基金可以投资于股票 A.Ⅰ、Ⅱ B.Ⅰ、Ⅲ C.Ⅱ、Ⅲ D.Ⅰ、Ⅱ、Ⅲ',
  );
  assert.equal(r.question.kind, 'combination');
  assert.equal(r.answer, 'A');
  const statements = r.verdicts?.filter((v) => v.target === 'statement') ?? [];
  assert.deepEqual(
    statements.map((v) => [v.label, v.verdict]),
    [
      ['Ⅰ', 'supported'],
      ['Ⅱ', 'supported'],
      ['Ⅲ', 'contradicted'],
    ],
  );
  const options = r.verdicts?.filter((v) => v.target === 'option') ?? [];
  assert.deepEqual(
    options.map((v) => [v.label, v.verdict]),
    [
      ['A', 'supported'],
      ['B', 'contradicted'],
      ['C', 'contradicted'],
      ['D', 'contradicted'],
    ],
  );
  assertVerbatim(r);
});

void test('an option no passage speaks of is not_found, with no clause', async () => {
  const r = await ask('基金托管人应当履行的职责是（ ）。A.安全保管基金财产 B.发射人造卫星 C.种植水稻 D.驾驶飞机');
  assert.equal(r.answer, 'A');
  for (const label of ['B', 'C', 'D']) {
    const v = verdictOf(r, label);
    assert.notEqual(v.verdict, 'supported', label);
  }
  assertVerbatim(r);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labelOf } from '../../src/answer/label-lists.js';
import { attributeOfAnother } from '../../src/answer/list-reading.js';
import { siblingSections } from '../../src/answer/sibling-sections.js';
import { chunk } from '../retrieve/make-chunk.js';
import { assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// A small hand-made book in the way study notes write classes: one list per bold label, the labels side by side in
// one passage, and an overview elsewhere that names a class's members as examples (…等).
const BOOK = `# 第一章 股权投资基金概述

## 1.4 市场参与者

- 机构投资者：社保基金、保险资金、企业年金等
- 高净值个人：合格投资者

# 第二章 参与主体

## 2.1 基金投资者

### 2.1.1 投资者的类型

**机构投资者：**
- 社保基金
- 保险资金
- 企业年金
- 政府引导基金

**个人投资者：**
- 高净值个人
- 企业主

## 2.2 基金管理人

### 2.2.2 基金管理人的职责

**投资管理职责：**
- 制定投资策略
- 筛选投资项目

**投后管理职责：**
- 参与公司治理
- 提供增值服务

**退出管理职责：**
- 选择退出方式
- 安排退出时机

## 2.6 监管机构

### 2.6.2 中国证券投资基金业协会

**性质：** 基金行业的自律性组织，社会团体法人

## 考点速记

::: warning 数字考点
- 监管首要目标：**保护投资者利益**
- 中国证监会性质：**国务院直属事业单位**
- 基金业协会性质：**社会团体法人**
:::
`;

// Sections of one kind side by side, each a list of its class's traits under its heading.
const KINDS = `# 第三章 证券投资基金的类型

## 3.2 按运作方式分类

### 3.2.3 交易型开放式指数基金（ETF）

- 被动跟踪某一标的指数
- 实物申购赎回（一篮子股票）
- 交易成本低、跟踪误差小

### 3.2.4 上市开放式基金（LOF）

- 既可通过场外市场申购赎回，又可在交易所买卖
- 现金申购赎回
- 跨系统转托管

## 3.4 特殊类型基金

### 3.4.1 基金中基金（FOF）

- 80%以上基金资产投资于其他基金份额
- 双重收费问题

### 3.4.2 伞形基金

- 多个子基金共用一个基金合同
- 子基金之间可以相互转换
`;

// Every section of a chapter lists under the same two labels.
const ETHICS = `# 第五章 基金职业道德

## 5.2 基金职业道德规范

### 5.2.1 守法合规

**基本要求：**
- 遵守国家法律法规和行业自律规则
- 遵守公司内部规章制度

**具体要求：**
- 不得操纵证券市场价格
- 不得进行内幕交易

### 5.2.3 专业审慎

**基本要求：**
- 具备从事基金业务所需的专业知识和技能
- 持续学习，提高专业能力

**具体要求：**
- 审慎开展基金业务
- 合理评估投资风险

### 5.2.4 客户至上

**基本要求：**
- 将客户利益置于首位
- 为客户提供专业服务

**具体要求：**
- 不得挪用客户资金
- 不得侵占客户资产
`;

const ask = notesBook({ 'rawdoc/股权投资笔记.md': BOOK }).ask;
const askEthics = notesBook({ 'rawdoc/职业道德笔记.md': ETHICS }).ask;
const askKinds = notesBook({ 'rawdoc/基金类型笔记.md': KINDS }).ask;

void test('an item listed under another label than the one the stem names is of that other class', async () => {
  const r = await ask('下列属于基金管理人投后管理职责的是（ ）。A.制定投资策略 B.选择退出方式 C.提供增值服务 D.企业主');
  assert.equal(r.answer, 'C');
  const c = verdictOf(r, 'C');
  assert.equal(c.verdict, 'supported');
  assert.match(c.evidence?.quote ?? '', /^投后管理职责：…提供增值服务$/u);
  for (const [label, other] of [
    ['A', '投资管理职责'],
    ['B', '退出管理职责'],
  ] as const) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'contradicted', label);
    assert.equal(v.reason, `类别不同：${other}`, label);
    // Quoted with its own label, so the reader sees which list holds it.
    assert.match(v.evidence?.quote ?? '', new RegExp(`^${other}：…`, 'u'), label);
  }
  assertVerbatim(r);
});

void test('a list closed by 等 does not rule out an option it leaves out, and the label lists decide a negated stem', async () => {
  const r = await ask('下列不属于股权投资基金机构投资者的是（ ）。A.社保基金 B.企业年金 C.高净值个人 D.政府引导基金');
  assert.equal(r.answer, 'C');
  // 政府引导基金 is missing from 社保基金、保险资金、企业年金等, an overview's examples; the label's own list names it.
  const d = verdictOf(r, 'D');
  assert.equal(d.verdict, 'supported');
  assert.doesNotMatch(d.reason ?? '', /教材此处为/u);
  const c = verdictOf(r, 'C');
  assert.equal(c.verdict, 'contradicted');
  assert.equal(c.reason, '类别不同：个人投资者');
  assertVerbatim(r);
});

void test("the section beside the one the stem names speaks of its own class, not of the stem's", async () => {
  const r = await askKinds(
    '下列关于LOF的说法，正确的是（ ）。A.被动跟踪某一标的指数 B.跨系统转托管 C.交易成本低、跟踪误差小 D.实物申购赎回',
  );
  assert.equal(r.answer, 'B');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  assert.match((verdictOf(r, 'B').evidence?.headings ?? []).join(' '), /3\.2\.4 上市开放式基金/u);
  // The ETF's traits are the ETF's: none of them supports an option about the LOF.
  for (const label of ['A', 'C', 'D']) {
    assert.notEqual(verdictOf(r, label).verdict, 'supported', label);
    assert.doesNotMatch((verdictOf(r, label).evidence?.headings ?? []).join(' '), /ETF/u, label);
  }
  assertVerbatim(r);
});

void test('a sentence naming no option, under a section named after one, has the section as its subject', async () => {
  const r = await askKinds('多个子基金共用一个基金合同的基金是（ ）。A.伞形基金 B.基金中基金 C.保本基金 D.QDII基金');
  assert.equal(r.answer, 'A');
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'supported');
  assert.equal(a.reason, '所在小节：伞形基金');
  assert.match(a.evidence?.quote ?? '', /多个子基金共用一个基金合同/u);
  // Another option's name is not this section's: the sentence states it of 伞形基金.
  assert.equal(verdictOf(r, 'B').verdict, 'contradicted');
  assert.equal(verdictOf(r, 'B').reason, '主体不同：伞形基金');
  assertVerbatim(r);
});

void test('a label read in another section than the one the question is about says nothing of it', async () => {
  const r = await askEthics(
    '下列属于守法合规基本要求的是（ ）。A.遵守公司内部规章制度 B.将客户利益置于首位 C.持续学习，提高专业能力 D.不得挪用客户资金',
  );
  assert.equal(r.answer, 'A');
  assert.equal(verdictOf(r, 'A').verdict, 'supported');
  // 客户至上's and 专业审慎's 基本要求 are theirs, not 守法合规's.
  for (const label of ['B', 'C']) assert.notEqual(verdictOf(r, label).verdict, 'supported', label);
  assertVerbatim(r);
});

void test('a label is a short name; a sentence that leads a list and a generic two-character heading are not', () => {
  assert.equal(labelOf('**投后管理职责：**'), '投后管理职责');
  assert.equal(labelOf('- 机构投资者：'), '机构投资者');
  assert.equal(labelOf('基金托管人应当履行下列职责：'), null);
  assert.equal(labelOf('**定义：**'), null);
});

void test('a passage is set apart when the stem names a sibling of its section and not its own', () => {
  const under = (id: string, last: string, parent = '3.2 按运作方式分类') =>
    chunk(id, { headings: ['第三章 证券投资基金的类型', parent, last] });
  const chunks = [
    under('closed', '3.2.1 封闭式基金'),
    under('open', '3.2.2 开放式基金'),
    under('etf', '3.2.3 交易型开放式指数基金（ETF）'),
    under('lof', '3.2.4 上市开放式基金（LOF）'),
    under('stock', '3.1.1 股票基金', '3.1 按投资对象分类'),
  ];
  // By its alias in brackets; the other group is named by none of the stem's words and is left alone.
  assert.deepEqual([...siblingSections(chunks, 'LOF的申购赎回方式是（ ）')].sort(), ['closed', 'etf', 'open']);
  // 上市开放式基金 holds 开放式基金: a stem naming both keeps both.
  assert.deepEqual([...siblingSections(chunks, '上市开放式基金的特点是')].sort(), ['closed', 'etf']);
  assert.deepEqual([...siblingSections(chunks, '下列关于基金的说法，正确的是')], []);
  // Headings that name topics, not classes (a phrase with 的, another head), are not set apart by a stem naming one.
  const topics = [under('measures', '一、风险的衡量指标', '第二节'), under('adjusted', '二、风险调整后收益', '第二节')];
  assert.deepEqual([...siblingSections(topics, '特雷诺比率以（　）作为风险的衡量指标')], []);
  const kinds = [
    under('ratio', '一、夏普比率', '第二节'),
    under('alpha', '二、詹森α', '第二节'),
    under('treynor', '三、特雷诺比率', '第二节'),
  ];
  assert.deepEqual([...siblingSections(kinds, '特雷诺比率的分母是')], ['ratio']);
});

void test("a line stating the asked attribute of another party says nothing of the stem's", async () => {
  const r = await ask('中国证券投资基金业协会的性质是（ ）。A.国务院直属事业单位 B.基金行业的自律性组织 C.政府行政机关 D.营利性企业');
  assert.equal(r.answer, 'B');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  // 中国证监会性质：国务院直属事业单位 is the 证监会's: it neither supports A nor takes B's place.
  assert.notEqual(verdictOf(r, 'A').verdict, 'supported');
  assert.doesNotMatch(verdictOf(r, 'A').evidence?.quote ?? '', /证监会/u);
  assertVerbatim(r);
  assert.equal(attributeOfAnother('- 中国证监会性质：国务院直属事业单位', '中国证券投资基金业协会的性质是（ ）'), '中国证监会');
  // The stem's own party, one holding the other, and a party of another kind are not another party.
  assert.equal(attributeOfAnother('中国证券投资基金业协会性质：自律性组织', '中国证券投资基金业协会的性质是'), null);
  assert.equal(attributeOfAnother('基金业协会职责：自律管理', '中国证券投资基金业协会的职责是'), null);
  assert.equal(attributeOfAnother('基金托管人职责：保管', '基金管理人的职责是'), '基金托管人');
  assert.equal(attributeOfAnother('股票基金特点：高风险', '基金管理人的特点是'), null);
});

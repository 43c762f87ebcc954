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

// Statutes: an earlier article that names the custodian's conditions in the words of one of its duties, the article of
// its duties, and another law's list for another custodian.
const STATUTES = `# 基金法

## 第三章 基金托管人

### 第一节 托管资格

第三十三条 担任基金托管人，应当具备下列条件：（一）净资产和风险资本符合有关规定；（二）设有专门的基金托管部门；（三）取得基金从业资格的专职人员达到法定人数；（四）有安全保管基金财产的条件；（五）有安全高效的清算、交割系统。

### 第二节 托管职责

第三十六条 基金托管人应当履行下列职责：（一）安全保管基金财产；（二）按照规定开设基金财产的资金账户和证券账户；（三）对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立；（四）复核、审查基金管理人计算的基金资产净值和基金份额申购、赎回价格。

## 第九章 社会保障基金

第十四条 全国社会保障基金托管人履行下列职责：（一）安全保管全国社会保障基金财产；（二）按照托管合同的约定，及时办理清算、交割事宜。
`;

const statutes = notesBook({ 'rawdoc/laws.md': STATUTES });

void test("the clause that states an option with its lead is quoted, not an earlier one sharing its words or another party's", async () => {
  const r = await statutes.ask(
    '基金托管人应当履行的职责不包括（ ）。A.安全保管基金财产 B.按照规定开设基金财产的资金账户和证券账户 C.复核、审查基金管理人计算的基金资产净值 D.决定基金收益分配方案',
  );
  assert.equal(r.answer, 'D');
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'supported');
  assert.match(a.evidence?.quote ?? '', /基金托管人应当履行下列职责[\s\S]*安全保管基金财产/);
  assert.doesNotMatch(a.evidence?.quote ?? '', /具备下列条件|全国社会保障基金/);
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

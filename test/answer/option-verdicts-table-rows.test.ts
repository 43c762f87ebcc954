import assert from 'node:assert/strict';
import { test } from 'node:test';
import { askedColumn, columnValue, parseTableRow, pipeTableRows, stemValueOf } from '../../src/answer/table-rows.js';
import { assertSettled, assertVerbatim, notesBook, verdictOf } from '../helpers/notes-book.js';

// Study notes whose comparison tables are written out row by row (行——列：值；列：值。), in both orientations: the
// columns are the things compared (契约型基金, 一般决议), or the rows are (股票基金). The meeting's powers are also
// listed in the body, without saying which resolution each needs.
const BOOK = `# 第一章 基金的法律形式

## 1.3 契约型基金与公司型基金

表1-1 契约型基金与公司型基金的比较：法律主体资格——契约型基金：不具有法人资格；公司型基金：具有法人资格。营运依据——契约型基金：基金合同；公司型基金：投资公司章程。资金性质——契约型基金：信托财产；公司型基金：公司法人资本。

# 第二章 基金的类型

## 2.2 按投资对象分类

表2-2 各类基金的资产配置与风险收益特征：股票基金——资产配置标准：股票资产占比80%以上；风险收益水平：高；常用业绩比较基准示例：沪深300指数收益率。债券基金——资产配置标准：债券资产占比80%以上；风险收益水平：中低；常用业绩比较基准示例：中债综合财富指数收益率。货币市场基金——资产配置标准：投资于货币市场工具；风险收益水平：低；常用业绩比较基准示例：七天通知存款利率。

# 第四章 基金份额持有人大会

## 4.1 持有人大会的职权

下列事项应当通过召开基金份额持有人大会审议决定：决定调整基金管理人、基金托管人的报酬标准；决定转换基金运作方式；决定提前终止基金合同。

## 4.2 持有人大会的表决

表4-1 一般决议与特别决议的比较：通过比例——一般决议：参加大会持有人所持表决权的1/2以上；特别决议：参加大会持有人所持表决权的2/3以上。适用事项——一般决议：调整管理人、托管人的报酬标准；延长基金合同期限；特别决议：转换基金运作方式；提前终止基金合同；与其他基金合并。
`;

const book = notesBook({ 'rawdoc/基金基础知识.md': BOOK });

const ask = book.ask;

void test('a written-out table row is read cell by cell: a row label, column labels, and parts that go on the cell before', () => {
  const row = parseTableRow(
    '适用事项——一般决议：调整管理人、托管人的报酬标准；延长基金合同期限；特别决议：转换基金运作方式；提前终止基金合同。',
  );
  assert.ok(row);
  assert.equal(row.label, '适用事项');
  assert.deepEqual(
    row.cells.map((cell) => cell.label),
    ['一般决议', '特别决议'],
  );
  assert.equal(columnValue(row, '一般决议'), '调整管理人、托管人的报酬标准；延长基金合同期限');
  assert.equal(askedColumn(row, '下列持有人大会审议事项中，适用特别决议的有（ ）。'), '特别决议');
  // A stem whose asking clause names both columns (or neither) asks for no one column.
  assert.equal(askedColumn(row, '一般决议与特别决议的区别是（ ）。'), null);
  assert.equal(parseTableRow('基金合同是规定基金当事人之间权利义务的基本法律文件。'), null);
  // Two labelled cells take two colons, full-width or not; one colon is never a row.
  assert.equal(parseTableRow('基金托管人：复核基金资产净值。'), null);
  assert.equal(parseTableRow('公司型基金——法律主体资格：具有法人资格'), null);
  assert.deepEqual(
    parseTableRow('法律主体资格——契约型基金：不具有法人资格；公司型基金:具有法人资格')?.cells.map((cell) => cell.label),
    ['契约型基金', '公司型基金'],
  );
  assert.equal(stemValueOf('风险收益水平为“中低”的基金类型是（ ）。', '风险收益水平'), '中低');
  // A column the stem names in its own words: most of the label's character pairs, and no other label's.
  const fund = parseTableRow('货币市场基金——风险收益水平：低；常用业绩比较基准示例：七天通知存款利率。');
  assert.ok(fund);
  assert.equal(askedColumn(fund, '货币市场基金常用的业绩比较基准是（ ）。'), '常用业绩比较基准示例');
  assert.equal(askedColumn(fund, '货币市场基金的投资对象是（ ）。'), null);
});

void test("the column a question asks decides, not the row's other cell: 公司型基金的营运依据 is not 契约型基金's", async () => {
  const result = await ask(
    '根据契约型基金与公司型基金的比较，公司型基金的营运依据是（ ）。A.基金合同 B.托管协议 C.投资公司章程 D.招募说明书',
  );
  const a = assertSettled(result, { answer: 'C', supported: 'C', contradicted: 'A', reason: '教材此处为：投资公司章程' });
  // Quoted as the whole row, so the reader sees both cells.
  assert.equal(a.evidence?.quote, '营运依据——契约型基金：基金合同；公司型基金：投资公司章程。');
  // Marked where the book states what stands in A's place.
  const quote = a.evidence?.quote ?? '';
  assert.deepEqual(
    (a.evidence?.highlights ?? []).map(([from, to]) => quote.slice(from, to)),
    ['投资公司章程'],
  );
});

void test("a statement found only in another column's cell is that column's: 调整报酬标准 needs 一般决议, not 特别决议", async () => {
  const result = await ask(
    '下列持有人大会审议事项中，适用特别决议的有（ ）。Ⅰ.转换基金运作方式 Ⅱ.提前终止基金合同 Ⅲ.调整基金托管人的报酬标准 Ⅳ.与其他基金合并 A.Ⅰ、Ⅱ、Ⅳ B.Ⅰ、Ⅱ C.Ⅱ、Ⅲ、Ⅳ D.Ⅰ、Ⅱ、Ⅲ、Ⅳ',
  );
  const third = result.verdicts?.find((x) => x.target === 'statement' && x.label === 'Ⅲ');
  assert.equal(third?.verdict, 'contradicted');
  assert.equal(third.reason, '主体不同：一般决议');
  assert.match(third.evidence?.quote ?? '', /^适用事项——一般决议：/u);
  assert.equal(result.answer, 'A');
});

void test('where the rows are the options, the row whose cell holds the value the stem gives is the answer', async () => {
  const result = await ask('风险收益水平为“中低”的基金类型是（ ）。A.股票基金 B.混合基金 C.债券基金 D.货币市场基金');
  assertSettled(result, { answer: 'C', supported: 'C', quote: /^债券基金——/u, contradicted: 'A', reason: '风险收益水平：高' });
  // 低 is part of 中低, but the 货币市场基金 row's value is 低, not the one given.
  assert.notEqual(verdictOf(result, 'D').verdict, 'supported');
});

void test("a row below the table's title is read with it, in the column the stem names in other words", async () => {
  // The 货币市场基金 row does not repeat 资产配置与风险收益特征; the title written before the first row speaks for it.
  const result = await ask(
    '根据各类基金的资产配置与风险收益特征，货币市场基金常用的业绩比较基准是（ ）。A.七天通知存款利率 B.中债综合财富指数收益率 C.沪深300指数收益率 D.一年期定期存款利率',
  );
  assert.equal(result.answer, 'A');
  assert.match(verdictOf(result, 'A').evidence?.quote ?? '', /^货币市场基金——/u);
  for (const label of ['B', 'C']) assert.equal(verdictOf(result, label).verdict, 'contradicted', label);
});

// The same tables as Markdown pipe tables, as study notes often write them: the header names the columns.
const PIPE_BOOK = `# 第一章 证券投资基金概述

## 1.3 基金的分类

### 契约型基金与公司型基金

| 比较项目 | 契约型基金 | 公司型基金 |
|------|------|------|
| 法律主体资格 | 不具有法人资格 | 具有法人资格 |
| 营运依据 | 基金合同 | 投资公司章程 |
| 资金性质 | 信托财产 | 公司法人资本 |

### 各类基金的风险收益特征

| 基金类型 | 主要投资对象 | 风险收益水平 |
|:-----|:----:|-----:|
| 股票基金 | 股票 | 高 |
| 混合基金 | 股票和债券 | 中高 |
| 债券基金 | 债券 | 中低 |
| 货币市场基金 | 货币市场工具 | 低 |

## 1.5 财务指标

| 类别 | 指标 | 公式 |
|------|------|------|
| 盈利能力 | 净资产收益率(ROE) | 净利润 / 股东权益 |
| 盈利能力 | 总资产收益率(ROA) | 净利润 / 总资产 |
| 偿债能力 | 资产负债率 | 负债总额 / 资产总额 |
`;

const pipes = notesBook({ 'rawdoc/基金概述.md': PIPE_BOOK });

void test('a Markdown pipe table is read as rows: the first cell labels the row, the header labels the other cells', () => {
  const rows = pipeTableRows(PIPE_BOOK);
  assert.deepEqual(
    rows.map((row) => row.label),
    ['法律主体资格', '营运依据', '资金性质', '股票基金', '混合基金', '债券基金', '货币市场基金', '盈利能力', '盈利能力', '偿债能力'],
  );
  const basis = rows[1]!;
  assert.equal(basis.title, '比较项目');
  assert.equal(basis.text, '| 营运依据 | 基金合同 | 投资公司章程 |');
  assert.equal(columnValue(basis, '公司型基金'), '投资公司章程');
  assert.equal(askedColumn(basis, '公司型基金的营运依据是（ ）。'), '公司型基金');
  assert.equal(basis.head?.line, '| 比较项目 | 契约型基金 | 公司型基金 |');
  // Lines with pipes but no delimiter line under a header are not a table.
  assert.deepEqual(pipeTableRows('| 甲 | 乙 |\n| 丙 | 丁 |\n'), []);
  // Nor is a line of dashes alone (a thematic break); an escaped pipe stays in its cell.
  assert.deepEqual(pipeTableRows('| 甲 | 乙 |\n---\n| 丙 | 丁 |\n'), []);
  const escaped = pipeTableRows('| 项目 | 写法 |\n|---|---|\n| 或 | 甲\\|乙 |\n')[0];
  assert.equal(escaped && columnValue(escaped, '写法'), '甲\\|乙');
});

void test("in a pipe table, the column the question asks decides, quoted under the table's header", async () => {
  const result = await pipes.ask('公司型基金的营运依据是（ ）。A.基金合同 B.托管协议 C.投资公司章程 D.招募说明书');
  const a = assertSettled(result, { answer: 'C', supported: 'C', contradicted: 'A', reason: '教材此处为：投资公司章程' });
  assert.match(a.evidence?.quote ?? '', /^比较项目 契约型基金 公司型基金….*营运依据 基金合同 投资公司章程/u);
  const invested = await pipes.ask('契约型基金的资金性质是（ ）。A.公司法人资本 B.信托财产 C.委托资产 D.自有资金');
  assertSettled(invested, { answer: 'B', supported: 'B', contradicted: 'A', reason: '教材此处为：信托财产' });
});

void test('in a pipe table whose rows are the options, the row holding the value the stem gives is the answer', async () => {
  const result = await pipes.ask('风险收益水平为“中低”的基金类型是（ ）。A.股票基金 B.混合基金 C.债券基金 D.货币市场基金');
  assertSettled(result, { answer: 'C', supported: 'C', contradicted: 'B', reason: '风险收益水平：中高' });
  assert.equal(verdictOf(result, 'A').reason, '风险收益水平：高');
  // The first row under the header is quoted apart from it, not run into it (风险收益水平股票基金).
  assert.equal(verdictOf(result, 'A').evidence?.quote, '基金类型 主要投资对象 风险收益水平…股票基金 股票 高');
});

void test('a pipe-table row whose subject stands in a column of its own, not its label, is read as a sentence', async () => {
  // Asked for the 公式 column, the ROE row's cell (净利润 / 股东权益) does not name ROE, which is in the 指标 column.
  const result = await pipes.ask(
    '净资产收益率（ROE）的计算公式是（ ）。A.净利润 / 总资产 B.净利润 / 股东权益 C.营业成本 / 平均存货 D.负债总额 / 资产总额',
  );
  assert.equal(result.answer, 'B');
  assert.equal(verdictOf(result, 'B').verdict, 'supported');
  assert.match(verdictOf(result, 'B').evidence?.quote ?? '', /净资产收益率\(ROE\) 净利润 \/ 股东权益/u);
  assertVerbatim(result);
});

void test('the row the stem names is read in the asked column, and the other rows say nothing of it', async () => {
  // 高 is one character: it has no words to be read by, so the cell is compared whole; the 混合基金 row holds 股票 (in
  // 股票和债券) and 中高, but it is not the row asked about.
  const high = await pipes.ask('股票基金的风险收益水平为（ ）。A.高 B.中高 C.中低 D.低');
  const a = assertSettled(high, { answer: 'A', supported: 'A', contradicted: 'B', reason: '教材此处为：高' });
  assert.equal(a.evidence?.quote, '基金类型 主要投资对象 风险收益水平…股票基金 股票 高');
  // The value is marked, though one character: it is the one 高 of the quote.
  assert.deepEqual(
    (a.evidence?.highlights ?? []).map(([from, to]) => (a.evidence?.quote ?? '').slice(from, to)),
    ['高'],
  );
  for (const label of ['C', 'D']) assert.equal(verdictOf(high, label).reason, '教材此处为：高', label);
  // An option written inside the row's label (债券 in 债券基金) is still the cell's value, not a row of its own.
  const bonds = await pipes.ask('债券基金的主要投资对象是（ ）。A.股票 B.债券 C.股票和债券 D.货币市场工具');
  assertSettled(bonds, { answer: 'B', supported: 'B', quote: /债券基金 债券 中低$/u, contradicted: 'C', reason: '教材此处为：债券' });
  // Written out row by row, the same.
  const written = await ask('债券基金的风险收益水平为（ ）。A.高 B.中高 C.中低 D.低');
  assertSettled(written, { answer: 'C', supported: 'C', quote: /^债券基金——/u, contradicted: 'D', reason: '教材此处为：中低' });
});

// A table of parties and what each does, with the same parties' own sections elsewhere.
const PARTIES = `# 第二章 证券投资基金概述

## 2.2 基金的参与主体

### 2.2.2 基金市场服务机构

| 服务机构 | 主要职责 |
|---------|---------|
| 基金销售机构 | 基金份额的发售、申购、赎回等 |
| 基金销售支付机构 | 基金销售资金的支付结算 |
| 基金份额登记机构 | 基金份额的登记、存管、过户 |
| 基金估值核算机构 | 基金资产估值、核算 |
| 基金投资顾问机构 | 为投资者提供投资建议 |
| 基金评价机构 | 对基金进行评级和评价 |
| 律师事务所 | 出具法律意见书 |
| 会计师事务所 | 审计基金财务报告 |

# 第三章 股权投资基金的参与主体

## 3.5 中介服务机构

### 3.5.1 律师事务所

- 提供法律咨询
- 出具法律意见书

### 3.5.2 会计师事务所

- 审计财务报表
- 提供税务咨询
`;

const parties = notesBook({ 'rawdoc/参与主体.md': PARTIES });

void test('a row of another label than the one the stem names says nothing of it, though the stem names no column', async () => {
  const r = await parties.ask(
    '下列属于会计师事务所在股权投资中提供的服务的是（ ）。A.出具法律意见书 B.审计财务报表 C.评估企业价值 D.协助上市',
  );
  assert.equal(r.answer, 'B');
  assert.equal(verdictOf(r, 'B').verdict, 'supported');
  // 律师事务所's row is not 会计师事务所's: it supports nothing here.
  assert.notEqual(verdictOf(r, 'A').verdict, 'supported');
  assert.doesNotMatch(verdictOf(r, 'A').evidence?.quote ?? '', /律师事务所/u);
  assertVerbatim(r);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sameAmount } from '../../src/answer/claim-forms.js';
import { bandReading, otherCase, questionQuantities, tierOf, withinTier } from '../../src/answer/tier-ranges.js';
import { assertSettled, notesBook, verdictOf } from '../helpers/notes-book.js';

// A fee schedule written band by band, in words for the purchase amount and in symbols for the holding period, and a
// worked example of a purchase of another amount at the first band's rate.
const BOOK = `# 第三章 基金费用

## 3.1 申购费与赎回费

表3-1 某股票基金的申购费率与赎回费率：申购费按申购金额分档——申购金额不满100万元的，申购费率为1.50%；申购金额在100万元以上、500万元以下的，申购费率为1.00%；申购金额超过500万元的，每笔收取1000元。赎回费按持有期限Y分档——Y＜7日的，赎回费率为1.50%；7日≤Y＜30日的，赎回费率为0.75%；30日≤Y＜1年的，赎回费率为0.50%；1年≤Y＜2年的，赎回费率为0.25%；Y≥2年的，赎回费率为0。

## 3.2 申购份额的计算

例如，某投资者以十万零一千五百元申购该股票基金，适用的申购费率为百分之一点五，申购当日的基金份额净值为1.2500元，可得到的申购份额为八万份。
`;

const book = notesBook({ 'rawdoc/基金费用.md': BOOK });

void test('a band is read from symbols or words, with its ends included as written', () => {
  const symbols = tierOf('7日≤Y＜30日的，赎回费率为0.75%；');
  assert.deepEqual(symbols, {
    text: '7日≤Y＜30日',
    of: 'Y',
    dimension: 'period',
    to: { size: 30, inclusive: false },
    from: { size: 7, inclusive: true },
  });
  const words = tierOf('申购费按申购金额分档——申购金额在100万元以上、500万元以下的，申购费率为1.00%；');
  assert.deepEqual(words, {
    text: '100万元以上、500万元以下',
    of: '申购金额',
    dimension: 'amount',
    from: { size: 1e6, inclusive: true },
    to: { size: 5e6, inclusive: true },
  });
  assert.deepEqual(tierOf('持有不满七日的，赎回费率不低于百分之一点五'), {
    text: '不满七日',
    of: '持有',
    dimension: 'period',
    to: { size: 7, inclusive: false },
  });
  assert.deepEqual(tierOf('申购金额500万元（不含）以上的，每笔收取1000元'), {
    text: '500万元（不含）以上',
    of: '申购金额',
    dimension: 'amount',
    from: { size: 5e6, inclusive: false },
  });
  // A table row states its band in symbols, without 的.
  assert.equal(tierOf('赎回费 1年≤Y＜2年 0.25%')?.text, '1年≤Y＜2年');
  // A requirement is not a band: it states no rule for a case.
  assert.equal(tierOf('私募合格投资者（机构）：净资产≥1000万元'), null);
  assert.equal(tierOf('持有期限＜7日的，赎回费率不低于1.5%')?.of, '持有期限');
  assert.equal(tierOf('基金募集金额不低于2亿元，基金份额持有人不少于200人。'), null);
  assert.equal(tierOf('基金合同生效的，基金管理人应当公告。'), null);
});

void test("a question's amount or period lies in one band of what the question says it is", () => {
  const [months] = questionQuantities('某投资者持有该基金18个月后赎回，适用的赎回费率为（ ）。');
  assert.deepEqual(months, { dimension: 'period', size: (18 * 365) / 12, context: '某投资者持有该基金' });
  const year = tierOf('1年≤Y＜2年的，赎回费率为0.25%；');
  assert.ok(year);
  assert.equal(withinTier(year, months), true);
  // Twelve months are a year.
  assert.equal(withinTier(year, { dimension: 'period', size: (12 * 365) / 12 }), true);
  // A letter is named by the schedule's lead; the band bears on a question whose quantity is said to be that.
  const schedule = '赎回费按持有期限Y分档——Y＜7日的，赎回费率为1.50%；30日≤Y＜1年的，赎回费率为0.50%；1年≤Y＜2年的，赎回费率为0.25%。';
  assert.deepEqual(bandReading('30日≤Y＜1年的，赎回费率为0.50%；', schedule, questionQuantities('某投资者持有该基金12个月后赎回')), {
    tier: tierOf('30日≤Y＜1年的，'),
    holds: false,
    lead: '赎回费按持有期限Y分档——',
  });
  assert.equal(bandReading('1年≤Y＜2年的，赎回费率为0.25%。', schedule, [months])?.holds, true);
  // Not a band of what the question gives: a fund's net assets are no holding period, nor a purchase amount.
  assert.equal(bandReading('1年≤Y＜2年的，赎回费率为0.25%。', schedule, questionQuantities('该基金当年天数为365天')), null);
  assert.equal(bandReading('申购金额超过500万元的，每笔收取1000元。', '', questionQuantities('前一日的基金资产净值为36.5亿元')), null);
  // A number the question states as a bound or a relative date is no case; nor is a dimension stated twice.
  assert.deepEqual(questionQuantities('对持续持有期少于七日的投资者，基金应当收取的赎回费不低于（ ）'), []);
  assert.deepEqual(questionQuantities('基金净赎回申请超过上一日基金总份额的（ ）'), []);
  assert.deepEqual(questionQuantities('以100万元申购，再以300万元申购'), []);
  // A year of the calendar is a date: a sentence stating another period is not another case for it.
  assert.deepEqual(questionQuantities('某基金管理公司2019年成立，其主要股东最近（ ）年没有违法记录'), []);
  assert.deepEqual(questionQuantities('中国证监会是在哪一年发布了该办法？'), []);
  assert.equal(
    otherCase('某投资者以十万零一千五百元申购该股票基金，适用的申购费率为百分之一点五', questionQuantities('申购300万元')),
    true,
  );
  assert.equal(otherCase('某投资者以十万零一千五百元申购该股票基金', questionQuantities('以101500元申购')), false);
});

void test('the band that holds the amount asked decides the rate, not the first band nor an example of another amount', async () => {
  const result = await book.ask('某投资者申购该股票基金300万元，适用的申购费率为（ ）。A.1.50% B.1.00% C.0.50% D.0.25%');
  const a = assertSettled(result, {
    answer: 'B',
    supported: 'B',
    // Quoted after the schedule's lead, which says what the band is of; the bands between are left out.
    quote: /^表3-1 某股票基金的申购费率与赎回费率：申购费按申购金额分档——…申购金额在100万元以上、500万元以下的，申购费率为1\.00%；$/u,
    contradicted: 'A',
    reason: '数字不同：1.00%',
  });
  // The band is marked beside the rate, so the reader sees why this band is the question's.
  const quote = a.evidence?.quote ?? '';
  assert.deepEqual(
    (a.evidence?.highlights ?? []).map(([from, to]) => quote.slice(from, to)),
    ['100万元以上、500万元以下', '1.00%'],
  );
});

void test('a holding period in months is placed in a band written in days and years', async () => {
  const result = await book.ask('某投资者持有该股票基金18个月后赎回，适用的赎回费率为（ ）。A.0.75% B.0.50% C.0.25% D.1.50%');
  assertSettled(result, {
    answer: 'C',
    supported: 'C',
    quote: /^赎回费按持有期限Y分档——…1年≤Y＜2年的，赎回费率为0\.25%；$/u,
    contradicted: 'B',
    reason: '数字不同：0.25%',
  });
  const short = await book.ask('某投资者持有该股票基金10日后赎回，适用的赎回费率为（ ）。A.0.75% B.0.50% C.0.25% D.1.50%');
  assert.equal(short.answer, 'A');
  assert.equal(verdictOf(short, 'D').reason, '数字不同：0.75%');
});

void test('a worked example of the question’s own case supports the amount it computes, written at another scale', async () => {
  assert.equal(sameAmount('8万份', '80000份'), true);
  assert.equal(sameAmount('12亿元', '1.2元'), false);
  assert.equal(sameAmount('8万份', '80000元'), false);
  const result = await book.ask(
    '某投资者以101500元申购该股票基金，申购费率为1.5%，申购当日基金份额净值为1.2500元，则其可得到的申购份额为（ ）。A.78818份 B.79000份 C.80000份 D.81200份',
  );
  assert.equal(result.answer, 'C');
  const c = verdictOf(result, 'C');
  assert.equal(c.verdict, 'supported');
  const quote = c.evidence?.quote ?? '';
  assert.match(quote, /^例如，某投资者以十万零一千五百元申购该股票基金/u);
  // Marked as the book writes it.
  assert.deepEqual(
    (c.evidence?.highlights ?? []).map(([from, to]) => quote.slice(from, to)),
    ['八万份'],
  );
  // Only equality crosses scales: the other amounts are not read against 八万份 as numbers of their own; they are ruled
  // out only as options in the place the example gives 八万份.
  const a = verdictOf(result, 'A');
  assert.deepEqual([a.verdict, a.inferred, a.reason], ['contradicted', true, '教材此处为：80000份']);
  assert.equal(a.evidence?.quote, quote);
});

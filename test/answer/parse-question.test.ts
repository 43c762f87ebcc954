import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.js';
import { asksForIncorrect, parseQuestion, questionFromParts, statementsInOption } from '../../src/answer/parse-question.js';

const letters = (text: string): string =>
  parseQuestion(text)
    .options.map((o) => `${o.letter}=${o.text}`)
    .join('|');

void test('option markers: A. A、 A． (A) （A） A) full-width letters, inline and one per line', () => {
  const expected = 'A=股票|B=债券|C=基金|D=存款';
  assert.equal(letters('下列属于什么的是 A.股票 B.债券 C.基金 D.存款'), expected);
  assert.equal(letters('下列属于什么的是\nA、股票\nB、债券\nC、基金\nD、存款'), expected);
  assert.equal(letters('下列属于什么的是 A．股票 B．债券 C．基金 D．存款'), expected);
  assert.equal(letters('下列属于什么的是 (A)股票 (B)债券 (C)基金 (D)存款'), expected);
  assert.equal(letters('下列属于什么的是（A）股票（B）债券（C）基金（D）存款'), expected);
  assert.equal(letters('下列属于什么的是 A)股票 B)债券 C)基金 D)存款'), expected);
  assert.equal(letters('下列属于什么的是 Ａ．股票 Ｂ．债券 Ｃ．基金 Ｄ．存款'), expected);
  const q = parseQuestion('基金财产由（　）负责保管。A.基金托管人 B.基金管理人');
  assert.equal(q.stem, '基金财产由（ ）负责保管。');
  assert.equal(q.kind, 'single');
});

void test('letters inside words (A股, 表A) are not option markers', () => {
  const q = parseQuestion('A股市场中，下列说法正确的是 A.只能做多 B.实行T+1 C.无涨跌幅 D.可以做空');
  assert.equal(q.options.length, 4);
  assert.equal(q.options[1]?.text, '实行T+1');
  assert.match(q.stem, /^A股市场中/);
});

void test('negated stems are detected, affirmative ones are not', () => {
  for (const s of [
    '下列说法不正确的是',
    '以下说法错误的是',
    '下列不属于货币市场工具的是',
    '下列各项中，除外的是',
    '基金费用不包括',
    'Which is NOT a fund?',
    'All of these except',
    '以下哪项内容并非信息披露的一部分',
  ]) {
    assert.equal(parseQuestion(`${s} A.甲 B.乙 C.丙 D.丁`).negated, true, s);
  }
  for (const s of ['下列说法正确的是', '基金管理人不得从事的行为是', '基金托管人由谁担任']) {
    assert.equal(parseQuestion(`${s} A.甲 B.乙 C.丙 D.丁`).negated, false, s);
  }
});

void test('multi-select, judge and open questions', () => {
  assert.equal(parseQuestion('（多选）下列属于基金当事人的有 A.管理人 B.托管人 C.持有人 D.律师').kind, 'multi');
  const judge = parseQuestion('判断题：基金托管人由商业银行担任。A.正确 B.错误');
  assert.equal(judge.kind, 'judge');
  assert.equal(judge.negated, false);
  const judge2 = parseQuestion('判断题：基金托管人由商业银行担任。');
  assert.deepEqual(
    judge2.options.map((o) => o.text),
    ['正确', '错误'],
  );
  const open = parseQuestion('什么是证券投资基金？');
  assert.equal(open.kind, 'open');
  assert.equal(open.options.length, 0);
});

void test('roman-numeral, circled and ASCII statements make a combination question', () => {
  const q = parseQuestion(
    '关于尽职调查，说法正确的是（ ）。\nⅠ.财务尽职调查关注财务表现\nⅡ.法律尽职调查关注合规\nⅢ.业务尽职调查关注行业\nⅣ.尽职调查等同于审计\nA.Ⅰ、Ⅱ、Ⅲ\nB.Ⅰ、Ⅱ\nC.Ⅱ、Ⅳ\nD.Ⅱ、Ⅲ、Ⅳ',
  );
  assert.equal(q.kind, 'combination');
  assert.deepEqual(
    q.statements.map((s) => s.label),
    ['Ⅰ', 'Ⅱ', 'Ⅲ', 'Ⅳ'],
  );
  assert.equal(q.statements[3]?.text, '尽职调查等同于审计');
  assert.equal(q.stem, '关于尽职调查，说法正确的是（ ）。');
  assert.deepEqual(statementsInOption(q.options[2]?.text ?? '', q.statements), ['Ⅱ', 'Ⅳ']);
  const circled = questionFromParts('公司设立需要满足：①股东人数达到法定要求②有公司章程③有公司名称④应有公司注册地', {
    A: '①、②、④符合',
    B: '①、②、③符合',
    C: '②、③、④符合',
    D: '①、②、③、④都符合',
  });
  assert.equal(circled.kind, 'combination');
  assert.deepEqual(statementsInOption('①、②、③、④都符合', circled.statements), ['①', '②', '③', '④']);
  const ascii = parseQuestion('下列正确的是 I.甲说法 II.乙说法 III.丙说法 A.I、II B.II、III C.I、III D.I、II、III');
  assert.equal(ascii.kind, 'combination');
  assert.deepEqual(statementsInOption('I、III', ascii.statements), ['I', 'III']);
});

void test('options from --options / CSV parts, and empty questions', () => {
  const q = questionFromParts('基金财产由（　）负责保管。', { A: '基金托管人', B: '基金管理人', C: '', D: '基金份额登记机构' });
  assert.deepEqual(
    q.options.map((o) => o.letter),
    ['A', 'B', 'D'],
  );
  assert.throws(
    () => parseQuestion('   '),
    (e: unknown) => e instanceof UserError && /empty question/.test(e.message),
  );
  assert.throws(
    () => parseQuestion('A.甲 B.乙'),
    (e: unknown) => e instanceof UserError && /only options/.test(e.message),
  );
});

void test('negation is read from the clause that asks, not from content words elsewhere in the stem', () => {
  assert.equal(asksForIncorrect('下列关于基金托管人的说法中，错误的是（　）。'), true);
  assert.equal(asksForIncorrect('以下不属于货币市场工具的是'), true);
  assert.equal(asksForIncorrect('关于开放式基金，下列表述不正确的是？'), true);
  assert.equal(asksForIncorrect('基金份额净值计价错误偏差达到基金份额净值的0.5%时，基金管理人应当（　）。'), false);
  assert.equal(asksForIncorrect('下列投资品种中，货币市场基金不得投资的是（　）。'), false);
  // What is not counted as something is the excluded choice, however it is said.
  assert.equal(asksForIncorrect('请从以下选项中选择一个不被视为私募基金管理人高级管理人员的职位（　）。'), true);
  assert.equal(asksForIncorrect('以下哪一项不算是尽职调查的必要内容？'), true);
  assert.equal(asksForIncorrect('下列各项中，不视为基金销售行为的是（　）。'), true);
  assert.equal(asksForIncorrect('下列行为中，被视为基金销售行为的是（　）。'), false);
  // A clause that goes on describing the thing asked for negates a property of it; one naming the choice still asks.
  assert.equal(asksForIncorrect('同时投资于股票、债券和货币市场工具，但投资比例不符合股票基金或债券基金规定的基金是（　）。'), false);
  assert.equal(asksForIncorrect('基金可以投资于多种资产，但下列不属于货币市场工具的是（　）。'), true);
  assert.equal(
    parseQuestion('基金份额净值计价错误偏差达到0.5%时，基金管理人应当（　）。A.公告 B.不公告 C.仅内部记录 D.等待季报').negated,
    false,
  );
  assert.equal(parseQuestion('下列说法中，不正确的有（　）。Ⅰ.甲 Ⅱ.乙 Ⅲ.丙 A.Ⅰ、Ⅱ B.Ⅱ、Ⅲ C.Ⅰ、Ⅲ D.Ⅰ、Ⅱ、Ⅲ').negated, true);
  // 而不是 / 而非 in the asking clause set one thing aside for another: a description, not a request for the wrong option.
  assert.equal(
    asksForIncorrect('要求将信息向市场上所有的投资者平等公开地披露，而不是仅向个别机构或者投资者披露的信息披露原则是（　）。'),
    false,
  );
  assert.equal(asksForIncorrect('以贝塔系数而非标准差衡量风险的指标是（　）。'), false);
  assert.equal(asksForIncorrect('下列不是信息披露原则的是（　）。'), true);
});

void test('negation is read from every asking clause, in any position', () => {
  // Asking clause first, topic after it.
  assert.equal(asksForIncorrect('请从以下选项中找出错误的说法，关于基金份额持有人大会的描述。'), true);
  // Asking clause in the middle, a question mark at the end.
  assert.equal(asksForIncorrect('在基金销售过程中，有关此问题的各项表述中，以下哪项是错误的？'), true);
  // Other words for "inaccurate" in the asking clause.
  assert.equal(asksForIncorrect('请从以下选项中选择一个对于相对估值法的评估描述不精确的。'), true);
  assert.equal(asksForIncorrect('下列关于基金估值的表述，不妥的是（ ）。'), true);
  // 不被允许 in the last clause.
  assert.equal(asksForIncorrect('当管理股权投资基金的人员进行基金销售时，下列哪一行为是不被允许的？'), true);
  // 不被允许 in an asking clause before the blank clause.
  assert.equal(asksForIncorrect('下列行为中不被允许的，是（ ）'), true);
  // A condition mentioning an error is not an asking clause.
  assert.equal(asksForIncorrect('计价错误偏差达到0.5%时，基金管理人应当（ ）'), false);
  // The blank clause says outright it wants the correct one.
  assert.equal(asksForIncorrect('下列关于错误申报的处理，正确的是（ ）'), false);
  assert.equal(parseQuestion('请从以下选项中找出错误的说法，关于基金托管人的描述。A.甲 B.乙 C.丙 D.丁').negated, true);
});

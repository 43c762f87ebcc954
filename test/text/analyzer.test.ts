import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chineseNumeralsToArabic, createAnalyzer, normalizeText, normalizeWithSpans } from '../../src/text/analyzer.js';

describe('analyzer', () => {
  it('rewrites Chinese numerals the way questions write numbers', () => {
    const cases: Array<[string, string]> = [
      ['平均剩余期限不得超过一百二十天', '平均剩余期限不得超过120天'],
      ['十五日内', '15日内'],
      ['一百零五', '105'],
      ['二〇一五年', '2015年'],
      ['不低于一亿元', '不低于1亿元'],
      ['三千五百万元', '3500万元'],
      ['百分之五', '5%'],
      ['百分之二十五', '25%'],
      ['百分之零点零五', '0.05%'],
      ['百分之一点五的赎回费', '1.5%的赎回费'],
      ['一点五倍', '1.5倍'],
      ['三点建议', '三点建议'],
      ['百分之十', '10%'],
      ['十日内', '10日内'],
      ['百分比', '百分比'],
      // A lone digit character is part of a word, not a number.
      ['统一、一般、第一章', '统一、一般、第一章'],
      ['三分之二以上', '三分之二以上'],
      ['一方当事人', '一方当事人'],
      // A lone digit before a counter is a count, as questions write it.
      ['最长不得超过三个月', '最长不得超过3个月'],
      ['两年内、五倍以上、五个工作日', '2年内、5倍以上、5个工作日'],
      ['一个人、一次', '一个人、一次'],
    ];
    for (const [input, expected] of cases) assert.equal(chineseNumeralsToArabic(input), expected, input);
  });

  it('maps each character of the normal form back to the text it came from', () => {
    const text = 'ＥＴＦ在三个月内，费率百分之一点五，共一百二十天。';
    const n = normalizeWithSpans(text);
    assert.ok(n);
    assert.equal(n.text, normalizeText(text));
    assert.equal(n.spans.length, n.text.length);
    const back = (s: string): string => {
      const at = n.text.indexOf(s);
      return text.slice(n.spans[at]?.[0], n.spans[at + s.length - 1]?.[1]);
    };
    assert.equal(back('etf'), 'ＥＴＦ');
    assert.equal(back('3个月'), '三个月');
    assert.equal(back('1.5%'), '百分之一点五');
    assert.equal(back('120天'), '一百二十天');
    assert.equal(back('费率'), '费率');
    // Normalising letter by letter differs from the whole text only around combining marks: no spans then.
    assert.equal(normalizeWithSpans('e\u0301'), null);
  });

  it('normalises width, case and numerals before segmenting', () => {
    assert.equal(normalizeText('ＥＴＦ 基金一百二十天'), 'etf 基金120天');
    const analyzer = createAnalyzer();
    assert.deepEqual(analyzer.tokens('期限为一百二十天'), analyzer.tokens('期限为120天'));
  });

  it('keeps user-dictionary terms whole and drops punctuation and stopwords', () => {
    const plain = createAnalyzer();
    const withDict = createAnalyzer(['麦考利久期 100000 n']);
    assert.ok(!plain.tokens('麦考利久期的计算').includes('麦考利久期'));
    assert.ok(withDict.tokens('麦考利久期的计算').includes('麦考利久期'));
    assert.notEqual(plain.fingerprint, withDict.fingerprint);
    assert.deepEqual(plain.tokens('（　）、。！？'), []);
    assert.ok(!plain.tokens('下列说法正确的是').includes('的'));
  });

  it('lowercases and stems English', () => {
    assert.deepEqual(createAnalyzer().tokens('Funds Running'), ['fund', 'run']);
  });
});

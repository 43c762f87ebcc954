import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hanBigrams } from '../../src/text/han-bigrams.js';

describe('hanBigrams', () => {
  it('cuts every run of Han characters into overlapping bigrams, across word boundaries', () => {
    assert.deepEqual(hanBigrams('民法典'), ['民法', '法典']);
    assert.deepEqual(hanBigrams('租房子，押金'), ['租房', '房子', '押金']);
  });

  it('skips single characters, Latin words and digits, on the analyzer normal form (full width, numerals)', () => {
    assert.deepEqual(hanBigrams('A股 ETF 的'), []);
    // 第一百二十条 → 第120条 (numerals become digits), so no bigram spans the number.
    assert.deepEqual(hanBigrams('第一百二十条规定'), ['条规', '规定']);
    assert.deepEqual(hanBigrams('ＡＢＣ基金'), ['基金']);
  });
});

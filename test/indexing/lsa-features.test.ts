import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FeatureInterner, lsaFeatures } from '../../src/indexing/embedders/lsa-features.js';
import { createAnalyzer, type Analyzer } from '../../src/text/analyzer.js';
import { planWindows } from '../../src/text/passage-windows.js';

const analyzer = createAnalyzer([]);

/** The sample book's indexed texts (a fixture of real chunks) and a page of study notes. */
const BOOK = [
  ...readFileSync(new URL('../../../test/fixtures/retrieve/docs_for_index.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { text: string }).text),
  ...readFileSync(new URL('../../../test/fixtures/notes/开放式基金笔记.md', import.meta.url), 'utf8').split('\n\n'),
];

/** Texts of every kind a book gives: prose, numerals, Latin words, full-width forms, a character beyond the BMP. */
const TEXTS = [
  '基金托管人应当履行下列职责：（一）安全保管基金财产；（二）按照规定开设基金财产的资金账户和证券账户；',
  '基金管理人应当自收到准予注册文件之日起六个月内进行基金份额的发售。',
  'The Sharpe ratio measures excess return per unit of risk; 夏普比率越大越好。',
  'ＡＢＣ基金：百分之八十以上投资于债券，T+1日确认。',
  '𠀀𠀁基金 基金 基金基金',
  '',
  '   ',
  '第三十六条　基金托管人应当履行下列职责',
];

/** Every text's features by name and count, as lsaFeatures gives them and as the interner counts them. */
function viaInterner(interner: FeatureInterner, text: string): Map<string, number> {
  const { ids, counts } = interner.count(text);
  return new Map([...ids].map((id, p) => [interner.names[id]!, counts[p]!]));
}

describe('FeatureInterner', () => {
  it('counts the features lsaFeatures counts, in the same order, over texts seen again and again', () => {
    const texts = [...TEXTS, ...BOOK, ...TEXTS];
    for (const ngrams of [[1, 2], [2], [1, 2, 3], []]) {
      const interner = new FeatureInterner(analyzer, ngrams);
      for (const text of texts) assert.deepEqual([...viaInterner(interner, text)], [...lsaFeatures(analyzer, text, ngrams)], text);
      // One id per feature name.
      assert.equal(new Set(interner.names).size, interner.names.length);
    }
  });

  it('takes a token spelled as an n-gram feature for that feature, as one map of names does', () => {
    const odd: Analyzer = { fingerprint: 'odd', tokens: (text) => (text === '' ? [] : ['\u0002基金', '\u0002基', 'x']) };
    const interner = new FeatureInterner(odd);
    for (const text of ['基金', '', '基金基金']) assert.deepEqual([...viaInterner(interner, text)], [...lsaFeatures(odd, text)], text);
    assert.equal(new Set(interner.names).size, interner.names.length);
  });
});

describe('Analyzer.tokensOfEach', () => {
  it('gives each text the tokens it gets alone', () => {
    const pieces = BOOK.flatMap((passage) => planWindows(passage).pieces);
    assert.ok(pieces.length > 50);
    const each = analyzer.tokensOfEach?.(pieces);
    assert.deepEqual(
      each,
      pieces.map((p) => analyzer.tokens(p)),
    );
    // Empty texts, spaces, a text with a line break of its own, and one text alone.
    for (const texts of [TEXTS, ['', '', '基金'], ['一\n二', '三'], ['a\r\nb', 'c'], ['基金托管人'], []]) {
      assert.deepEqual(
        analyzer.tokensOfEach?.(texts),
        texts.map((t) => analyzer.tokens(t)),
        JSON.stringify(texts),
      );
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractQuote, markedQuote, MAX_QUOTE_CHARS, MIN_QUOTE_CHARS, quoteSegments, termRanges } from '../../src/answer/evidence.js';
import { planWindows } from '../../src/text/passage-windows.js';

// A passage as pdf.js gives it: lines wrapped mid-sentence.
const passage =
  '第三十六条　基金托管人应当履行下列职责：\n（一）安全保管基金财产；\n（二）按照规定开设基金财\n产的资金账户和证券账户；（三）对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立。商业银行担任基金托管人的，由国务院证券监督管理机构会同国务院银行业监督管理机构核准。';

void describe('quote extraction', () => {
  void it('gives the whole sentence around a short matched clause, joined across line wraps, with the terms marked', () => {
    const q = extractQuote(passage, '商业银行担任基金托管人的，', ['商业银行', '托管人']);
    assert.equal(q.text, '商业银行担任基金托管人的，由国务院证券监督管理机构会同国务院银行业监督管理机构核准。');
    assert.equal(
      markedQuote({ quote: q.text, highlights: q.highlights }),
      '**商业银行**担任基金**托管人**的，由国务院证券监督管理机构会同国务院银行业监督管理机构核准。',
    );
  });

  void it('keeps a listed item with the clause that introduces it (a clause group)', () => {
    const q = extractQuote(passage, '（一）安全保管基金财产；', ['保管']);
    assert.equal(q.text, '第三十六条 基金托管人应当履行下列职责：（一）安全保管基金财产；');
    assert.ok(q.text.length >= MIN_QUOTE_CHARS);
  });

  void it('quotes a list item read with its lead as the words from the lead to the item, items between included', () => {
    // The answerer's window "lead + item 3" is not in the text as one run; the plan gives the run it stands in.
    const window = planWindows(passage).windows.find((w) => w.text.startsWith('第三十六条') && w.text.includes('（三）'));
    assert.equal(
      window?.text,
      '第三十六条\u3000基金托管人应当履行下列职责：（三）对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立。',
    );
    const q = extractQuote(passage, window.span ?? window.text, ['分别设置账户']);
    assert.equal(
      q.text,
      '第三十六条 基金托管人应当履行下列职责：（一）安全保管基金财产；（二）按照规定开设基金财产的资金账户和证券账户；（三）对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立。',
    );
    assert.equal(markedQuote({ quote: q.text, highlights: q.highlights }).match(/\*\*(.+?)\*\*/)?.[1], '分别设置账户');
    // An anchor not in the text falls back to the sentence with the most matched terms.
    assert.equal(
      extractQuote(passage, '别处的话：（三）对所托管', ['分别设置账户']).text,
      '（三）对所托管的不同基金财产分别设置账户，确保基金财产的完整与独立。',
    );
  });

  void it('quotes a pair of sentences with a blank line after ASCII punctuation (Markdown paragraphs) as the pair', () => {
    // The blank line stays a space after `;` (it is dropped only between CJK characters), so the pair's text as
    // joined is not in the passage; the plan gives the run as it stands.
    const note = '基金托管人应当安全保管基金财产，按照规定开设基金财产的资金账户;\n\n基金托管人应当对所托管的不同基金财产分别设置账户。';
    const pair = planWindows(note).windows.find((w) => w.text.includes('资金账户;基金托管人'));
    assert.equal(pair?.span, note);
    assert.equal(
      extractQuote(note, pair.span ?? pair.text, ['资金账户', '分别设置账户']).text,
      '基金托管人应当安全保管基金财产，按照规定开设基金财产的资金账户; 基金托管人应当对所托管的不同基金财产分别设置账户。',
    );
  });

  void it('widens a too-short sentence with its neighbour to at least the minimum', () => {
    const q = extractQuote(
      '股票不属于货币市场工具。货币市场工具包括银行定期存单、短期国债、商业票据和回购协议。',
      '股票不属于货币市场工具。',
      ['股票'],
    );
    assert.equal(q.text, '股票不属于货币市场工具。货币市场工具包括银行定期存单、短期国债、商业票据和回购协议。');
    assert.deepEqual(q.highlights, [[0, 2]]);
  });

  void it('cuts a long sentence to at most the maximum around the matched term, with ellipses', () => {
    const long = `${'基金管理人应当按照规定办理基金备案手续，'.repeat(8)}基金托管人负责保管基金财产，${'并按照规定定期公告基金净值信息，'.repeat(8)}。`;
    const q = extractQuote(long, long, ['托管人']);
    assert.ok(q.text.length <= MAX_QUOTE_CHARS + 2, `${q.text.length}`);
    assert.ok(q.text.includes('**') === false);
    assert.ok(q.text.startsWith('…') && q.text.endsWith('…'), q.text);
    assert.ok(markedQuote({ quote: q.text, highlights: q.highlights }).includes('**托管人**'));
  });

  void it('without an anchor, picks the sentence with the most matched terms', () => {
    const q = extractQuote(passage, '', ['国务院', '核准']);
    assert.match(q.text, /核准。$/);
  });

  void it('merges overlapping term ranges and splits segments for renderers', () => {
    assert.deepEqual(termRanges('基金托管人负责', ['基金托管人', '托管', '负责', '基']), [[0, 7]]);
    // Terms are the analyzer's tokens (digits, lower case): they mark the numerals and full-width letters the book wrote.
    const text = '应当在三个月内报告ＥＴＦ净值，费率为百分之五。';
    const marked = termRanges(text, ['3个月', 'etf', '5%']).map(([a, b]) => text.slice(a, b));
    assert.deepEqual(marked, ['三个月', 'ＥＴＦ', '百分之五']);
    assert.deepEqual(quoteSegments('ab基金cd', [[2, 4]]), [
      { text: 'ab', marked: false },
      { text: '基金', marked: true },
      { text: 'cd', marked: false },
    ]);
  });
});

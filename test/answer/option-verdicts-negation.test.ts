import assert from 'node:assert/strict';
import { test } from 'node:test';
import { polarityClash } from '../../src/answer/clause-cues.js';
import { assertSettled, notesBook, verdictOf } from '../helpers/notes-book.js';

// A sentence that names the fees first and then says, of 这些费用, that they are not paid from the fund's assets: the
// negation is a bare 不 before the option's own words, two clauses after the fee the option names.
const BOOK = `# 第三章 基金费用

## 3.1 基金交易费用

投资者在申购、赎回基金份额时需要支付申购费、赎回费等交易费用，这些费用由投资者直接承担，不从基金财产中列支。

基金管理费、托管费从基金财产中列支，按前一日基金资产净值的一定比例逐日计提。
`;

const book = notesBook({ 'rawdoc/基金费用.md': BOOK });

void test('a bare 不 before the claim’s own words negates them; a 不 the claim has too does not', () => {
  assert.equal(polarityClash(['不从基金财产中列支。'], '申购费从基金财产中列支', ['财产', '列支']), '不');
  assert.equal(polarityClash(['不从基金财产中列支。'], '申购费不从基金财产中列支', ['财产', '列支']), null);
  // A cue the clause already names is given as it is written.
  assert.equal(polarityClash(['并不参与基金收益的分配'], '基金托管人参与基金收益的分配', ['参与', '收益', '分配']), '并不');
});

void test('an option found by its words under a negation is contradicted, not supported', async () => {
  const result = await book.ask(
    '下列关于申购费的说法中，正确的是（ ）。A.申购费从基金财产中列支 B.申购费由投资者直接承担 C.申购费按基金资产净值逐日计提 D.申购费由基金托管人承担',
  );
  const a = assertSettled(result, { answer: 'B', supported: 'B', contradicted: 'A', reason: '肯定/否定相反：不' });
  const quote = a.evidence?.quote ?? '';
  assert.deepEqual(
    (a.evidence?.highlights ?? []).map(([from, to]) => quote.slice(from, to)),
    ['不'],
  );
});

void test('a clause that points back (这些费用…，不从…列支) is read with the sentence that names what it points to', async () => {
  const result = await book.ask(
    '下列关于基金交易费用的说法中，不正确的是（ ）。A.申购费从基金财产中列支 B.赎回费由投资者直接承担 C.基金管理费从基金财产中列支 D.托管费按前一日基金资产净值的一定比例逐日计提',
  );
  assert.equal(result.answer, 'A');
  const a = verdictOf(result, 'A');
  assert.equal(a.verdict, 'contradicted');
  assert.equal(a.reason, '肯定/否定相反：不');
  assert.equal(
    a.evidence?.quote,
    '投资者在申购、赎回基金份额时需要支付申购费、赎回费等交易费用，这些费用由投资者直接承担，不从基金财产中列支。',
  );
  assert.equal(verdictOf(result, 'C').verdict, 'supported');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formulaOf, inSymbols, legendOf, sameFormula } from '../../src/answer/formula-legend.js';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// A formula the book writes in symbols, with what each symbol stands for under 其中, and options that write it in
// those words: each option is read back in the symbols and is the book's formula or is not.
const BOOK = `# 第九章 基金业绩评价

## 9.2 风险调整后收益

夏普比率的计算公式为：

Sp = (Rp - Rf) / σp

其中，Sp为夏普比率，Rp为基金的平均收益率，Rf为无风险收益率，σp为基金收益率的标准差。

夏普比率越大，基金单位风险的超额收益越高。
`;

const book = notesBook({ 'rawdoc/业绩评价.md': BOOK });

void test('a legend read both ways it is written, and a formula in its words read back in its symbols', () => {
  const legend = legendOf('**其中：**\n- E(Ri) = 资产i的期望收益率\n- Rf = 无风险利率\n- E(Rm) - Rf = 市场风险溢价\n');
  assert.deepEqual(
    [...legend],
    [
      ['资产i的期望收益率', 'E(Ri)'],
      ['无风险利率', 'Rf'],
      ['市场风险溢价', 'E(Rm) - Rf'],
    ],
  );
  assert.deepEqual(formulaOf('**公式：** E(Ri) = Rf + βi × [E(Rm) - Rf]'), { lhs: 'E(Ri)', rhs: 'Rf + βi × [E(Rm) - Rf]' });
  // A line of words is no formula, nor a definition in words.
  assert.equal(formulaOf('E(Ri) = 资产i的期望收益率'), null);
  const written = inSymbols('无风险利率 + β × 市场风险溢价', legend);
  assert.equal(written?.text, 'Rf + β × (E(Rm) - Rf)');
  assert.ok(sameFormula(written?.text ?? '', 'Rf + βi × [E(Rm) - Rf]'));
  assert.ok(!sameFormula(inSymbols('无风险利率 + 市场风险溢价', legend)?.text ?? '', 'Rf + βi × [E(Rm) - Rf]'));
  // A word the legend does not give: not read at all.
  assert.equal(inSymbols('市场收益率 × β', legend), null);
});

void test('options written in the legend’s words are the book’s formula or another', async () => {
  const r = await book.ask(
    '夏普比率的计算公式是（ ）。A.（基金的平均收益率 - 无风险收益率）/ 基金收益率的标准差 B.（基金的平均收益率 - 无风险收益率）/ β C.基金的平均收益率 / 基金收益率的标准差 D.（无风险收益率 - 基金的平均收益率）/ 基金收益率的标准差',
  );
  assert.equal(r.answer, 'A');
  const a = verdictOf(r, 'A');
  assert.equal(a.verdict, 'supported');
  assert.match(a.evidence?.quote ?? '', /Sp = \(Rp - Rf\) \/ σp/u);
  for (const label of ['C', 'D']) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'contradicted', label);
    assert.match(v.reason ?? '', /^公式不同：教材为 Sp = \(Rp - Rf\) \/ σp（其中：/u, label);
  }
  // β is no symbol of this legend's formula: written back, B is another formula.
  assert.equal(verdictOf(r, 'B').verdict, 'contradicted');
});

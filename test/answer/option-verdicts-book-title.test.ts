import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notesBook } from '../helpers/notes-book.js';

// Two books of study notes, ingested for real. The list of risk types names its subject only in its book's title
// (私募股权投资基金基础知识); the other book uses 私募股权投资基金 in its text, so the word is known to the corpus.
const PE_BOOK = `# 第七章 管理与内控

## 7.2 风险管理

风险类型：投资风险、市场风险、流动性风险、操作风险、合规风险。

风险管理措施：建立风险管理制度，设立风险管理部门，开展风险评估。
`;
const FUND_BOOK = `# 第四章 另类投资

## 4.2 私募股权投资

私募股权投资基金通过上市、并购或管理层回购等方式退出。

证券投资基金的风险包括市场风险和信用风险。
`;

const book = notesBook({ 'rawdoc/私募股权投资基金基础知识.md': PE_BOOK, 'rawdoc/证券投资基金基础知识.md': FUND_BOOK });

void test("a passage speaks of its book's subject: the title counts as its outermost heading", async () => {
  const result = await book.ask('私募股权投资基金的风险类型不包括（ ）。A.投资风险 B.市场风险 C.流动性风险 D.无风险');
  assert.equal(result.answer, 'D');
  for (const label of ['A', 'C']) {
    const v = result.verdicts?.find((x) => x.label === label);
    assert.equal(v?.verdict, 'supported', label);
    assert.equal(v.evidence?.book, '私募股权投资基金基础知识', label);
    assert.match(v.evidence.quote, /^风险类型：投资风险、市场风险、流动性风险/u, label);
  }
  assert.equal(result.verdicts?.find((x) => x.label === 'D')?.verdict, 'contradicted');
});

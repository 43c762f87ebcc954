import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// A list's lead that wraps over two lines (as a PDF's text layer gives it, or a note typed with hard line breaks) is
// quoted from the start of its sentence, not from its last line.
const BOOK = `# 第五章 信息披露

第七十九条 上市公司、公司债券上市交易的公司、股票在国务院批准的其他全国性证券交易
场所交易的公司，应当按照规定编制定期报告，并按照以下规定报送和公告：
（一）在每一会计年度结束之日起四个月内，报送并公告年度报告；
（二）在每一会计年度的上半年结束之日起二个月内，报送并公告中期报告。

第八十条 发生可能对上市公司的股票交易价格产生较大影响的重大事件，公司应当立即公告。
`;

const book = notesBook({ 'rawdoc/证券法.md': BOOK });

void test('a list item is quoted with the whole of a lead that wraps', async () => {
  const r = await book.ask('上市公司应当在每一会计年度的上半年结束之日起（ ）内报送并公告中期报告。A.一个月 B.二个月 C.三个月 D.四个月');
  const v = verdictOf(r, 'B');
  assert.equal(v.verdict, 'supported');
  assert.match(
    v.evidence?.quote ?? '',
    /^第七十九条 上市公司、公司债券上市交易的公司、股票在国务院批准的其他全国性证券交易场所交易的公司，/u,
  );
  assert.match(v.evidence?.quote ?? '', /（二）在每一会计年度的上半年结束之日起二个月内，报送并公告中期报告。$/u);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { notesBook, verdictOf } from '../helpers/notes-book.js';

// The words a stem asks with (以下哪项内容…的一部分) name nothing a passage states: the list item that names an option is
// read for the stem's subject (基金信息披露) alone, and is not turned away for lacking 内容 and 一部分, which the book uses
// elsewhere, rarely, so they would weigh most.
const BOOK = `# 第七章 公开募集基金的投资与信息披露

第七十六条 公开披露的基金信息包括：
（一）基金招募说明书、基金合同、基金托管协议；
（二）基金募集情况；
（三）基金份额上市交易公告书；
（四）临时报告；
（五）基金份额持有人大会决议。

第七十七条 基金管理人应当在每个开放日公告基金份额净值。

# 第八章 基金财产

第八十条 基金托管协议的内容由基金管理人和基金托管人约定。

第八十一条 基金财产投资的收益，属于基金财产的一部分。
`;

const book = notesBook({ 'rawdoc/基金法.md': BOOK });

void test('a list item under its lead settles an option, whatever words the stem asks with', async () => {
  const r = await book.ask(
    '以下哪项内容并非基金信息披露的一部分？ A. 基金募集情况 B. 临时报告 C. 基金投资预测说明书 D. 基金份额持有人大会决议',
  );
  for (const label of ['A', 'B', 'D']) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, 'supported', label);
    // Quoted with its list's lead, which says what the item is part of.
    assert.match(v.evidence?.quote ?? '', /^第七十六条 公开披露的基金信息包括/u, label);
  }
  assert.notEqual(verdictOf(r, 'C').verdict, 'supported');
  // 并非: the one option the list does not hold.
  assert.equal(r.answer, 'C');
});

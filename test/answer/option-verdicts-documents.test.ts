import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSettled, notesBook, verdictOf } from '../helpers/notes-book.js';

// Two laws in one compilation, each under a chapter named after it, each saying 本法 / 本条例 of itself; the first
// also speaks of 私募投资基金 in the sentence that gives its own date, and the second names the first by its title.
const BOOK = `# 第一章 证券投资基金法

第一百五十三条 公开或者非公开募集资金，以进行证券投资活动为目的设立的公司或者合伙企业，资产由基金管理人或者普通合伙人管理的，其证券投资活动适用本法。

第一百五十四条 本法自2013年6月1日起施行，私募投资基金的监督管理依照本法执行。

# 第二章 私募投资基金监督管理条例

第一条 为了规范私募投资基金业务活动，保护投资者以及相关当事人的合法权益，根据《中华人民共和国证券投资基金法》，制定本条例。

第六十二条 本条例自2023年9月1日起施行。
`;

const book = notesBook({ 'rawdoc/法规汇编.md': BOOK });

void test('a question naming a document by its title is read in that document, not in another that says 本法 of itself', async () => {
  const result = await book.ask('《私募投资基金监督管理条例》自（ ）起施行。A.2013年6月1日 B.2023年9月1日 C.2014年8月21日 D.2015年4月24日');
  const a = assertSettled(result, {
    answer: 'B',
    supported: 'B',
    quote: /^第六十二条 本条例自2023年9月1日起施行。$/u,
    contradicted: 'A',
    reason: '数字不同：2023年',
  });
  // The other law's date, in a sentence that holds more of the question's words, is not read as this one's.
  assert.doesNotMatch(a.evidence?.quote ?? '', /本法/u);
  const law = await book.ask('《证券投资基金法》自（ ）起施行。A.2013年6月1日 B.2023年9月1日 C.2014年8月21日 D.2015年4月24日');
  assert.equal(law.answer, 'A');
  assert.match(verdictOf(law, 'A').evidence?.quote ?? '', /^第一百五十四条 本法自2013年6月1日起施行/u);
  assert.equal(verdictOf(law, 'B').reason, '数字不同：2013年');
});

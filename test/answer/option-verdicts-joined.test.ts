import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VerdictKind } from '../../src/answer/answer-types.js';
import { decidingKinds, joinedOptions } from '../../src/answer/covering-options.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { assertReadings, notesBook } from '../helpers/notes-book.js';

// One option joins two others (A.资产配置贡献和证券选择贡献 beside B.资产配置贡献 and C.证券选择贡献) and the book states
// both: the option stating one of them leaves the other out.
const BOOK = `# 第九章 基金业绩评价

## 9.3 业绩归因分析

### 9.3.1 资产配置归因

- 分析资产配置对业绩的贡献
- 比较实际配置比例与基准配置比例

### 9.3.3 交互作用归因

- 分析资产配置和证券选择的交互作用
- 交互作用 = 总超额收益 - 资产配置贡献 - 证券选择贡献
`;

const book = notesBook({ 'rawdoc/业绩评价.md': BOOK });

const QUESTION = '交互作用归因中，交互作用等于总超额收益减去（ ）。A.资产配置贡献和证券选择贡献 B.资产配置贡献 C.证券选择贡献 D.基准收益';

void test('the option joining two others the book states both of is the answer, the two shown as its parts', async () => {
  const r = await book.ask(QUESTION);
  assert.equal(r.answer, 'A');
  const part = { verdict: 'supported', reason: 'A 的一部分：教材同时写出 A 所列各项' } as const;
  assertReadings(r, { A: { verdict: 'supported' }, B: part, C: part });
  // Not a tie between three options alike supported.
  assert.doesNotMatch(r.message ?? '', /同样有教材依据/u);
});

void test('an option joins others only when each of its parts is another option, in a single-choice question not negated', () => {
  assert.deepEqual(joinedOptions(parseQuestion(QUESTION)), [{ at: 0, parts: [1, 2] }]);
  assert.deepEqual(joinedOptions(parseQuestion('基金可以投资于（ ）。A.股票、债券 B.股票 C.债券 D.房地产')), [{ at: 0, parts: [1, 2] }]);
  // 股票和期货: 期货 is no option.
  assert.deepEqual(joinedOptions(parseQuestion('基金可以投资于（ ）。A.股票和期货 B.股票 C.债券 D.房地产')), []);
  // Under a negated stem the option the book does not state is asked for: the parts are read one by one.
  assert.deepEqual(joinedOptions(parseQuestion('下列不属于基金投资范围的是（ ）。A.股票和债券 B.股票 C.债券 D.房地产')), []);
});

void test('the parts weigh as not found only when the joined option and every part are stated', () => {
  const q = parseQuestion(QUESTION);
  const verdicts = (kinds: VerdictKind[]) =>
    kinds.map((verdict, i) => ({ label: 'ABCD'[i] ?? '', target: 'option' as const, text: q.options[i]?.text ?? '', verdict }));
  assert.deepEqual(decidingKinds(q, verdicts(['supported', 'supported', 'supported', 'contradicted'])), [
    'supported',
    'not_found',
    'not_found',
    'contradicted',
  ]);
  // C not stated: whether the book leaves it out or never says, A is not settled over B.
  assert.deepEqual(decidingKinds(q, verdicts(['supported', 'supported', 'not_found', 'contradicted'])), [
    'supported',
    'supported',
    'not_found',
    'contradicted',
  ]);
});

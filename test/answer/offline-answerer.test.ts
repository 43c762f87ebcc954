import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerQuestion } from '../../src/answer/answer-question.js';
import type { AnswerDeps } from '../../src/answer/answer-question.js';
import { evidenceVerdict, NO_EVIDENCE_MESSAGE, OFF_TOPIC_MESSAGE } from '../../src/answer/evidence-verdict.js';
import { DEFAULT_WEIGHTS } from '../../src/answer/solver-weights.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { UserError } from '../../src/errors.js';
import { projectPaths } from '../../src/paths.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { fixtureChunk, memoryRetriever } from './memory-retriever.js';

const analyzer = createAnalyzer();
const chunks = [
  fixtureChunk('c1', '基金财产由基金托管人负责保管，由基金管理人负责投资运作。基金托管人通常由商业银行担任。'),
  fixtureChunk('c2', '货币市场工具包括银行定期存单、短期国债、商业票据和回购协议。股票不属于货币市场工具。', {
    chapter: '第三章 货币市场',
    section: '第一节 货币市场工具',
    page_start: '35',
    page_end: '35',
  }),
  fixtureChunk('c3', '契约型基金反映的是一种信托关系，投资者购买基金份额后成为基金的受益人。', { page_start: '2', page_end: '2' }),
  fixtureChunk('c4', '开放式基金的份额不固定，投资者可以在规定时间申购和赎回。封闭式基金在封闭期内份额固定，在证券交易所上市交易。', {
    section: '第二节 开放式基金',
    page_start: '5',
    page_end: '5',
  }),
  fixtureChunk('c5', '基金信息披露包括基金招募说明书、基金定期报告和临时报告。', {
    section: '第三节 信息披露',
    page_start: '8',
    page_end: '8',
  }),
];
const retriever = memoryRetriever(chunks, analyzer);
const deps: AnswerDeps = {
  retriever,
  llm: null,
  answerer: 'offline',
  mode: 'hybrid',
  topK: 5,
  rerank: false,
  prompts: projectPaths('.').prompts,
  analyzer,
};
const ask = (text: string) => answerQuestion(parseQuestion(text), deps);

void test('single choice: the supported option wins, with its evidence and page', async () => {
  const r = await ask('基金财产由（ ）负责保管。A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所');
  assert.equal(r.answer, 'B');
  assert.equal(r.answerer, 'offline');
  assert.equal(r.fallback, null);
  assert.equal(r.evidence[0]?.chunk_id, 'c1');
  assert.match(r.evidence[0]?.quote ?? '', /基金托管人负责保管/);
  assert.ok(r.confidence > 0.25 && r.confidence <= 1, `confidence ${r.confidence}`);
  // One retrieval per option plus the stem (IR solver).
  assert.ok(retriever.queries.some((q) => q.includes('基金托管人')));
});

void test('negated stem: the least supported option wins, evidence supports the others', async () => {
  const r = await ask('下列不属于货币市场工具的是（ ）。A.银行定期存单 B.短期国债 C.商业票据 D.股票期权');
  assert.equal(r.question.negated, true);
  assert.equal(r.answer, 'D');
  assert.ok(r.evidence.some((e) => e.chunk_id === 'c2'));
});

void test('negated stem: an option the book contradicts (不得 against 可以) beats options it never mentions', async () => {
  const book = [
    fixtureChunk('m1', '货币市场基金不得投资于股票，也不得投资于可转换债券。', { section: '第二节 货币市场基金' }),
    fixtureChunk('m2', '货币市场基金主要投资于短期货币工具，如国债、央行票据和银行定期存单。', { section: '第二节 货币市场基金' }),
  ];
  const own: AnswerDeps = { ...deps, retriever: memoryRetriever(book, analyzer) };
  const r = await answerQuestion(
    parseQuestion(
      '下列关于货币市场基金的说法，错误的是（ ）。A.主要投资于短期货币工具 B.可以投资于股票 C.申购赎回灵活方便 D.收益分配方式多样',
    ),
    own,
  );
  assert.equal(r.question.negated, true);
  assert.equal(r.answer, 'B');
  // The evidence is the passage that contradicts the option.
  assert.equal(r.evidence[0]?.chunk_id, 'm1');
  assert.match(r.evidence[0]?.quote ?? '', /不得投资于股票/);
});

void test('multi-select: every well-supported option', async () => {
  const r = await ask('（多选）货币市场工具包括（ ）。A.银行定期存单 B.短期国债 C.普通股票 D.商业票据');
  assert.equal(r.question.kind, 'multi');
  assert.equal(r.answer, 'ABD');
});

void test('roman-numeral combination: the option matching the supported statements', async () => {
  const r = await ask(
    '关于开放式基金和封闭式基金，说法正确的是（ ）。Ⅰ.开放式基金的份额不固定 Ⅱ.封闭式基金在证券交易所上市交易 Ⅲ.封闭式基金可以随时赎回 Ⅳ.开放式基金投资者可以申购和赎回 A.Ⅰ、Ⅱ、Ⅳ B.Ⅰ、Ⅲ C.Ⅲ、Ⅳ D.Ⅱ、Ⅲ',
  );
  assert.equal(r.question.kind, 'combination');
  assert.equal(r.answer, 'A');
  assert.ok(r.optionScores && (r.optionScores['Ⅲ'] ?? 1) < (r.optionScores['Ⅰ'] ?? 0));
});

void test('judge: a statement found in the book is true, one with the opposite negation is false', async () => {
  const yes = await ask('判断题：基金托管人通常由商业银行担任。A.正确 B.错误');
  assert.equal(yes.question.kind, 'judge');
  assert.equal(yes.answer, 'A');
  const no = await ask('判断题：股票属于货币市场工具。A.正确 B.错误');
  assert.equal(no.answer, 'B');
});

void test('off-topic and no-evidence fallbacks carry the seed messages and no letter', async () => {
  const off = await ask('今天天气怎么样？A.晴天 B.下雨 C.阴天 D.下雪');
  assert.equal(off.fallback, 'off_topic');
  assert.equal(off.message, OFF_TOPIC_MESSAGE);
  assert.equal(off.answer, '');
  // On-topic words, but nothing in the corpus says anything about the options.
  const none = await ask('基金托管人通常由（ ）担任。A.保险公司 B.期货公司 C.律师事务所 D.会计师事务所');
  assert.equal(none.fallback, 'no_evidence');
  assert.equal(none.message, NO_EVIDENCE_MESSAGE);
  // The best letter is kept as a guess, worth no more than chance.
  assert.ok(none.confidence < 0.3, `confidence ${none.confidence}`);
  assert.ok(none.guess && /^[A-D]$/.test(none.guess.answer));
});

void test('abstention threshold: below it no letter (closest passages, a guess); --guess gives the letter; 0 never abstains', async () => {
  const q = parseQuestion('基金财产由（ ）负责保管。A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所');
  const normal = await answerQuestion(q, deps);
  assert.equal(normal.answer, 'B');
  assert.equal(normal.guess, undefined);
  const c = normal.confidence;
  // The threshold is compared with the confidence as shown (two decimals): one step above it abstains.
  const shown = Math.round(c * 100) / 100;
  // Just above the answer's shown confidence: abstain, keep B as the guess, show the closest passages.
  const strict = await answerQuestion(q, { ...deps, abstainBelow: shown + 0.01 });
  assert.equal(strict.answer, '');
  assert.equal(strict.fallback, 'no_evidence');
  assert.equal(strict.message, NO_EVIDENCE_MESSAGE);
  assert.deepEqual(strict.guess, { answer: 'B', confidence: c });
  assert.ok(strict.evidence.length > 0);
  const guessed = await answerQuestion(q, { ...deps, abstainBelow: shown + 0.01, guess: true });
  assert.equal(guessed.answer, 'B');
  assert.equal(guessed.fallback, null);
  assert.ok(guessed.guess);
  // Shown exactly at the threshold: answered, whatever the third decimal (a value shown is never also withheld).
  const edge = await answerQuestion(q, { ...deps, abstainBelow: shown });
  assert.equal(edge.answer, 'B');
  assert.equal(
    (
      await answerQuestion(parseQuestion('基金托管人通常由（ ）担任。A.保险公司 B.期货公司 C.律师事务所 D.会计师事务所'), {
        ...deps,
        abstainBelow: 0,
      })
    ).answer,
    '',
  );
});

void test('one verdict for no evidence and off topic, shared by the LLM path', () => {
  assert.equal(evidenceVerdict({ vocabulary: 0.1 }), 'off_topic');
  assert.equal(evidenceVerdict({ vocabulary: 0.1, passages: 3, support: 0.9 }), null);
  assert.equal(evidenceVerdict({ vocabulary: 0.9, passages: 0 }), 'no_evidence');
  assert.equal(evidenceVerdict({ vocabulary: 0.9, passages: 5, support: DEFAULT_WEIGHTS.noEvidence / 2 }), 'no_evidence');
  assert.equal(evidenceVerdict({ vocabulary: 0.9, passages: 5, support: 0.3 }), null);
  assert.equal(evidenceVerdict({ vocabulary: DEFAULT_WEIGHTS.onTopicVocabulary }), null);
});

void test('a question unrelated to the books gets no confident letter', async () => {
  const r = await ask('下列哪种动物最擅长游泳？A.企鹅 B.骆驼 C.松鼠 D.老鹰');
  assert.equal(r.answer, '');
  assert.ok(r.fallback === 'off_topic' || r.fallback === 'no_evidence');
  assert.ok(r.confidence <= 0.3, `confidence ${r.confidence}`);
});

void test('an open question (no options) is answered with cited evidence and no letter', async () => {
  const r = await ask('契约型基金反映的是什么关系？');
  assert.equal(r.question.kind, 'open');
  assert.equal(r.answer, '');
  assert.equal(r.evidence[0]?.chunk_id, 'c3');
});

void test('baseline mode without an LLM is a user error', async () => {
  await assert.rejects(answerQuestion(parseQuestion('基金财产由谁保管 A.甲 B.乙'), { ...deps, mode: 'baseline' }), UserError);
});

void test('human and JSON output: confidence in words, the negated reading, marked quotes', async () => {
  const { askJson, formatAnswer } = await import('../../src/cli/report/ask.js');
  const { confidenceWords } = await import('../../src/answer/answer-json.js');
  const negated = await ask(
    '请从以下选项中找出错误的说法，关于货币市场工具的描述。A.银行定期存单属于货币市场工具 B.短期国债属于货币市场工具 C.商业票据属于货币市场工具 D.股票期权属于货币市场工具',
  );
  const text = formatAnswer({ result: negated, warnings: [] }, { showContext: false });
  assert.match(text, /读作：选错误的一项/);
  assert.match(text, /Confidence: 0\.\d\d \((high|medium|low|guess)\)/);
  assert.equal(askJson({ result: negated, warnings: [] }).negated, true);
  const plain = await ask('基金财产由（ ）负责保管。A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所');
  assert.match(formatAnswer({ result: plain, warnings: [] }, { showContext: false }), /\*\*托管人\*\*|\*\*基金托管人\*\*/);
  assert.equal(confidenceWords({ confidence: 0.9 }), 'high');
  assert.equal(confidenceWords({ confidence: 0.6 }), 'medium');
  assert.equal(confidenceWords({ confidence: 0.4 }), 'low');
  assert.equal(confidenceWords({ confidence: 0.9, guess: { answer: 'A', confidence: 0.9 } }), 'guess');
});

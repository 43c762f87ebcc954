import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OptionVerdict, VerdictKind } from '../../src/answer/answer-types.js';
import type { Support } from '../../src/answer/claim-support.js';
import { singleDecision } from '../../src/answer/decisions.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { verdictStanding } from '../../src/answer/question-verdicts.js';
import { DEFAULT_WEIGHTS } from '../../src/answer/solver-weights.js';
import type { Chunk } from '../../src/types.js';

/** A support of the given score that no passage carries (the decision reads only the scores and the verdicts here). */
function scored(score: number): Support {
  return { score, chunk: null, window: '', span: '', terms: [], verbatim: 0, stemCoverage: 0 };
}

const exits = parseQuestion('私募股权投资中，收益最高的退出方式是（ ）。A.IPO退出 B.股权转让 C.回购 D.清算');
// The support ranking puts D first.
const supports = [0.6, 0.3, 0.7, 0.9].map(scored);

void test('the letter never goes against its own clause while other options stand: the best ranked supported one is taken', () => {
  const verdicts: VerdictKind[] = ['supported', 'contradicted', 'supported', 'contradicted'];
  assert.equal(singleDecision(exits, supports, DEFAULT_WEIGHTS, verdicts).answer, 'C');
});

void test('one supported option is the answer; where no clause rules out the ranking, the ranking stands', () => {
  assert.equal(singleDecision(exits, supports, DEFAULT_WEIGHTS, ['supported', 'contradicted', 'not_found', 'contradicted']).answer, 'A');
  assert.equal(singleDecision(exits, supports, DEFAULT_WEIGHTS, ['supported', 'not_found', 'supported', 'not_found']).answer, 'D');
  assert.equal(singleDecision(exits, supports, DEFAULT_WEIGHTS, []).answer, 'D');
});

void test('a negated stem: an option the book supports is not the answer while several are contradicted', () => {
  const negated = parseQuestion('关于私募股权投资的退出方式，下列说法错误的是（ ）。A.甲 B.乙 C.丙 D.丁');
  assert.equal(negated.negated, true);
  // Negated, the ranking prefers the least supported: A (0.1); the clauses say A is right and B, C are wrong.
  const weak = [0.1, 0.5, 0.4, 0.8].map(scored);
  assert.equal(singleDecision(negated, weak, DEFAULT_WEIGHTS, ['supported', 'contradicted', 'contradicted', 'not_found']).answer, 'C');
});

/** Option verdicts of the given kinds, A first (verdictStanding reads only the labels and the kinds). */
function optionVerdicts(kinds: readonly VerdictKind[]): OptionVerdict[] {
  return kinds.map((verdict, i) => ({ label: 'ABCD'[i]!, target: 'option', text: '', verdict }));
}

void test('how decisively the clauses settle a question: the share of the other options their clauses rule out', () => {
  const standing = (kinds: readonly VerdictKind[], answer: string, q = exits) => verdictStanding(q, optionVerdicts(kinds), answer);
  assert.deepEqual(standing(['supported', 'contradicted', 'contradicted', 'contradicted'], 'A'), {
    agrees: 1,
    rivals: 0,
    against: 0,
    ruledOut: 1,
  });
  // Not found is not ruled out: one of three others is.
  assert.equal(standing(['supported', 'contradicted', 'not_found', 'not_found'], 'A').ruledOut, 1 / 3);
  // A supported rival is not ruled out either.
  assert.deepEqual(standing(['supported', 'supported', 'contradicted', 'not_found'], 'B'), {
    agrees: 1,
    rivals: 1,
    against: 0,
    ruledOut: 1 / 3,
  });
  // For a negated stem, an option the book supports is the one ruled out.
  const negated = parseQuestion('关于私募股权投资的退出方式，下列说法错误的是（ ）。A.甲 B.乙 C.丙 D.丁');
  assert.deepEqual(standing(['supported', 'supported', 'contradicted', 'supported'], 'C', negated), {
    agrees: 1,
    rivals: 0,
    against: 0,
    ruledOut: 1,
  });
});

void test('a negated stem: an option whose strong passage says 并不 where the option does not is the one the book negates', () => {
  const negated = parseQuestion(
    '下列说法错误的是（ ）。A.基金管理人经手基金财产的保管 B.基金托管人保管基金财产 C.基金管理人负责投资运作 D.基金托管人复核基金资产净值',
  );
  const windows = [
    '基金管理人本身并不经手基金财产的保管',
    '基金托管人保管基金财产',
    '基金管理人负责投资运作',
    '基金托管人复核基金资产净值',
  ];
  const supports = [0.95, 0.6, 0.7, 0.8].map((score, i) => ({ ...scored(score), window: windows[i] ?? '' }));
  assert.equal(singleDecision(negated, supports, DEFAULT_WEIGHTS, []).answer, 'A');
});

void test('two options alike supported by different passages are a conflict, unless a clause rules one of them out', () => {
  const chunk = (id: string): Chunk => ({
    chunk_id: id,
    book: '教材',
    headings: [],
    chapter: '',
    section: '',
    subsection: '',
    articles: [],
    figure_ref: '',
    page_start: '1',
    page_end: '1',
    pdf_page_start: null,
    pdf_page_end: null,
    chunk_type: 'text',
    exam_priority: 1,
    source: 'rawdoc/教材.md',
    char_start: 0,
    char_end: 0,
    page_breaks: [],
    seq: 0,
    text: '',
  });
  const strong = (score: number, id: string): Support => ({ ...scored(score), chunk: chunk(id) });
  const close = [strong(0.96, 'a'), strong(0.95, 'b'), strong(0.1, 'c'), strong(0.1, 'd')];
  assert.equal(singleDecision(exits, close, DEFAULT_WEIGHTS, []).fallback, 'conflict');
  // B's passage speaks of another subject (its clause contradicts it): the verdicts tell the two apart.
  const settled = singleDecision(exits, close, DEFAULT_WEIGHTS, ['supported', 'contradicted', 'not_found', 'not_found']);
  assert.equal(settled.answer, 'A');
  assert.equal(settled.fallback, undefined);
});

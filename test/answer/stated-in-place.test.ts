import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EvidenceItem, OptionVerdict } from '../../src/answer/answer-types.js';
import { statedInPlace, type PlaceCandidate } from '../../src/answer/stated-in-place.js';

// statedInPlace on its own: which clauses that state one option rule out the others, and which rule out none.
const evidence: EvidenceItem = {
  chunk_id: 'c1',
  book: '信息披露',
  chapter: '第六章',
  section: '',
  figure_ref: '',
  page_start: '',
  page_end: '',
  quote: '基金管理人应当在每年结束之日起三个月内，编制完成基金年度报告；',
};
const options = ['基金年度报告', '基金季度报告', '基金月度报告', '基金招募说明书'];
const verdicts: OptionVerdict[] = options.map((text, i) => ({
  label: 'ABCD'[i] ?? '',
  target: 'option',
  text,
  ...(i === 0 ? { verdict: 'supported' as const, evidence } : { verdict: 'not_found' as const }),
}));
const candidate = (text: string, i: number, change: Partial<PlaceCandidate> = {}): PlaceCandidate => ({
  coverage: i === 0 ? 0.8 : null,
  fills: true,
  forms: [text],
  covers: false,
  listItem: false,
  ...change,
});

void test('a clause stating one option in the stem’s place rules out the others it does not name', () => {
  const out = statedInPlace(
    verdicts,
    options.map((text, i) => candidate(text, i)),
  );
  assert.deepEqual(
    out.slice(1).map((v) => [v.verdict, v.inferred, v.reason]),
    options.slice(1).map(() => ['contradicted', true, '教材此处为：基金年度报告']),
  );
});

void test('an item of a list rules out nothing: the items beside it may state the others', () => {
  const out = statedInPlace(
    verdicts,
    options.map((text, i) => candidate(text, i, i === 0 ? { listItem: true } : {})),
  );
  assert.deepEqual(out, verdicts);
});

void test('以上都是 among the options: one stated rules out none of the others', () => {
  const covering = [...options.slice(0, 3), '以上都是'];
  const out = statedInPlace(
    verdicts.map((v, i) => (i === 3 ? { ...v, text: '以上都是' } : v)),
    covering.map((text, i) => candidate(text, i, i === 3 ? { covers: true, fills: false } : {})),
  );
  assert.ok(out.every((v) => v.inferred === undefined));
});

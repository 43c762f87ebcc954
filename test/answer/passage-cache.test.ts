import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerQuestion, type AnswerDeps } from '../../src/answer/answer-question.js';
import type { AnswerResult } from '../../src/answer/answer-types.js';
import { createPassageCache, type PassageCache } from '../../src/answer/passage-cache.js';
import { longestCommonRun } from '../../src/text/longest-common-run.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { projectPaths } from '../../src/paths.js';
import { seededRandom } from '../../src/seeded-random.js';
import { createAnalyzer, type Analyzer } from '../../src/text/analyzer.js';
import { fixtureChunk, memoryRetriever } from './memory-retriever.js';

/** The textbook definition: the longest common substring by dynamic programming over every pair of positions. */
function naiveRun(a: string, b: string): number {
  let best = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < b.length; j++) {
      let n = 0;
      while (i + n < a.length && j + n < b.length && a[i + n] === b[j + n]) n++;
      best = Math.max(best, n);
    }
  return best;
}

void test('longestCommonRun equals the longest common substring, with repeated characters and CJK text', () => {
  const random = seededRandom(7);
  const alphabet = ['基', '金', '托', '管', '人', 'a', 'b', '1'];
  const word = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  for (let i = 0; i < 400; i++) {
    const a = word(Math.floor(random() * 12));
    const b = word(Math.floor(random() * 40));
    assert.equal(longestCommonRun(a, b), naiveRun(a, b), `${a} / ${b}`);
  }
  assert.equal(longestCommonRun('基金托管人', '基金财产由基金托管人负责保管'), 5);
  assert.equal(longestCommonRun('aaa', 'aaaa'), 3);
  assert.equal(longestCommonRun('', 'abc'), 0);
  assert.equal(longestCommonRun('abc', ''), 0);
});

const chunks = [
  fixtureChunk('c1', '基金财产由基金托管人负责保管，由基金管理人负责投资运作。基金托管人通常由商业银行担任。'),
  fixtureChunk('c2', '开放式基金的份额不固定，投资者可以在规定时间申购和赎回。封闭式基金在封闭期内份额固定，在证券交易所上市交易。'),
  fixtureChunk('c3', '基金信息披露包括基金招募说明书、基金定期报告和临时报告。'),
];
const questions = [
  '基金财产由（ ）负责保管。A.基金管理人 B.基金托管人 C.基金销售机构 D.证券交易所',
  '下列关于开放式基金的说法正确的是（ ）。A.份额固定 B.份额不固定 C.不能赎回 D.在交易所上市',
  '基金信息披露不包括（ ）。A.招募说明书 B.定期报告 C.临时报告 D.广告宣传',
];

/** An analyzer that records every text it cuts. */
function countingAnalyzer(inner: Analyzer): Analyzer & { texts: string[] } {
  const texts: string[] = [];
  return { fingerprint: inner.fingerprint, texts, tokens: (text) => (texts.push(text), inner.tokens(text)) };
}

const comparable = (r: AnswerResult): unknown => ({ ...r, latencyMs: 0 });

void test('a shared passage cache cuts each passage once across questions and modes, and answers stay the same', async () => {
  const base = createAnalyzer();
  const answerAll = async (analyzer: Analyzer, passages?: PassageCache): Promise<AnswerResult[]> => {
    const out: AnswerResult[] = [];
    const retriever = memoryRetriever(chunks, base);
    for (const mode of ['keyword', 'hybrid'] as const) {
      for (const q of questions) {
        const deps: AnswerDeps = {
          retriever,
          llm: null,
          answerer: 'offline',
          mode,
          topK: 3,
          rerank: false,
          prompts: projectPaths('.').prompts,
          analyzer,
          ...(passages ? { passages } : {}),
        };
        out.push(await answerQuestion(parseQuestion(q), deps));
      }
    }
    return out;
  };
  const plain = countingAnalyzer(base);
  const without = await answerAll(plain);
  const cached = countingAnalyzer(base);
  const withCache = await answerAll(cached, createPassageCache());
  assert.deepEqual(withCache.map(comparable), without.map(comparable));
  // The second clause of c1 is a piece of c1's windows; without the cache it is cut again for every question that
  // retrieves c1. Its sentence and the sentence pair are never cut: their tokens are the union of their clauses'.
  const window = '由基金管理人负责投资运作。';
  assert.equal(cached.texts.filter((t) => t === '基金财产由基金托管人负责保管，由基金管理人负责投资运作。').length, 0);
  assert.equal(cached.texts.filter((t) => t === window).length, 1);
  assert.ok(plain.texts.filter((t) => t === window).length > 1);
});

void test('the passage cache keeps at most its size, dropping the oldest passages', () => {
  const analyzer = countingAnalyzer(createAnalyzer());
  const cache = createPassageCache(2);
  const none = (): ReadonlyMap<string, readonly string[]> => new Map();
  const [a, b, c] = chunks as [(typeof chunks)[0], (typeof chunks)[0], (typeof chunks)[0]];
  const first = cache.cut(a, analyzer, none);
  assert.equal(cache.cut(a, analyzer, none), first);
  cache.cut(b, analyzer, none);
  cache.cut(c, analyzer, none);
  assert.notEqual(cache.cut(a, analyzer, none), first, 'a was dropped when c came in, so it is cut again');
  // A merged hit keeps its chunk_id but has other text: it is cut on its own.
  const merged = { ...b, text: `${b.text}补充一句。` };
  assert.notEqual(cache.cut(merged, analyzer, none), cache.cut(b, analyzer, none));
});

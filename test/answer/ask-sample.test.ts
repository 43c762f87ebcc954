import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runAsk } from '../../src/answer/run-ask.js';
import { loadConfig } from '../../src/config/load-config.js';
import { formatAnswer } from '../../src/cli/report/ask.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

// The real pipeline over the sample textbook: ingest → openRetriever → offline answer.
const hasSample = existsSync(path.join(repoRoot, 'rawdoc', 'validation.csv'));
let tr: TempRoot;
before(async () => {
  if (!hasSample) return;
  tr = await sampleRoot();
});
after(() => tr?.cleanup());

void test(
  'ask answers a sample question from the ingested textbook with a checkable citation',
  { skip: !hasSample && 'no sample textbook' },
  async () => {
    const { config } = loadConfig({ root: tr.root, env: {} });
    const base = { root: tr.root, config, mode: 'hybrid' as const, topK: 8, rerank: false, cache: false, showContext: false };
    const out = await runAsk({
      ...base,
      question: '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构',
    });
    assert.equal(out.result.answerer, 'offline');
    assert.equal(out.result.answer, 'A');
    const top = out.result.evidence[0];
    assert.ok(top);
    assert.equal(top.book, '上册');
    assert.match(top.chapter, /第一章/);
    assert.equal(top.page_start, '1');
    assert.match(top.quote, /基金托管人负责保管/);
    const text = formatAnswer(out, { showContext: false });
    assert.match(
      text,
      /^Answer: A 基金托管人\nConfidence: 0\.\d\d \((high|medium|low)\)\nEvidence:\n- 上册 \| 第一章 证券投资基金概述 \| 第一节 .* \| p\.1\n {2}"/,
    );
    assert.match(text, /mode: hybrid \| answerer: offline/);
    const off = await runAsk({ ...base, mode: 'keyword', question: '今天天气怎么样？A.晴天 B.下雨 C.阴天 D.下雪' });
    assert.equal(off.result.fallback, 'off_topic');
  },
);

void test(
  'invisible characters in a question (NUL, zero-width space, BOM) give the answer and confidence of the clean question',
  { skip: !hasSample && 'no sample textbook' },
  async () => {
    const { config } = loadConfig({ root: tr.root, env: {} });
    const base = { root: tr.root, config, mode: 'hybrid' as const, topK: 8, rerank: false, cache: false, showContext: false };
    const clean = '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';
    const reference = (await runAsk({ ...base, question: clean })).result;
    for (const question of [
      clean.replace('A.基金托管人', 'A.基金托管人\u0000'),
      clean.replace('B.基金管理人', 'B.基金\u200b管理人').replace('A.基金托管人', 'A.基金托\u200d管人'),
      `\ufeff${clean.replace('负责保管', '负责\u2060保管')}`,
    ]) {
      const got = (await runAsk({ ...base, question })).result;
      assert.deepEqual([got.answer, got.confidence], [reference.answer, reference.confidence], JSON.stringify(question));
      assert.deepEqual(got.question.options, reference.question.options);
    }
  },
);

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toEvidence } from '../../src/answer/evidence.js';
import { llmReplyResult, replyOutcome, type LlmReply } from '../../src/answer/llm-reply-result.js';
import { NO_EVIDENCE_MESSAGE, OFF_TOPIC_MESSAGE } from '../../src/answer/evidence-verdict.js';
import { parseQuestion } from '../../src/answer/parse-question.js';
import { chunk } from '../retrieve/make-chunk.js';

const reply = (over: Partial<LlmReply>): LlmReply => ({
  answer: 'B',
  confidence: 0.9,
  status: 'answered',
  explanation: '',
  usage: { promptTokens: 100, completionTokens: 10 },
  warnings: [],
  ...over,
});
const upper = toEvidence(chunk('u1', { book: '上册', chapter: '第一章 基金概述', page_start: '12', page_end: '12' }));
const lower = toEvidence(chunk('l1', { book: '下册', chapter: '第九章 基金估值', page_start: '40', page_end: '40' }));

void describe('replyOutcome', () => {
  void it('keeps an answered reply, with its explanation as the message', () => {
    assert.deepEqual(replyOutcome(reply({ explanation: '见第一章' }), [upper]), { fallback: null, message: '见第一章', confidence: 0.9 });
    assert.deepEqual(replyOutcome(reply({}), [upper]), { fallback: null, message: undefined, confidence: 0.9 });
  });

  void it('caps the confidence of a reply that found no evidence or is off topic at 0.1', () => {
    assert.deepEqual(replyOutcome(reply({ status: 'no_evidence' }), []), {
      fallback: 'no_evidence',
      message: NO_EVIDENCE_MESSAGE,
      confidence: 0.1,
    });
    assert.deepEqual(replyOutcome(reply({ status: 'off_topic', confidence: 0.05 }), []), {
      fallback: 'off_topic',
      message: OFF_TOPIC_MESSAGE,
      confidence: 0.05,
    });
  });

  void it('names the cited sources of a conflict, or says that none was named', () => {
    const named = replyOutcome(reply({ status: 'conflict', confidence: 0.6 }), [upper, lower]);
    assert.equal(named.fallback, 'conflict');
    assert.equal(named.confidence, 0.6);
    assert.equal(named.message, '证据冲突：上册 | 第一章 基金概述 | p.12；下册 | 第九章 基金估值 | p.40');
    assert.equal(replyOutcome(reply({ status: 'conflict' }), []).message, '证据冲突：（模型未指明来源）');
  });
});

void describe('llmReplyResult', () => {
  const question = parseQuestion('基金的特点是？ A. 集合理财 B. 专业管理');
  const input = { question, evidence: [upper], context: [], mode: 'hybrid' as const, started: Date.now() };

  void it('drops the letters of an unanswered reply and keeps the capped confidence', () => {
    const r = reply({ status: 'no_evidence' });
    const result = llmReplyResult({ ...input, reply: r, outcome: replyOutcome(r, []) });
    assert.equal(result.answer, '');
    assert.equal(result.confidence, 0.1);
    assert.equal(result.fallback, 'no_evidence');
    assert.equal(result.message, NO_EVIDENCE_MESSAGE);
    assert.equal(result.answerer, 'llm');
  });

  void it('sets the stated confidence, the message and the warnings only when there are any', () => {
    const r = reply({ warnings: ['repaired the reply'] });
    const stated = llmReplyResult({ ...input, reply: r, outcome: replyOutcome(r, [upper]), statedConfidence: 0.9 });
    assert.equal(stated.answer, 'B');
    assert.equal(stated.statedConfidence, 0.9);
    assert.deepEqual(stated.warnings, ['repaired the reply']);
    assert.deepEqual(stated.usage, { promptTokens: 100, completionTokens: 10 });
    const plain = llmReplyResult({ ...input, reply: reply({}), outcome: replyOutcome(reply({}), [upper]) });
    assert.equal('statedConfidence' in plain, false);
    assert.equal('warnings' in plain, false);
    assert.equal('message' in plain, false);
  });
});

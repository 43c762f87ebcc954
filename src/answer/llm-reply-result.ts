import type { Hit } from '../types.js';
import type { AnswerMode, AnswerResult, EvidenceItem, Fallback, OptionVerdict, ParsedQuestion } from './answer-types.js';
import { citation } from './evidence.js';
import { checkInjection } from './injection-guard.js';
import type { LlmStatus } from './llm-answerer.js';
import { noVerdicts } from './llm-verdicts.js';
import { NO_EVIDENCE_MESSAGE, OFF_TOPIC_MESSAGE } from './evidence-verdict.js';

/** What an LLM's final reply says, from the one-shot answer (`answerWithLlm`) or the agent (`runAgent`). */
export interface LlmReply {
  /** Letters in order, as the LLM gave them. */
  answer: string;
  confidence: number;
  status: LlmStatus;
  explanation: string;
  /** The checked verdicts per option and statement (`checkVerdicts`); absent when the reply gave none. */
  verdicts?: OptionVerdict[];
  usage: { promptTokens: number; completionTokens: number };
  warnings: string[];
}

/** How a reply's status reads in an answer: the fallback it marks, the message shown, and the confidence kept. */
export interface ReplyOutcome {
  fallback: Fallback;
  message: string | undefined;
  confidence: number;
}

/** The most confidence a reply that gives no answer (no evidence, off topic) keeps. */
const UNANSWERED_MAX_CONFIDENCE = 0.1;

/** True when the fallback means the LLM gave no answer: its letters are not shown. */
export function isUnanswered(fallback: Fallback): boolean {
  return fallback === 'no_evidence' || fallback === 'off_topic';
}

/**
 * The fallback a reply's status marks, with its message and confidence. A reply that found no evidence, or a
 * question off the books' topic, is not an answer; a conflict names the cited sources that disagree.
 */
export function replyOutcome(reply: LlmReply, evidence: readonly EvidenceItem[]): ReplyOutcome {
  switch (reply.status) {
    case 'no_evidence':
      return { fallback: 'no_evidence', message: NO_EVIDENCE_MESSAGE, confidence: Math.min(reply.confidence, UNANSWERED_MAX_CONFIDENCE) };
    case 'off_topic':
      return { fallback: 'off_topic', message: OFF_TOPIC_MESSAGE, confidence: Math.min(reply.confidence, UNANSWERED_MAX_CONFIDENCE) };
    case 'conflict':
      return {
        fallback: 'conflict',
        message: `证据冲突：${evidence.map((e) => citation(e)).join('；') || '（模型未指明来源）'}`,
        confidence: reply.confidence,
      };
    case 'answered':
      return { fallback: null, message: reply.explanation || undefined, confidence: reply.confidence };
  }
}

/**
 * The answer an LLM reply gives, once its evidence and outcome are settled (the one-shot path and the agent): every
 * option and statement gets a verdict, and an answer resting on a planted passage, or saying what one dictates, is
 * warned about and its confidence capped (`checkInjection`).
 */
export function llmReplyResult(input: {
  question: ParsedQuestion;
  reply: LlmReply;
  outcome: ReplyOutcome;
  evidence: EvidenceItem[];
  context: Hit[];
  mode: AnswerMode;
  started: number;
  /** The confidence the LLM stated before any cap (the one-shot path reports it; eval measures its calibration). */
  statedConfidence?: number;
}): AnswerResult {
  const { reply, outcome } = input;
  const answer = isUnanswered(outcome.fallback) ? '' : reply.answer;
  const verdicts = reply.verdicts ?? noVerdicts(input.question);
  const guard = checkInjection({ answer, confidence: outcome.confidence, evidence: input.evidence, verdicts, context: input.context });
  const warnings = guard.warning ? [...reply.warnings, guard.warning] : reply.warnings;
  return {
    question: input.question,
    answer,
    confidence: guard.confidence,
    evidence: input.evidence,
    verdicts,
    mode: input.mode,
    answerer: 'llm',
    fallback: outcome.fallback,
    ...(outcome.message ? { message: outcome.message } : {}),
    context: input.context,
    latencyMs: Date.now() - input.started,
    usage: reply.usage,
    ...(input.statedConfidence !== undefined ? { statedConfidence: input.statedConfidence } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

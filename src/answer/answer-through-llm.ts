import { NotReadyError } from '../errors.js';
import { takeEvidence } from '../retrieve/post-process.js';
import { BUDGET_MAX_HITS, type RetrievalMode, type Retriever } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import type { Chunk, Hit } from '../types.js';
import type { AnswerDeps } from './answer-deps.js';
import type { AnswerResult, EvidenceItem, ParsedQuestion } from './answer-types.js';
import type { CorpusStats } from './corpus-stats.js';
import { toEvidence } from './evidence.js';
import type { answerWithLlm } from './llm-answerer.js';
import { LlmError } from './llm-error.js';
import { createDeadline } from './llm-deadline.js';
import { isUnanswered, llmReplyResult, replyOutcome } from './llm-reply-result.js';
import { applyRulePriorities, rerankWithLlm } from './llm-reranker.js';
import { evidenceVerdict, NO_EVIDENCE_MESSAGE, OFF_TOPIC_MESSAGE } from './evidence-verdict.js';
import { loadPrompts } from './prompt-templates.js';
import { checkAgainstClauses } from './verdict-check.js';

/**
 * Confidence ceiling of an LLM answer that cites no evidence that was shown: in the low band, so an unbacked answer
 * never reads as "medium" (it is shown as `unsupported` besides).
 */
export const UNSUPPORTED_MAX_CONFIDENCE = 0.25;

/** The text used to recall evidence for the whole question: stem, statements and options. */
export function questionQuery(q: ParsedQuestion): string {
  return [q.stem, ...q.statements.map((s) => s.text), ...q.options.filter((o) => !/^(正确|错误)$/.test(o.text)).map((o) => o.text)].join(
    ' ',
  );
}

/** The sentence of a chunk sharing most words with the claim, as the quote shown under a citation. */
function bestQuote(chunk: Chunk, claim: string, analyzer: Analyzer): string {
  const want = new Set(analyzer.tokens(claim));
  let best = '';
  let bestScore = -1;
  for (const sentence of chunk.text.split(/(?<=[。；;！？!?\n])/)) {
    const s = sentence.trim();
    if (!s) continue;
    const score = analyzer.tokens(s).filter((t) => want.has(t)).length;
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best || chunk.text;
}

/** What the LLM path takes from `answerQuestion`: when it started, the corpus statistics, and the offline answer. */
export interface LlmPathContext {
  started: number;
  /** `deps.mode`, known by now not to be `agent`. */
  mode: 'baseline' | RetrievalMode;
  corpus(retriever: Retriever): { analyzer: Analyzer; stats: CorpusStats };
  /** The offline answer, shown when the LLM fails. */
  offline(retriever: Retriever, corpus: { analyzer: Analyzer; stats: CorpusStats }, mode: RetrievalMode): Promise<AnswerResult>;
}

/**
 * `answerQuestion` with `answerer: 'llm'`: the LLM alone (baseline), or recall, an optional LLM rerank and the LLM's
 * answer over the evidence. LLM failures end in the offline answer with `fallback: 'llm_failed'`. A module of its own
 * so the offline answerer never loads the prompts, the reranker or the deadline.
 */
export async function answerThroughLlm(question: ParsedQuestion, deps: AnswerDeps, how: LlmPathContext): Promise<AnswerResult> {
  const { started, mode } = how;
  const llm = deps.llm;
  if (!llm)
    throw new NotReadyError(
      '--answerer llm needs an LLM endpoint: set EXAM_COPILOT_LLM_MODEL (and EXAM_COPILOT_LLM_BASE_URL / EXAM_COPILOT_LLM_API_KEY)',
    );

  const prompts = typeof deps.prompts === 'string' ? loadPrompts(deps.prompts) : deps.prompts;
  // Loaded here, not at start-up: it brings the schema library the offline answerer never needs.
  const llmAnswerer = await import('./llm-answerer.js');
  // One budget for every LLM call this question makes (rerank, answer, repair, retries).
  const deadline = createDeadline(deps.deadlineMs ?? llm.deadlineMs);
  const llmOptions = { llm, prompts, deadline, ...(deps.examName ? { examName: deps.examName } : {}) };
  if (mode === 'baseline') {
    try {
      const reply = await llmAnswerer.answerWithLlm(question, [], { ...llmOptions, baseline: true });
      return finishLlm(question, deps, reply, [], started);
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      const message = `${llmFailure(error)}; baseline mode has no retrieval, so there is no offline answer`;
      return {
        question,
        answer: '',
        confidence: 0,
        evidence: [],
        mode: 'baseline',
        answerer: 'llm',
        fallback: 'llm_failed',
        message,
        context: [],
        latencyMs: Date.now() - started,
      };
    }
  }

  if (!deps.retriever) throw new NotReadyError('retrieval modes need an index; run `exam-copilot ingest`');
  const retriever = deps.retriever;
  const { analyzer, stats } = how.corpus(retriever);
  const query = questionQuery(question);
  const tokens = [...new Set(analyzer.tokens(query))];
  const vocab = tokens.length === 0 ? 0 : tokens.filter((t) => stats.df(t) > 0).length / tokens.length;
  const base = { question, mode: mode, answerer: 'llm' as const };
  // The offline answerer's off-topic decision, taken before spending a request.
  if (evidenceVerdict({ vocabulary: vocab }) === 'off_topic') {
    return {
      ...base,
      answer: '',
      confidence: 0,
      evidence: [],
      fallback: 'off_topic',
      message: OFF_TOPIC_MESSAGE,
      context: [],
      latencyMs: Date.now() - started,
    };
  }
  const depth = deps.rerank ? (deps.rerankDepth ?? Math.max(20, deps.topK * 3)) : deps.topK;
  const unitChars = deps.unitChars ?? 0;
  let candidates = await retriever.search(query, { mode: mode, k: depth, unitChars });
  if (candidates.length === 0) {
    return {
      ...base,
      answer: '',
      confidence: 0.05,
      evidence: [],
      fallback: 'no_evidence',
      message: NO_EVIDENCE_MESSAGE,
      context: [],
      latencyMs: Date.now() - started,
    };
  }
  const warnings: string[] = [];
  const usage = { promptTokens: 0, completionTokens: 0 };
  try {
    if (deps.rerank && candidates.length > 1) {
      const reranked = await rerankWithLlm(query, candidates, { llm, prompt: prompts.rerank, deadline });
      candidates = reranked.hits;
      warnings.push(...reranked.warnings);
      usage.promptTokens += reranked.usage.promptTokens;
      usage.completionTokens += reranked.usage.completionTokens;
    }
    const context = takeEvidence(applyRulePriorities(query, candidates, analyzer), deps.topK, unitChars, BUDGET_MAX_HITS);
    const reply = await llmAnswerer.answerWithLlm(question, context, { ...llmOptions, baseline: false });
    reply.warnings.unshift(...warnings);
    reply.usage.promptTokens += usage.promptTokens;
    reply.usage.completionTokens += usage.completionTokens;
    // The letter is checked against what its own cited passages say, clause by clause, independently of the model.
    return checkAgainstClauses(finishLlm(question, deps, reply, context, started, analyzer), { analyzer, stats });
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    // The offline answer plus its evidence, clearly marked as such.
    const offline = await how.offline(retriever, { analyzer, stats }, mode);
    const note = offline.fallback ? ` (offline answer: ${offline.message ?? offline.fallback})` : '';
    return {
      ...offline,
      fallback: 'llm_failed',
      message: `${llmFailure(error)}; showing the offline answer instead${note}`,
      latencyMs: Date.now() - started,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }
}

/** The first words of a fallback message: a failure, or a call skipped by the circuit breaker. */
function llmFailure(error: LlmError): string {
  return error.kind === 'circuit_open' ? error.message : `LLM failed: ${error.message}`;
}

function finishLlm(
  question: ParsedQuestion,
  deps: AnswerDeps,
  reply: Awaited<ReturnType<typeof answerWithLlm>>,
  context: Hit[],
  started: number,
  analyzer?: Analyzer,
): AnswerResult {
  const chosenText = question.options
    .filter((o) => reply.answer.includes(o.letter))
    .map((o) => o.text)
    .join(' ');
  const evidence: EvidenceItem[] = reply.evidenceIds.map((n) => {
    const chunk = (context[n - 1] as Hit).chunk;
    return toEvidence(chunk, analyzer ? bestQuote(chunk, `${question.stem} ${chosenText}`, analyzer) : undefined);
  });
  let outcome = replyOutcome(reply, evidence);
  // An answer is only as good as its evidence: letters with no valid citation are shown, but marked unbacked.
  const unsupported = deps.mode !== 'baseline' && !isUnanswered(outcome.fallback) && reply.answer !== '' && evidence.length === 0;
  if (unsupported) {
    const cited =
      reply.invalidIds.length > 0 ? `cited only evidence that was not shown (${reply.invalidIds.join(', ')})` : 'cited no evidence';
    outcome = {
      fallback: 'unsupported',
      message: `unsupported: the LLM answered ${reply.answer} but ${cited}; confidence capped at ${UNSUPPORTED_MAX_CONFIDENCE} (check the passages with --show-context)`,
      confidence: Math.min(outcome.confidence, UNSUPPORTED_MAX_CONFIDENCE),
    };
  }
  return llmReplyResult({ question, reply, outcome, evidence, context, mode: deps.mode, started, statedConfidence: reply.confidence });
}

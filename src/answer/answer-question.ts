import { NotReadyError, UsageError } from '../errors.js';
import type { Retriever } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import type { AnswerDeps } from './answer-deps.js';
import type { AnswerResult, ParsedQuestion } from './answer-types.js';
import type { CorpusStats } from './corpus-stats.js';
import { buildCorpusStats } from './corpus-stats.js';
import { answerOffline } from './offline-answerer.js';
import type { PassageCache } from './passage-cache.js';

export type { AnswerDeps } from './answer-deps.js';

/** The analyzer and corpus statistics for one call: the caller's, or statistics built now from the retriever's chunks. */
function corpusFor(retriever: Retriever, deps: AnswerDeps): { analyzer: Analyzer; stats: CorpusStats } {
  return { analyzer: deps.analyzer, stats: deps.stats ?? buildCorpusStats(retriever.chunks, deps.analyzer) };
}

/**
 * Answers one parsed question. The offline answerer needs a retriever; the LLM answerer needs an LLM and,
 * except in baseline mode, a retriever. LLM failures never throw: they end in the offline answer with
 * `fallback: 'llm_failed'`. Misconfiguration (baseline without an LLM, no index) is a `NotReadyError` (exit 5).
 */
export async function answerQuestion(question: ParsedQuestion, deps: AnswerDeps): Promise<AnswerResult> {
  // The agent reads the books with tools (src/agent); it is not a retrieval mode of the one-shot pipeline.
  if (deps.mode === 'agent') throw new UsageError('mode agent is answered by the agent (ask --agent), not the one-shot pipeline');
  const started = Date.now();
  if (deps.answerer === 'offline') {
    if (deps.mode === 'baseline')
      throw new NotReadyError(
        '--mode baseline is the LLM alone and needs an LLM endpoint (set EXAM_COPILOT_LLM_MODEL and EXAM_COPILOT_LLM_BASE_URL); use --mode hybrid for the offline answerer',
      );
    if (!deps.retriever) throw new NotReadyError('the offline answerer needs an index; run `exam-copilot ingest`');
    const { analyzer, stats } = corpusFor(deps.retriever, deps);
    return answerOffline(question, { retriever: deps.retriever, analyzer, stats, mode: deps.mode, topK: deps.topK, ...selective(deps) });
  }
  // The LLM path and the modules only it needs (prompts, rerank, deadlines) load when an LLM answers.
  const { answerThroughLlm } = await import('./answer-through-llm.js');
  return answerThroughLlm(question, deps, {
    started,
    mode: deps.mode,
    corpus: (retriever) => corpusFor(retriever, deps),
    offline: (retriever, corpus, mode) => answerOffline(question, { retriever, ...corpus, mode, topK: deps.topK, ...selective(deps) }),
  });
}

/** The offline answerer's options carried over from the deps: abstention, guessing, the unit size and the passage cache. */
function selective(deps: AnswerDeps): { abstainBelow?: number; guess?: boolean; unitChars?: number; passages?: PassageCache } {
  return {
    ...(deps.abstainBelow !== undefined ? { abstainBelow: deps.abstainBelow } : {}),
    ...(deps.guess ? { guess: true } : {}),
    ...(deps.unitChars ? { unitChars: deps.unitChars } : {}),
    ...(deps.passages ? { passages: deps.passages } : {}),
  };
}

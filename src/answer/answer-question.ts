import { NotReadyError, UsageError } from '../errors.js';
import type { Retriever } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import type { AnswerMode, AnswerResult, ParsedQuestion } from './answer-types.js';
import type { CorpusStats } from './corpus-stats.js';
import { buildCorpusStats } from './corpus-stats.js';
import type { LlmClient } from './llm-client.js';
import { answerOffline, type PassageCache } from './offline-answerer.js';
import type { PromptSet } from './prompt-templates.js';

/** What `answerQuestion` needs; shared by `ask` and `eval` (the LLM client may be shared across concurrent calls). */
export interface AnswerDeps {
  /** Null only for baseline mode. */
  retriever: Retriever | null;
  llm: LlmClient | null;
  answerer: 'offline' | 'llm';
  mode: AnswerMode;
  /** Evidence passages shown / used per query. */
  topK: number;
  /** Count units of article text shorter than this as their share of a passage (`RetrieveOptions.unitChars`). */
  unitChars?: number;
  /** LLM answerer: rerank the candidates with the LLM before answering. */
  rerank: boolean;
  /** Loaded prompts, or the folder holding them (`projectPaths(root).prompts`). */
  prompts: PromptSet | string;
  /**
   * The analyzer the index was built with (user dictionary included). Required: a default analyzer without the
   * user dictionary would cut queries differently from the index, silently.
   */
  analyzer: Analyzer;
  /**
   * Statistics of `retriever.chunks` under `analyzer` (`buildCorpusStats`). Callers answering many questions
   * build them once and pass them (`createAnswerer` does); without them each call builds its own.
   */
  stats?: CorpusStats;
  /** Candidates recalled before the LLM rerank (default max(20, 3 × topK)). */
  rerankDepth?: number;
  /** The exam the prompts name (`exam.name`); default 基金从业资格. */
  examName?: string;
  /** The LLM time budget of one question (default the client's `deadlineMs`). */
  deadlineMs?: number;
  /** Offline answerer: abstain below this calibrated confidence (config `answer.abstainBelow`). */
  abstainBelow?: number;
  /** Offline answerer: always give a letter, marked as a guess when below the threshold (`--guess`). */
  guess?: boolean;
  /** Offline answerer: passages already cut into windows, shared across questions (`createPassageCache`). */
  passages?: PassageCache;
}

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

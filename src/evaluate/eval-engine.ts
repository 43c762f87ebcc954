import type { AnswerMode, AnswerResult } from '../answer/answer-types.js';
import type { AgentSession } from '../agent/run-agent-ask.js';
import type { AnswererKind } from '../answer/choose-answerer.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import type { Chunk } from '../types.js';
import type { EvalRow } from './eval-types.js';

/**
 * Keyword rankings and vector searches an eval engine remembers by query: each question is searched with the same
 * texts in every mode (its stem and options), a few per answer, so this holds a run of a few thousand questions.
 */
export const EVAL_SEARCH_CACHE_ENTRIES = 16_384;

/** What `runEval` needs from the answering side: answer one dataset row in one mode. */
export interface EvalEngine {
  /** Identifies the index's embedder (part of the run fingerprint); `none` without retrieval. */
  readonly embedderId: string;
  answer(row: EvalRow, mode: AnswerMode): Promise<AnswerResult>;
  chunk(id: string): Chunk | undefined;
  /** Said once per run when the LLM circuit breaker stopped calling the LLM; null otherwise. */
  llmNotice?(): string | null;
  /** Releases the index (and ends worker threads); call it once no row is in flight. */
  close(): void | Promise<void>;
}

export interface EvalEngineOptions {
  root: string;
  config: ExamCopilotConfig;
  answerer: AnswererKind;
  topK: number;
  noCache: boolean;
  /** Open the index (false when only baseline runs). */
  retrieval: boolean;
  /** LLM calls in flight at once (the client's own semaphore). */
  concurrency?: number;
}

/**
 * The real engine: `createAnswerer`, the same factory `ask` uses, so eval measures exactly what users get.
 * Heavy modules load lazily, so importing `run-eval` stays cheap.
 */
export async function openEvalEngine(options: EvalEngineOptions): Promise<EvalEngine> {
  const { createAnswerer } = await import('../answer/create-answerer.js');
  const { questionFromParts } = await import('../answer/parse-question.js');
  const answerer = await createAnswerer({
    root: options.root,
    config: options.config,
    answerer: options.answerer,
    retrieval: options.retrieval,
    topK: options.topK,
    // Eval measures the answer `ask` gives: the LLM path reranks, the offline path has no reranker.
    rerank: options.answerer === 'llm',
    cache: !options.noCache,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    // One run scores one index.
    reopenOnRebuild: false,
    searchCacheEntries: EVAL_SEARCH_CACHE_ENTRIES,
  });
  // The agent mode (the LLM reading with tools) opens its own session on first use: most runs never ask for it.
  let agent: Promise<AgentSession> | null = null;
  const openAgent = async (): Promise<AgentSession> => {
    const { openAgentSession } = await import('../agent/run-agent-ask.js');
    return openAgentSession({
      root: options.root,
      config: options.config,
      topK: options.topK,
      cache: !options.noCache,
      tools: options.config.llm?.tools ?? 'auto',
    });
  };
  return {
    embedderId: answerer.embedderId,
    async answer(row, mode) {
      const question = questionFromParts(row.question, Object.fromEntries(row.options.map((o) => [o.letter, o.text])));
      if (mode !== 'agent') return answerer.answer(question, mode);
      agent ??= openAgent();
      const out = await (await agent).answer(question);
      return { ...out.result, mode: 'agent' };
    },
    chunk: (id) => answerer.chunk(id),
    llmNotice: () => answerer.llmNotice(),
    close: () => {
      answerer.close();
      void agent?.then((a) => a.close()).catch(() => undefined);
    },
  };
}

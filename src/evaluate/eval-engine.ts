import type { AnswerMode, AnswerResult } from '../answer/answer-types.js';
import type { AnswererKind } from '../answer/choose-answerer.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import type { Chunk } from '../types.js';
import type { EvalRow } from './eval-types.js';

/** What `runEval` needs from the answering side: answer one dataset row in one mode. */
export interface EvalEngine {
  /** Identifies the index's embedder (part of the run fingerprint); `none` without retrieval. */
  readonly embedderId: string;
  answer(row: EvalRow, mode: AnswerMode): Promise<AnswerResult>;
  chunk(id: string): Chunk | undefined;
  /** Said once per run when the LLM circuit breaker stopped calling the LLM; null otherwise. */
  llmNotice?(): string | null;
  close(): void;
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
  });
  return {
    embedderId: answerer.embedderId,
    answer: (row, mode) =>
      answerer.answer(questionFromParts(row.question, Object.fromEntries(row.options.map((o) => [o.letter, o.text]))), mode),
    chunk: (id) => answerer.chunk(id),
    llmNotice: () => answerer.llmNotice(),
    close: () => answerer.close(),
  };
}

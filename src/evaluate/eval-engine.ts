import type { AnswerMode, AnswerResult } from '../answer/answer-types.js';
import type { LlmClient } from '../answer/llm-client.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { projectPaths } from '../paths.js';
import type { OpenedRetriever } from '../retrieve/open-retriever.js';
import type { Analyzer } from '../text/analyzer.js';
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
  answerer: 'offline' | 'llm';
  topK: number;
  noCache: boolean;
  /** Open the index (false when only baseline runs). */
  retrieval: boolean;
  /** LLM calls in flight at once (the client's own semaphore). */
  concurrency?: number;
}

/**
 * The real engine: the index via `openRetriever`, the LLM client when the answerer is the LLM, and the same
 * `answerQuestion` that `ask` uses, so eval measures exactly what users get. Heavy modules load lazily.
 */
export async function openEvalEngine(options: EvalEngineOptions): Promise<EvalEngine> {
  const { root, config } = options;
  const paths = projectPaths(root);
  const { answerQuestion } = await import('../answer/answer-question.js');
  const { questionFromParts } = await import('../answer/parse-question.js');
  const { loadPrompts } = await import('../answer/prompt-templates.js');
  const prompts = loadPrompts(paths.prompts);
  let retriever: OpenedRetriever | null = null;
  let analyzer: Analyzer | undefined;
  if (options.retrieval) {
    const { openRetriever } = await import('../retrieve/open-retriever.js');
    retriever = await openRetriever({ root, config });
    const { analyzerFromConfig } = await import('../indexing/build-indexes.js');
    analyzer = analyzerFromConfig(root, config).analyzer;
  }
  let llm: LlmClient | null = null;
  if (options.answerer === 'llm' && config.llm) {
    const { createLlmClient } = await import('../answer/llm-client.js');
    llm = createLlmClient({
      endpoint: { ...config.llm, concurrency: options.concurrency ?? config.llm.concurrency },
      cachePath: options.noCache ? null : paths.llmCache,
      noCache: options.noCache,
    });
  }
  return {
    embedderId: retriever?.embedderId ?? 'none',
    async answer(row, mode) {
      const question = questionFromParts(row.question, Object.fromEntries(row.options.map((o) => [o.letter, o.text])));
      return answerQuestion(question, {
        retriever,
        llm,
        answerer: options.answerer,
        mode,
        topK: options.topK,
        // Eval measures the answer `ask` gives: the LLM path reranks, the offline path has no reranker.
        rerank: options.answerer === 'llm',
        prompts,
        examName: config.exam.name,
        ...(analyzer ? { analyzer } : {}),
        ...(options.config.answer.abstainBelow !== undefined ? { abstainBelow: options.config.answer.abstainBelow } : {}),
      });
    },
    chunk: (id) => retriever?.chunk(id),
    llmNotice() {
      const circuit = llm?.circuit();
      if (!circuit?.open) return null;
      return `the LLM was not called for ${circuit.skipped} more call(s) after ${circuit.reason ?? 'repeated failures'}; those questions were answered offline and marked llm_failed; rerun with --resume to retry them with the LLM`;
    },
    close() {
      retriever?.close();
      llm?.close();
    },
  };
}

import type { ExamCopilotConfig } from '../config/load-config.js';
import { describeEndpoint, redactSecrets } from '../config/load-config.js';
import { indexGeneration } from '../store/index-generation.js';
import { projectPaths } from '../paths.js';
import type { OpenedRetriever } from '../retrieve/open-retriever.js';
import { analyzerFromConfig } from '../text/analyzer-from-config.js';
import { memoizeAnalyzer } from '../text/memoize-analyzer.js';
import type { Chunk, Warning } from '../types.js';
import { answerQuestion } from './answer-question.js';
import type { AnswerMode, AnswerResult, ParsedQuestion } from './answer-types.js';
import { chooseAnswerer, type AnswererKind } from './choose-answerer.js';
import type { CorpusStats } from './corpus-stats.js';
import { buildCorpusStats, corpusStatsFromIndex } from './corpus-stats.js';
import type { LlmClient } from './llm-client.js';
import { createPassageCache } from './passage-cache.js';

/** Options of `createAnswerer`. */
export interface CreateAnswererOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Default: `llm` when an LLM is configured, else `offline`. */
  answerer?: AnswererKind;
  /** Open the index (false when only baseline, the LLM alone, will run). */
  retrieval: boolean;
  /** Evidence passages per question. */
  topK: number;
  /** LLM answerer: rerank the recalled candidates with the LLM first. */
  rerank: boolean;
  /** Read and write the LLM response cache. */
  cache: boolean;
  /** LLM calls in flight at once; default the configured `llm.concurrency`. */
  concurrency?: number;
  /** Offline answerer: always give a letter, marked as a guess below `answer.abstainBelow` (`--guess`). */
  guess?: boolean;
  /**
   * Reopen the index when another ingest has swapped in a new build (an `ask` REPL or pipe can outlive an index).
   * Default true; eval turns it off so one run scores one index.
   */
  reopenOnRebuild?: boolean;
  /** Cache this many token lists by text (eval's workers tokenise each stem and window once across modes). */
  tokenCacheEntries?: number;
  /**
   * Remember this many keyword rankings and vector searches by query (eval answers each question in several modes,
   * which search the same texts again); none by default, so a search's latency is its own.
   */
  searchCacheEntries?: number;
  /** Offline answerer: keep this many passages cut into windows across questions (default 2,000). */
  passageCacheEntries?: number;
}

/**
 * Everything answering needs, opened once and shared by every question: the index, the analyzer it was built
 * with, its corpus statistics, the LLM client and the prompts. `ask`, `eval` (and any later front end) answer
 * through this one object, so they all measure and give the same answer.
 */
export interface Answerer {
  readonly answerer: AnswererKind;
  /** Identifies the index's embedder (part of eval's run fingerprint); `none` without retrieval. */
  readonly embedderId: string;
  /** Which endpoint answers (never the key), when the LLM answers. */
  readonly endpoint: string | undefined;
  /** Met while opening (e.g. a configured user dictionary that is missing). */
  readonly warnings: readonly Warning[];
  answer(question: ParsedQuestion, mode: AnswerMode): Promise<AnswerResult>;
  chunk(id: string): Chunk | undefined;
  /** Said once when the LLM circuit breaker stopped calling the LLM after repeated failures; null otherwise. */
  llmNotice(): string | null;
  close(): void;
}

/**
 * Opens an answerer. Throws `NotReadyError` (exit 5) when the LLM is requested but not configured, or when the
 * index is missing or was built with another embedder or dictionary. Heavy modules (the index, the openai
 * client) load only when needed.
 */
export async function createAnswerer(options: CreateAnswererOptions): Promise<Answerer> {
  const { root, config } = options;
  const answerer = chooseAnswerer(config, options.answerer);
  const paths = projectPaths(root);
  // Only the LLM reads prompts; the offline answerer should not fail on (or spend time reading) the prompt files.
  const prompts = answerer === 'llm' ? (await import('./prompt-templates.js')).loadPrompts(paths.prompts) : paths.prompts;
  const built = analyzerFromConfig(root, config);
  const analyzer = options.tokenCacheEntries ? memoizeAnalyzer(built.analyzer, options.tokenCacheEntries) : built.analyzer;
  const warnings = built.warnings;
  // Assigned inside openIndex (a closure), so declared with its full type for the compiler's flow analysis.
  let retriever = null as OpenedRetriever | null;
  let generation: string | null = null;
  const openIndex = async (): Promise<void> => {
    const { openRetriever } = await import('../retrieve/open-retriever.js');
    generation = indexGeneration(root);
    // The analyzer built above: jieba's dictionary is loaded once per answerer.
    retriever = await openRetriever({
      root,
      config,
      analyzer: { analyzer, warnings },
      ...(options.searchCacheEntries ? { searchCacheEntries: options.searchCacheEntries } : {}),
    });
  };
  if (options.retrieval) await openIndex();
  let llm: LlmClient | null = null;
  if (answerer === 'llm' && config.llm) {
    const { createLlmClient } = await import('./llm-client.js');
    llm = createLlmClient({
      endpoint: { ...config.llm, concurrency: options.concurrency ?? config.llm.concurrency },
      cachePath: options.cache ? paths.llmCache : null,
      noCache: !options.cache,
    });
  }
  const endpoint = llm && config.llm ? describeEndpoint(config.llm) : undefined;
  // Built on first use: baseline-only runs never need them, and a corpus is tokenised once, not per question.
  let stats: CorpusStats | undefined;
  // Keyed by passage content, so it stays valid when the index is reopened.
  const passages = createPassageCache(options.passageCacheEntries);
  return {
    answerer,
    embedderId: retriever?.embedderId ?? 'none',
    endpoint,
    // openRetriever builds the same analyzer and reports the same dictionary warnings.
    warnings: retriever ? retriever.warnings : warnings,
    async answer(question, mode) {
      if (retriever && options.reopenOnRebuild !== false && indexGeneration(root) !== generation) {
        retriever.close();
        retriever = null;
        stats = undefined;
        await openIndex();
      }
      if (retriever) {
        const stored = retriever.corpusFrequency;
        stats ??= stored ? corpusStatsFromIndex(retriever.size, stored) : buildCorpusStats(retriever.chunks, analyzer);
      }
      const result = await answerQuestion(question, {
        retriever,
        llm,
        answerer,
        mode,
        topK: options.topK,
        // Small units (one article each) count by size, so topK of them read about as much as topK windows.
        unitChars: config.chunking.minChars,
        rerank: options.rerank,
        prompts,
        analyzer,
        passages,
        examName: config.exam.name,
        ...(stats ? { stats } : {}),
        ...(config.answer.abstainBelow !== undefined ? { abstainBelow: config.answer.abstainBelow } : {}),
        ...(options.guess ? { guess: true } : {}),
      });
      // Belt and braces: nothing the LLM path produced may carry the key.
      if (result.message) result.message = redactSecrets(result.message, config);
      if (result.warnings) result.warnings = result.warnings.map((w) => redactSecrets(w, config));
      return result;
    },
    chunk: (id) => retriever?.chunk(id),
    llmNotice() {
      const circuit = llm?.circuit();
      if (!circuit?.open) return null;
      return `the LLM was not called for ${circuit.skipped} more call(s) after ${circuit.reason ?? 'repeated failures'}; those questions were answered offline and marked llm_failed; rerun with --resume to retry them with the LLM`;
    },
    close() {
      llm?.close();
      retriever?.close();
    },
  };
}

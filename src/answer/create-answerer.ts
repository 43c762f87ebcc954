import type { ExamCopilotConfig } from '../config/load-config.js';
import { describeEndpoint, redactSecrets } from '../config/load-config.js';
import { indexGeneration } from '../store/index-generation.js';
import { projectPaths } from '../paths.js';
import type { PrestartedSearchThread } from '../retrieve/prestart-search-thread.js';
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
  /**
   * An index opened by the caller (the web server shares one per index generation between search, every answer
   * session and the agent). The answerer uses it as is: it never reopens or closes it, whatever `reopenOnRebuild`.
   */
  retriever?: OpenedRetriever;
  /**
   * A search thread already started on this root's index (`prestartSearchThread`): the first opening of the index
   * uses it, or closes it when that index does not search on such a thread.
   */
  searchThread?: PrestartedSearchThread;
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
  // A root without an index is said before jieba's dictionary is built for it.
  if (options.retrieval && !options.retriever) (await import('../retrieve/open-retriever.js')).readableIndex(root);
  // An injected index brings the analyzer it was opened with: one jieba dictionary per index, not one per session.
  const built = options.retriever
    ? { analyzer: options.retriever.analyzer, warnings: options.retriever.warnings }
    : analyzerFromConfig(root, config);
  const analyzer = options.tokenCacheEntries ? memoizeAnalyzer(built.analyzer, options.tokenCacheEntries) : built.analyzer;
  const warnings = built.warnings;
  let searchThread = options.searchThread;
  const open = async (): Promise<OpenedIndex> => {
    const { openRetriever } = await import('../retrieve/open-retriever.js');
    const generation = indexGeneration(root);
    // Only the first opening can use the thread started before it.
    const thread = searchThread;
    searchThread = undefined;
    // The analyzer built above: jieba's dictionary is loaded once per answerer.
    const retriever = await openRetriever({
      root,
      config,
      analyzer: { analyzer, warnings },
      ...(options.searchCacheEntries ? { searchCacheEntries: options.searchCacheEntries } : {}),
      ...(thread ? { searchThread: thread } : {}),
    });
    return { retriever, generation, users: 0, retired: false, closed: false };
  };
  const injected = options.retriever;
  let current: OpenedIndex | null = injected
    ? { retriever: injected, generation: null, users: 0, retired: false, closed: false }
    : options.retrieval
      ? await open()
      : null;
  // Not opened here (no retrieval, or the caller's index): nothing will rank on the thread started for it.
  void searchThread?.thread.close();
  searchThread = undefined;
  const reopens = !injected && options.reopenOnRebuild !== false;
  // One reopen at a time: every question that finds the index rebuilt waits for the same opening.
  let reopening: Promise<void> | null = null;
  let closed = false;
  const closeIfDone = (g: OpenedIndex): void => {
    if (!g.retired || g.users > 0 || g.closed) return;
    g.closed = true;
    if (g.retriever !== injected) g.retriever.close();
  };
  /** The index to answer from, counted as in use until `release`: a rebuilt one is reopened once, the old one closed when unused. */
  const acquire = async (): Promise<OpenedIndex | null> => {
    while (current && reopens && indexGeneration(root) !== current.generation) {
      reopening ??= (async () => {
        const next = await open();
        const old = current;
        current = next;
        // Closed while opening: nobody will use the new index.
        if (closed) next.retired = true;
        closeIfDone(next);
        if (old) {
          old.retired = true;
          closeIfDone(old);
        }
      })().finally(() => {
        reopening = null;
      });
      // A rebuild swapped in during the opening loops once more.
      await reopening;
    }
    if (current) current.users++;
    return current;
  };
  const release = (g: OpenedIndex | null): void => {
    if (!g) return;
    g.users--;
    closeIfDone(g);
  };
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
  // Keyed by passage content, so it stays valid when the index is reopened.
  const passages = createPassageCache(options.passageCacheEntries);
  return {
    answerer,
    embedderId: current?.retriever.embedderId ?? 'none',
    endpoint,
    // openRetriever builds the same analyzer and reports the same dictionary warnings.
    warnings: current ? current.retriever.warnings : warnings,
    async answer(question, mode) {
      const index = await acquire();
      try {
        return await answerFrom(index, question, mode);
      } finally {
        release(index);
      }
    },
    chunk: (id) => current?.retriever.chunk(id),
    llmNotice() {
      const circuit = llm?.circuit();
      if (!circuit?.open) return null;
      return `the LLM was not called for ${circuit.skipped} more call(s) after ${circuit.reason ?? 'repeated failures'}; those questions were answered offline and marked llm_failed; rerun with --resume to retry them with the LLM`;
    },
    close() {
      closed = true;
      llm?.close();
      if (current) {
        current.retired = true;
        closeIfDone(current);
      }
    },
  };

  async function answerFrom(index: OpenedIndex | null, question: ParsedQuestion, mode: AnswerMode): Promise<AnswerResult> {
    const retriever = index?.retriever ?? null;
    let stats: CorpusStats | undefined;
    if (index && retriever) {
      const stored = retriever.corpusFrequency;
      index.stats ??= stored ? corpusStatsFromIndex(retriever.size, stored) : buildCorpusStats(retriever.chunks, analyzer);
      stats = index.stats;
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
  }
}

/** One opened index generation and the questions answering from it (closed once it is replaced and unused). */
interface OpenedIndex {
  retriever: OpenedRetriever;
  /** `indexGeneration` when it was opened; null for an injected index (never reopened here). */
  generation: string | null;
  users: number;
  retired: boolean;
  closed: boolean;
  /** Corpus statistics of this index, built on first use (baseline-only runs never need them). */
  stats?: CorpusStats;
}

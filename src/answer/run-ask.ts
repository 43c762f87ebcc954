import type { ExamCopilotConfig } from '../config/load-config.js';
import { describeEndpoint, redactSecrets } from '../config/load-config.js';
import { UserError } from '../errors.js';
import { analyzerFromConfig } from '../indexing/build-indexes.js';
import { indexGeneration } from '../ingest/freshness.js';
import { projectPaths } from '../paths.js';
import type { Retriever } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import type { Warning } from '../types.js';
import { answerQuestion } from './answer-question.js';
import type { AnswerMode, AnswerResult, ParsedQuestion } from './answer-types.js';
import type { LlmClient } from './llm-client.js';
import { createLlmClient } from './llm-client.js';
import { parseQuestion } from './parse-question.js';
import type { PromptSet } from './prompt-templates.js';
import { loadPrompts } from './prompt-templates.js';

/** Options of `exam-copilot ask` (one question) and of an ask session (REPL, piped questions). */
export interface AskOptions {
  root: string;
  config: ExamCopilotConfig;
  mode: AnswerMode;
  topK: number;
  rerank: boolean;
  /** Use the LLM response cache (`--no-cache` turns it off). */
  cache: boolean;
  /** Defaults to `llm` when an LLM is configured, else `offline`. */
  answerer?: 'offline' | 'llm';
  showContext: boolean;
  /** Always give a letter: below `answer.abstainBelow` the best guess, marked as a guess (`--guess`). */
  guess?: boolean;
}

export interface AskResult {
  result: AnswerResult;
  /** Which endpoint answered (never the key), when an LLM was used. */
  endpoint?: string;
  warnings: Warning[];
}

/** An open index + LLM client, for answering many questions (REPL, pipes). */
export interface AskSession {
  readonly answerer: 'offline' | 'llm';
  readonly warnings: Warning[];
  /** Parses and answers one question (free text, or a stem with separate options). */
  ask(text: string, options?: Record<string, string>): Promise<AskResult>;
  answer(question: ParsedQuestion): Promise<AskResult>;
  close(): void;
}

/** Opens what answering needs: the retriever (not in baseline mode), the analyzer, the LLM client and the prompts. */
export async function openAskSession(options: Omit<AskOptions, 'showContext'>): Promise<AskSession> {
  const { root, config } = options;
  const answerer = options.answerer ?? (config.llm ? 'llm' : 'offline');
  if (answerer === 'llm' && !config.llm) {
    throw new UserError('--answerer llm needs an LLM endpoint: set EXAM_COPILOT_LLM_MODEL (and EXAM_COPILOT_LLM_BASE_URL / EXAM_COPILOT_LLM_API_KEY)');
  }
  if (options.mode === 'baseline' && answerer !== 'llm') {
    throw new UserError('--mode baseline is the LLM alone and needs an LLM endpoint (set EXAM_COPILOT_LLM_MODEL); use --mode hybrid for the offline answerer');
  }
  const paths = projectPaths(root);
  const prompts: PromptSet = loadPrompts(paths.prompts);
  const warnings: Warning[] = [];
  let retriever: Retriever | null = null;
  let analyzer: Analyzer | undefined;
  let generation: string | null = null;
  const open = async (): Promise<Warning[]> => {
    const { openRetriever } = await import('../retrieve/open-retriever.js');
    generation = indexGeneration(root);
    const opened = await openRetriever({ root, config });
    retriever = opened;
    ({ analyzer } = analyzerFromConfig(root, config));
    return [...opened.warnings];
  };
  if (options.mode !== 'baseline') warnings.push(...(await open()));
  /** A REPL or pipe can outlive an index: after another ingest swapped in a new build, reopen it. */
  const reopenIfRebuilt = async (): Promise<void> => {
    if (!retriever || indexGeneration(root) === generation) return;
    retriever.close();
    retriever = null;
    await open();
  };
  let llm: LlmClient | null = null;
  if (answerer === 'llm' && config.llm) {
    llm = createLlmClient({ endpoint: config.llm, cachePath: paths.llmCache, noCache: !options.cache });
  }
  const endpoint = config.llm && llm ? describeEndpoint(config.llm) : undefined;
  const answer = async (question: ParsedQuestion): Promise<AskResult> => {
    await reopenIfRebuilt();
    const result = await answerQuestion(question, { retriever, llm, answerer, mode: options.mode, topK: options.topK, rerank: options.rerank, prompts, examName: config.exam.name, ...(analyzer ? { analyzer } : {}),
      ...(config.answer.abstainBelow !== undefined ? { abstainBelow: config.answer.abstainBelow } : {}), ...(options.guess ? { guess: true } : {}) });
    // Belt and braces: nothing the LLM path produced may carry the key.
    if (result.message) result.message = redactSecrets(result.message, config);
    if (result.warnings) result.warnings = result.warnings.map((w) => redactSecrets(w, config));
    return { result, ...(endpoint ? { endpoint } : {}), warnings: [] };
  };
  return {
    answerer,
    warnings,
    answer,
    ask: (text, opts) => answer(parseQuestion(text, opts ? { options: opts } : {})),
    close() {
      llm?.close();
      retriever?.close();
    },
  };
}

/** `exam-copilot ask "<question>"`: answers one question and returns the result for the reporter. */
export async function runAsk(options: AskOptions & { question: string; options?: Record<string, string> }): Promise<AskResult> {
  // Parse first: an empty question fails before the index is opened.
  const parsed = parseQuestion(options.question, options.options ? { options: options.options } : {});
  const session = await openAskSession(options);
  try {
    const out = await session.answer(parsed);
    return { ...out, warnings: [...session.warnings, ...out.warnings] };
  } finally {
    session.close();
  }
}

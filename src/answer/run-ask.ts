import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError } from '../errors.js';
import type { OpenedRetriever } from '../retrieve/open-retriever.js';
import { prestartSearchThread, type PrestartedSearchThread } from '../retrieve/prestart-search-thread.js';
import type { Warning } from '../types.js';
import type { AnswerMode, AnswerResult, ParsedQuestion } from './answer-types.js';
import { chooseAnswerer } from './choose-answerer.js';
import { parseQuestion } from './parse-question.js';

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

/** Opens what answering needs (through `createAnswerer`, as eval does): the index unless baseline, the analyzer, the LLM client and the prompts. */
export async function openAskSession(
  options: Omit<AskOptions, 'showContext'> & {
    /** An index opened by the caller and shared (the web server's, per index generation); the session neither reopens nor closes it. */
    retriever?: OpenedRetriever;
    /** A search thread started for this root's index before the session was opened (`prestartSearchThread`). */
    searchThread?: PrestartedSearchThread;
  },
): Promise<AskSession> {
  const answerer = chooseAnswerer(options.config, options.answerer);
  if (options.mode === 'baseline' && answerer !== 'llm') {
    throw new NotReadyError(
      '--mode baseline is the LLM alone and needs an LLM endpoint (set EXAM_COPILOT_LLM_MODEL); use --mode hybrid for the offline answerer',
    );
  }
  // Loaded here, not with this module: a one-shot ask starts the search thread first (`runAsk`).
  const { createAnswerer } = await import('./create-answerer.js');
  const opened = await createAnswerer({
    root: options.root,
    config: options.config,
    answerer,
    retrieval: options.mode !== 'baseline',
    topK: options.topK,
    rerank: options.rerank,
    cache: options.cache,
    ...(options.guess ? { guess: true } : {}),
    ...(options.retriever && options.mode !== 'baseline' ? { retriever: options.retriever } : {}),
    ...(options.searchThread ? { searchThread: options.searchThread } : {}),
  });
  const answer = async (question: ParsedQuestion): Promise<AskResult> => {
    const result = await opened.answer(question, options.mode);
    return { result, ...(opened.endpoint ? { endpoint: opened.endpoint } : {}), warnings: [] };
  };
  return {
    answerer,
    warnings: [...opened.warnings],
    answer,
    ask: (text, opts) => answer(parseQuestion(text, opts ? { options: opts } : {})),
    close: () => opened.close(),
  };
}

/** `exam-copilot ask "<question>"`: answers one question and returns the result for the reporter. */
export async function runAsk(options: AskOptions & { question: string; options?: Record<string, string> }): Promise<AskResult> {
  // Parse first: an empty question fails before the index is opened.
  const parsed = parseQuestion(options.question, options.options ? { options: options.options } : {});
  // The search thread loads on the other core while this one loads the answerer and opens the index.
  const searchThread = await prestartSearchThread(options.root, options.config, options.mode);
  let session: AskSession;
  try {
    session = await openAskSession({ ...options, ...(searchThread ? { searchThread } : {}) });
  } catch (error) {
    void searchThread?.thread.close();
    throw error;
  }
  try {
    const out = await session.answer(parsed);
    return { ...out, warnings: [...session.warnings, ...out.warnings] };
  } finally {
    session.close();
  }
}

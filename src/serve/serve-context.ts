import type { AnswerMode } from '../answer/answer-types.js';
import type { AskResult, AskSession } from '../answer/run-ask.js';
import { openAskSession } from '../answer/run-ask.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError } from '../errors.js';
import { indexGeneration } from '../store/index-generation.js';
import { openRetriever, type OpenedRetriever } from '../retrieve/open-retriever.js';
import type { RetrieveOptions } from '../retrieve/retriever.js';
import type { Chunk, Hit } from '../types.js';

/** Which answerer a web request asks for; `llm` and `agent` (the LLM reading with tools) only with an endpoint. */
export type WebAnswerer = 'offline' | 'llm' | 'agent';

/** What an ask request chooses. */
export interface AskChoice {
  mode: AnswerMode;
  answerer: WebAnswerer;
  givenOptions?: Record<string, string>;
}

/** One index generation as a request sees it: everything it reads comes from the same build. */
export interface IndexView {
  search(query: string, options: RetrieveOptions): Promise<Hit[]>;
  chunk(id: string): Promise<Chunk | undefined>;
  ask(question: string, choice: AskChoice): Promise<AskResult>;
}

/** What the web server shares between requests: one retriever per index generation, and its answer sessions. */
export interface ServeContext {
  readonly root: string;
  /** True when an OpenAI-compatible endpoint is configured (the key itself never leaves this object). */
  readonly llmAvailable: boolean;
  /**
   * Runs `use` on the current index generation, held open until it settles: a request that asks and then looks up
   * the evidence's chunks reads one build, and a swap in between closes the old build only after it.
   */
  withIndex<T>(use: (index: IndexView) => Promise<T>): Promise<T>;
  search(query: string, options: RetrieveOptions): Promise<Hit[]>;
  chunk(id: string): Promise<Chunk | undefined>;
  ask(question: string, choice: AskChoice): Promise<AskResult>;
  /**
   * Closes the index once the requests still using it have finished (the promise settles then); later requests fail
   * with 503.
   */
  close(): Promise<void>;
}

export interface ServeContextOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Evidence passages per question, as `ask --top-k`. */
  topK: number;
}

interface Generation {
  id: string;
  /** The one retriever of this build, shared by search, every answer session and the agent. */
  retriever: Promise<OpenedRetriever>;
  sessions: Map<string, Promise<AskSession>>;
  /** Requests using this generation now. */
  users: number;
  /** Replaced by a newer build (or the server is stopping): close when `users` reaches 0. */
  retired: boolean;
  closing: boolean;
  /** Settles once the generation's sessions and retriever are closed. */
  closed: Promise<void>;
  markClosed: () => void;
}

/**
 * Opens the index lazily and reopens it when an ingest has swapped in a new one, so a running server answers from
 * the current books. Each generation counts the requests using it; a replaced one is closed when the last of them
 * ends, however long an LLM or agent request takes (an ingest never writes into an open index: it builds a new one
 * and swaps folders). The reopen is single-flight: the first request that sees the new build opens it, and the
 * requests arriving meanwhile share that opening.
 */
export function createServeContext(options: ServeContextOptions): ServeContext {
  const { root, config, topK } = options;
  let current: Generation | null = null;
  let stopped = false;

  const closeIfDone = (g: Generation): void => {
    if (!g.retired || g.users > 0 || g.closing) return;
    g.closing = true;
    // Sessions first: they answer from the shared retriever but never close it.
    const sessions = [...g.sessions.values()].map((s) => s.then((x) => x.close()).catch(() => undefined));
    void Promise.all(sessions)
      .then(() => g.retriever.then((r) => r.close()).catch(() => undefined))
      .then(g.markClosed);
  };

  const acquire = (): Generation => {
    if (stopped) throw new NotReadyError('the server is stopping');
    const id = indexGeneration(root) ?? 'none';
    if (!current || current.id !== id) {
      const old = current;
      const retriever = openRetriever({ root, config });
      let markClosed = (): void => undefined;
      const closed = new Promise<void>((resolve) => (markClosed = resolve));
      const g: Generation = { id, retriever, sessions: new Map(), users: 0, retired: false, closing: false, closed, markClosed };
      // A failed open (no index yet) must not stick: the next request tries again, and this generation's sessions
      // (baseline needs no index) close after the requests using them.
      retriever.catch(() => {
        if (current !== g) return;
        current = null;
        g.retired = true;
        closeIfDone(g);
      });
      current = g;
      if (old) {
        old.retired = true;
        closeIfDone(old);
      }
    }
    current.users++;
    return current;
  };
  const release = (g: Generation): void => {
    g.users--;
    closeIfDone(g);
  };

  const session = (g: Generation, choice: AskChoice): Promise<AskSession> => {
    const key = `${choice.mode}|${choice.answerer}`;
    let opened = g.sessions.get(key);
    if (!opened) {
      const answerer = choice.answerer;
      opened =
        answerer === 'agent'
          ? Promise.all([import('../agent/run-agent-ask.js'), g.retriever]).then(([{ openAgentSession }, retriever]) =>
              openAgentSession({ root, config, topK, cache: true, tools: config.llm?.tools ?? 'auto', retriever }),
            )
          : choice.mode === 'baseline'
            ? // The LLM alone reads no index (and works before the first ingest).
              openAskSession({ root, config, mode: choice.mode, topK, rerank: true, cache: true, answerer: 'llm' })
            : g.retriever.then((retriever) =>
                openAskSession({ root, config, mode: choice.mode, topK, rerank: true, cache: true, answerer, retriever }),
              );
      const pending = opened;
      pending.catch(() => {
        if (g.sessions.get(key) === pending) g.sessions.delete(key);
      });
      g.sessions.set(key, pending);
    }
    return opened;
  };

  const view = (g: Generation): IndexView => ({
    search: async (query, opts) => (await g.retriever).search(query, opts),
    chunk: async (id) => (await g.retriever).chunk(id),
    ask: async (question, choice) => (await session(g, choice)).ask(question, choice.givenOptions),
  });

  const withIndex = async <T>(use: (index: IndexView) => Promise<T>): Promise<T> => {
    const g = acquire();
    try {
      return await use(view(g));
    } finally {
      release(g);
    }
  };

  return {
    root,
    llmAvailable: config.llm !== null && config.llm !== undefined,
    withIndex,
    search: (query, opts) => withIndex((index) => index.search(query, opts)),
    chunk: (id) => withIndex((index) => index.chunk(id)),
    ask: (question, choice) => withIndex((index) => index.ask(question, choice)),
    close() {
      stopped = true;
      const last = current;
      current = null;
      if (!last) return Promise.resolve();
      last.retired = true;
      closeIfDone(last);
      return last.closed;
    },
  };
}

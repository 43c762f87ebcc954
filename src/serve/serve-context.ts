import type { AnswerMode } from '../answer/answer-types.js';
import type { AskResult, AskSession } from '../answer/run-ask.js';
import { openAskSession } from '../answer/run-ask.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { indexGeneration } from '../store/index-generation.js';
import { openRetriever, type OpenedRetriever } from '../retrieve/open-retriever.js';
import type { RetrieveOptions } from '../retrieve/retriever.js';
import type { Chunk, Hit } from '../types.js';

/** Which answerer a web request asks for; `llm` and `agent` (the LLM reading with tools) only with an endpoint. */
export type WebAnswerer = 'offline' | 'llm' | 'agent';

/** What the web server shares between requests: one retriever and one answer session per mode and answerer. */
export interface ServeContext {
  readonly root: string;
  /** True when an OpenAI-compatible endpoint is configured (the key itself never leaves this object). */
  readonly llmAvailable: boolean;
  search(query: string, options: RetrieveOptions): Promise<Hit[]>;
  chunk(id: string): Promise<Chunk | undefined>;
  ask(question: string, options: { mode: AnswerMode; answerer: WebAnswerer; givenOptions?: Record<string, string> }): Promise<AskResult>;
  close(): void;
}

export interface ServeContextOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Evidence passages per question, as `ask --top-k`. */
  topK: number;
  /** How long a replaced index generation stays open for requests still using it. */
  retireAfterMs?: number;
}

interface Generation {
  id: string;
  retriever: Promise<OpenedRetriever>;
  sessions: Map<string, Promise<AskSession>>;
}

/**
 * Opens the index lazily and reopens it when an ingest has swapped in a new one, so a running server answers
 * from the current books. A replaced generation is closed only after `retireAfterMs`, so a request that started
 * on it finishes on it (better-sqlite3 reads are synchronous, and an ingest never writes into an open index: it
 * builds a new one and swaps folders).
 */
export function createServeContext(options: ServeContextOptions): ServeContext {
  const { root, config, topK } = options;
  const retireAfterMs = options.retireAfterMs ?? 30_000;
  let current: Generation | null = null;
  const timers = new Set<NodeJS.Timeout>();

  const closeGeneration = (g: Generation): void => {
    void g.retriever.then((r) => r.close()).catch(() => undefined);
    for (const s of g.sessions.values()) void s.then((x) => x.close()).catch(() => undefined);
  };

  const generation = (): Generation => {
    const id = indexGeneration(root) ?? 'none';
    if (current && current.id === id) return current;
    const old = current;
    const retriever = openRetriever({ root, config });
    // A failed open (no index yet) must not stick: the next request tries again.
    retriever.catch(() => {
      if (current?.retriever === retriever) current = null;
    });
    current = { id, retriever, sessions: new Map() };
    if (old) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        closeGeneration(old);
      }, retireAfterMs);
      timer.unref();
      timers.add(timer);
    }
    return current;
  };

  return {
    root,
    llmAvailable: config.llm !== null && config.llm !== undefined,
    async search(query, opts) {
      const r = await generation().retriever;
      return r.search(query, opts);
    },
    async chunk(id) {
      const r = await generation().retriever;
      return r.chunk(id);
    },
    async ask(question, opts) {
      const g = generation();
      const key = `${opts.mode}|${opts.answerer}`;
      let session = g.sessions.get(key);
      if (!session) {
        session =
          opts.answerer === 'agent'
            ? import('../agent/run-agent-ask.js').then(({ openAgentSession }) =>
                openAgentSession({ root, config, topK, cache: true, tools: config.llm?.tools ?? 'auto' }),
              )
            : openAskSession({ root, config, mode: opts.mode, topK, rerank: true, cache: true, answerer: opts.answerer });
        const opened = session;
        opened.catch(() => {
          if (g.sessions.get(key) === opened) g.sessions.delete(key);
        });
        g.sessions.set(key, session);
      }
      return (await session).ask(question, opts.givenOptions);
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      if (current) closeGeneration(current);
      current = null;
    },
  };
}

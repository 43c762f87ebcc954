import OpenAI from 'openai';
import type { EndpointConfig, LlmLimits } from '../config/load-config.js';
import { endpointSecrets, redactText, redactUrl } from '../config/redact.js';
import { createLimiter } from '../limiter.js';
import { cacheKey, openLlmCache, type RememberedToolProtocol } from './llm-cache.js';
import { readCompletion, requestBody, type ChatRequest, type ChatResult } from './llm-chat.js';
import { createDeadline, formatSeconds, type Deadline } from './llm-deadline.js';
import { classify, LlmError } from './llm-error.js';
import { boundedFetch, DEFAULT_MAX_REPLY_BYTES, type AttemptState } from './llm-fetch.js';

/**
 * The one LLM transport, for the one-shot answerer, the reranker and the agent: a chat client for any
 * OpenAI-compatible endpoint, built on the real `openai` package with its own retries turned off. This module
 * retries 429 / 5xx / timeouts / dropped connections itself, with exponential backoff that honours `Retry-After`,
 * all inside one per-question deadline (`Deadline`), so a dead or stalling server never holds a question longer
 * than `llm.deadlineMs`. Every HTTP attempt reads the whole reply inside its time bound and up to a byte cap
 * (`llm-fetch.ts`). After a few consecutive failed calls a circuit breaker stops calling the endpoint for the rest
 * of the run. Everything a reply carries (text, reasoning, tool calls) is redacted before the caller sees it.
 * Replies the caller validated are cached (`llm-cache.ts`). Safe for concurrent calls (a semaphore bounds requests
 * in flight); token usage is counted across calls.
 */

export type { ChatMessage, ChatRequest, ChatResult, ChatTool, ChatToolCall, ResponseFormat } from './llm-chat.js';
// The error type lives in its own module so the offline path can test for it without loading the openai client.
export { LlmError, type LlmFailureKind } from './llm-error.js';

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  requests: number;
  cacheHits: number;
}

/** The circuit breaker's state: once open, no more calls are made by this client. */
export interface CircuitState {
  open: boolean;
  /** Why it opened (the last failure), null while closed. */
  reason: string | null;
  /** Calls refused since it opened. */
  skipped: number;
}

/** Per-call options that are not part of the request (and so not part of the cache key). */
export interface ChatCallOptions {
  /** The question's deadline, shared by all its calls; without one, a fresh `deadlineMs` budget starts here. */
  deadline?: Deadline;
  /**
   * Cache the reply only when this returns true (the caller's validation), and replay a cached one only when it
   * still does; without it, nothing is cached.
   */
  accept?: (content: string, result: ChatResult) => boolean;
}

export interface LlmClient {
  readonly model: string;
  /** The base URL with any credentials removed (safe to print). */
  readonly baseURL: string;
  /** The per-question budget callers should start with `createDeadline` (`llm.deadlineMs`). */
  readonly deadlineMs: number;
  chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResult>;
  /** Token usage and request counts so far (cache hits cost no tokens). */
  usage(): LlmUsage;
  circuit(): CircuitState;
  /**
   * The strongest structured-output mode the endpoint accepted so far; answerers start there, so an
   * endpoint that rejected `json_schema` once is not asked again.
   */
  structuredOutput: 'json_schema' | 'json_object' | 'text';
  /** How the agent last found this endpoint and model to take tools (kept in the cache file), if it did. */
  toolProtocol(): RememberedToolProtocol | undefined;
  rememberToolProtocol(protocol: RememberedToolProtocol): void;
  close(): void;
}

/** Endpoint settings the client reads (the configuration's, whose defaults live in `load-config.ts`). */
export type LlmEndpointOptions = EndpointConfig &
  Pick<LlmLimits, 'timeoutMs' | 'maxRetries' | 'concurrency' | 'deadlineMs'> &
  Partial<Pick<LlmLimits, 'cacheMaxEntries' | 'cacheMaxBytes'>>;

export interface CreateLlmClientOptions {
  endpoint: LlmEndpointOptions;
  /** SQLite file for the response cache (`projectPaths(root).llmCache`); null disables caching. */
  cachePath: string | null;
  noCache?: boolean;
  /** Injected for tests, which record waits instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  /** Base backoff before the first retry, doubled each retry (default 500 ms). */
  backoffMs?: number;
  /** Longest wait honoured from Retry-After or backoff (default the deadline; the deadline bounds it anyway). */
  maxWaitMs?: number;
  /** Largest reply body read, in bytes (default 1 MiB). */
  maxReplyBytes?: number;
  /** Consecutive failed calls that open the circuit breaker (default 3; 0 disables it). */
  breakerThreshold?: number;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Failures that say nothing about the endpoint's health (the request was wrong for it), so the breaker ignores them. */
const REQUEST_FAULTS = new Set(['response_format', 'bad_request', 'tools_unsupported']);

export function createLlmClient(options: CreateLlmClientOptions): LlmClient {
  const { endpoint } = options;
  const sleep = options.sleep ?? defaultSleep;
  const backoff = options.backoffMs ?? 500;
  const deadlineMs = endpoint.deadlineMs;
  const maxWait = options.maxWaitMs ?? deadlineMs;
  const maxBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const threshold = options.breakerThreshold ?? 3;
  const usage: LlmUsage = { promptTokens: 0, completionTokens: 0, requests: 0, cacheHits: 0 };
  const secrets = endpointSecrets(endpoint);
  const redact = (t: string): string => redactText(t, secrets);
  const cache =
    options.cachePath && !options.noCache
      ? openLlmCache(options.cachePath, { maxEntries: endpoint.cacheMaxEntries, maxBytes: endpoint.cacheMaxBytes, redact })
      : null;
  const limiter = createLimiter({ concurrency: Math.max(1, endpoint.concurrency) });
  const shownURL = redactUrl(endpoint.baseURL);
  const where = `LLM ${endpoint.model} @ ${shownURL}`;
  const endpointKey = `${shownURL.replace(/\/+$/, '')}|${endpoint.model}`;
  const hasKey = Boolean(endpoint.apiKey) && endpoint.apiKey !== 'not-needed';
  const circuit: CircuitState = { open: false, reason: null, skipped: 0 };
  let consecutiveFailures = 0;
  let rememberedProtocol = cache?.toolProtocol(endpointKey);

  async function callOnce(request: ChatRequest, attemptMs: number, deadline: Deadline, state: AttemptState): Promise<ChatResult> {
    // One client per attempt: its fetch records how far this attempt got (headers, bytes) for the error message.
    const client = new OpenAI({
      baseURL: endpoint.baseURL,
      apiKey: endpoint.apiKey,
      maxRetries: 0,
      // Our signal below is the real bound; openai's own timer is a backstop that never fires first.
      timeout: attemptMs + 1000,
      fetch: boundedFetch(state, maxBytes, !hasKey),
    });
    // An explicit timer, not AbortSignal.timeout: Node may garbage-collect a timeout signal that only
    // `AbortSignal.any` refers to before it fires, leaving the attempt bounded by the deadline alone.
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new DOMException('attempt timed out', 'TimeoutError')), attemptMs);
    const signal = AbortSignal.any([deadline.signal, attempt.signal]);
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      completion = await client.chat.completions.create(requestBody(endpoint.model, request), { signal });
    } finally {
      clearTimeout(timer);
    }
    const reply = readCompletion(completion, (request.tools?.length ?? 0) > 0, redact);
    if (!reply) throw new LlmError('malformed', `${where}: the reply had no message content`);
    return { ...reply, cached: false };
  }

  async function withRetries(request: ChatRequest, deadline: Deadline): Promise<ChatResult> {
    const started = Date.now();
    const tools = (request.tools?.length ?? 0) > 0;
    let timeouts = 0;
    let last: LlmError | null = null;
    // The first timeout says most (a retry squeezed into the rest of the deadline may not even reach headers).
    let firstTimeout: LlmError | null = null;
    for (let attempt = 0; ; attempt++) {
      if (deadline.expired()) throw deadlineError(firstTimeout ?? last, attempt, Date.now() - started, deadline);
      const attemptMs = Math.max(1, Math.min(endpoint.timeoutMs, deadline.remaining()));
      const state: AttemptState = { headers: false, bytes: 0 };
      try {
        usage.requests++;
        return await callOnce(request, attemptMs, deadline, state);
      } catch (error) {
        const failure = classify(error, { redact, where, url: shownURL, attemptMs, state, maxBytes, tools });
        last = failure.error;
        const kind = failure.error.kind;
        if (kind === 'timeout') {
          timeouts++;
          firstTimeout ??= failure.error;
        }
        // A second timeout is not retried: a server that let two attempts run out is not going to answer in time.
        const retryable =
          kind === 'rate_limited' || kind === 'server_error' || kind === 'connection' || (kind === 'timeout' && timeouts <= 1);
        // A timeout has already waited its share: retry it at once, within what is left of the deadline.
        const wait = kind === 'timeout' ? 0 : Math.min(maxWait, failure.retryAfter ?? backoff * 2 ** attempt);
        const outOfTime = deadline.expired() || wait >= deadline.remaining() || deadline.remaining() < 20;
        if (!retryable || attempt >= endpoint.maxRetries || outOfTime) {
          if (kind === 'timeout' || (outOfTime && retryable))
            throw deadlineError(
              kind === 'timeout' ? (firstTimeout ?? failure.error) : failure.error,
              attempt + 1,
              Date.now() - started,
              deadline,
            );
          if (retryable)
            throw new LlmError(
              kind,
              `${failure.error.message} (after ${attempt + 1} attempt${attempt === 0 ? '' : 's'})`,
              failure.error.status,
            );
          throw failure.error;
        }
        await sleep(wait);
      }
    }
  }

  /** The final error of a call that ran out of time, saying how long it waited and whether the deadline cut it. */
  function deadlineError(last: LlmError | null, tries: number, elapsedMs: number, deadline: Deadline): LlmError {
    const cut = deadline.expired() || deadline.remaining() < 50;
    const limitNote = cut
      ? `timed out after ${formatSeconds(deadline.totalMs)}, the per-question deadline (llm.deadlineMs)`
      : `timed out after ${formatSeconds(elapsedMs)}`;
    const base = last ? last.message : `${where}: no time left for the LLM`;
    const attempts = tries > 0 ? `; ${tries} attempt${tries === 1 ? '' : 's'}` : '';
    return new LlmError(last?.kind === 'timeout' || !last ? 'timeout' : last.kind, `${base} (${limitNote}${attempts})`, last?.status);
  }

  /** Counts a failed call towards the breaker, which opens after `threshold` in a row. */
  function noteFailure(error: unknown): void {
    if (!(error instanceof LlmError) || REQUEST_FAULTS.has(error.kind)) return;
    consecutiveFailures++;
    if (threshold > 0 && consecutiveFailures >= threshold && !circuit.open) {
      circuit.open = true;
      circuit.reason = `it failed ${consecutiveFailures} times in a row (last: ${error.message})`;
    }
  }

  return {
    model: endpoint.model,
    baseURL: shownURL,
    deadlineMs,
    structuredOutput: 'json_schema',
    usage: () => ({ ...usage }),
    circuit: () => ({ ...circuit }),
    toolProtocol: () => rememberedProtocol,
    rememberToolProtocol(protocol) {
      rememberedProtocol = protocol;
      cache?.rememberToolProtocol(endpointKey, protocol);
    },
    async chat(request, callOptions = {}) {
      const { accept } = callOptions;
      const key = cache ? cacheKey(endpoint, request) : '';
      const stored = cache?.get(key);
      if (stored) {
        const hit: ChatResult = { reasoning: '', toolCalls: [], ...stored, cached: true };
        if (!accept || accept(hit.content, hit)) {
          usage.cacheHits++;
          return hit;
        }
      }
      if (circuit.open) {
        circuit.skipped++;
        throw new LlmError('circuit_open', `${where} not called: ${circuit.reason ?? 'it kept failing'}`);
      }
      const deadline = callOptions.deadline ?? createDeadline(deadlineMs);
      let result: ChatResult;
      try {
        result = await limiter.run(() => withRetries(request, deadline));
      } catch (error) {
        noteFailure(error);
        throw error;
      }
      consecutiveFailures = 0;
      usage.promptTokens += result.usage.promptTokens;
      usage.completionTokens += result.usage.completionTokens;
      // Only replies the caller validated are worth replaying; a cut-off reply never is.
      if (cache && result.finishReason !== 'length' && accept?.(result.content, result) === true) cache.put(key, result);
      return result;
    },
    close() {
      cache?.close();
    },
  };
}

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../sqlite-database.js';
import OpenAI from 'openai';
import type { EndpointConfig } from '../config/load-config.js';
import { endpointSecrets, redactText, redactUrl } from '../config/redact.js';
import type { Deadline } from './llm-deadline.js';
import { createDeadline, formatSeconds } from './llm-deadline.js';
import { createLimiter } from '../limiter.js';
import { LlmError } from './llm-error.js';

/**
 * A chat client for any OpenAI-compatible endpoint, built on the real `openai` package with its own
 * retries turned off: this module retries 429 / 5xx / timeouts / dropped connections itself, with
 * exponential backoff that honours `Retry-After`, all inside one per-question deadline (`Deadline`), so
 * behaviour is the same on every endpoint and a dead or stalling server never holds a question longer than
 * `llm.deadlineMs`. Every HTTP attempt reads the whole reply inside its time bound and up to a size cap, so a
 * server that sends headers and then stalls, or sends megabytes of junk, cannot hang or flood the tool.
 * After a few consecutive failed calls a circuit breaker stops calling the endpoint for the rest of the run.
 * Replies that the caller validated are cached in SQLite (bounded, oldest out first, secrets redacted), keyed
 * by endpoint, model and the full request, so repeated runs are reproducible and free. Safe for concurrent
 * calls (a semaphore bounds requests in flight); token usage is counted across calls.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** How the reply should be structured; `text` means no `response_format` is sent. */
export type ResponseFormat =
  { type: 'json_schema'; name: string; schema: Record<string, unknown> } | { type: 'json_object' } | { type: 'text' };

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
}

export interface ChatResult {
  content: string;
  /** `length` means the reply was cut off. */
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number };
  cached: boolean;
}

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
  /** Cache the reply only when this returns true (the caller's validation); without it, nothing is cached. */
  accept?: (content: string) => boolean;
}

export interface LlmClient {
  readonly model: string;
  /** The base URL with any credentials removed (safe to print). */
  readonly baseURL: string;
  /** The per-question budget callers should start with `createDeadline`. */
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
  close(): void;
}

/** Endpoint settings the client reads; the bounds added after the first release are optional. */
export type LlmEndpointOptions = EndpointConfig & {
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
  deadlineMs?: number;
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
};

export interface CreateLlmClientOptions {
  endpoint: LlmEndpointOptions;
  /** SQLite file for the response cache (`projectPaths(root).llmCache`); null disables caching. */
  cachePath: string | null;
  noCache?: boolean;
  /** Injected for tests, which record waits instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  /** Base backoff before the first retry, doubled each retry (default 500 ms). */
  backoffMs?: number;
  /** Longest wait honoured from Retry-After or backoff (default 30 s). */
  maxWaitMs?: number;
  /** Largest reply body read, in bytes (default 1 MiB; a chat answer is a few kB). */
  maxReplyBytes?: number;
  /** Consecutive failed calls that open the circuit breaker (default 3; 0 disables it). */
  breakerThreshold?: number;
}

/** Default per-question LLM deadline when the endpoint does not set one. */
export const DEFAULT_LLM_DEADLINE_MS = 30_000;
/** Default cap on a reply body. */
export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;

/** Removes the key from any text before it can be shown or logged. */
export function redactKey(text: string, apiKey: string): string {
  if (!apiKey || apiKey === 'not-needed' || apiKey.length < 4) return text;
  return text.split(apiKey).join('***');
}

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds, or null. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Thrown by the bounded fetch when a reply is larger than the cap. */
class ReplyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the reply is larger than ${limit} bytes`);
  }
}

/** What one HTTP attempt got to, so a timeout can say whether the server answered at all. */
interface AttemptState {
  headers: boolean;
  bytes: number;
}

/**
 * A `fetch` for the openai client that reads the whole body before returning, up to `maxBytes`, so the
 * attempt's abort signal (and openai's own timeout, which stops at headers) covers the body too. Credentials in
 * the URL are not allowed by fetch: they move into a Basic `Authorization` header when no API key is set.
 */
function boundedFetch(state: AttemptState, maxBytes: number, useUrlCredentials: boolean): typeof fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    if (url.username || url.password) {
      if (useUrlCredentials)
        headers.set(
          'authorization',
          `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`,
        );
      url = new URL(url.href);
      url.username = '';
      url.password = '';
    }
    const response = await fetch(url, { ...init, headers });
    state.headers = true;
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new ReplyTooLargeError(maxBytes);
    }
    const parts: Uint8Array[] = [];
    if (response.body) {
      const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        state.bytes += value.byteLength;
        if (state.bytes > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new ReplyTooLargeError(maxBytes);
        }
        parts.push(value);
      }
    }
    const body = [101, 204, 205, 304].includes(response.status) ? null : Buffer.concat(parts);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

export function createLlmClient(options: CreateLlmClientOptions): LlmClient {
  const { endpoint } = options;
  const sleep = options.sleep ?? defaultSleep;
  const backoff = options.backoffMs ?? 500;
  const maxWait = options.maxWaitMs ?? 30_000;
  const maxBytes = options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  const deadlineMs = endpoint.deadlineMs ?? DEFAULT_LLM_DEADLINE_MS;
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
  const hasKey = Boolean(endpoint.apiKey) && endpoint.apiKey !== 'not-needed';
  const circuit: CircuitState = { open: false, reason: null, skipped: 0 };
  let consecutiveFailures = 0;

  async function callOnce(request: ChatRequest, attemptMs: number, deadline: Deadline, state: AttemptState): Promise<ChatResult> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: endpoint.model,
      messages: request.messages,
      temperature: request.temperature ?? 0,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
    };
    const rf = request.responseFormat;
    if (rf?.type === 'json_schema')
      body.response_format = { type: 'json_schema', json_schema: { name: rf.name, schema: rf.schema, strict: true } };
    else if (rf?.type === 'json_object') body.response_format = { type: 'json_object' };
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
      completion = await client.chat.completions.create(body, { signal });
    } finally {
      clearTimeout(timer);
    }
    const choice = completion.choices?.[0];
    if (!choice || typeof choice.message?.content !== 'string')
      throw new LlmError('malformed', `${where}: the reply had no message content`);
    return {
      content: redact(choice.message.content),
      finishReason: choice.finish_reason ?? 'stop',
      usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
      cached: false,
    };
  }

  async function withRetries(request: ChatRequest, deadline: Deadline): Promise<ChatResult> {
    const started = Date.now();
    let timeouts = 0;
    let last: LlmError | null = null;
    // The first timeout says most (a retry squeezed into the rest of the deadline may not even reach headers).
    let firstTimeout: LlmError | null = null;
    for (let attempt = 0; ; attempt++) {
      const tries = attempt;
      if (deadline.expired()) throw deadlineError(firstTimeout ?? last, tries, Date.now() - started, deadline);
      const attemptMs = Math.max(1, Math.min(endpoint.timeoutMs, deadline.remaining()));
      const state: AttemptState = { headers: false, bytes: 0 };
      try {
        usage.requests++;
        return await callOnce(request, attemptMs, deadline, state);
      } catch (error) {
        const failure = classify(error, { redact, where, url: shownURL, attemptMs, state, maxBytes });
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

  return {
    model: endpoint.model,
    baseURL: shownURL,
    deadlineMs,
    structuredOutput: 'json_schema',
    usage: () => ({ ...usage }),
    circuit: () => ({ ...circuit }),
    async chat(request, callOptions = {}) {
      const key = cache ? cacheKey(endpoint, request) : '';
      if (cache) {
        const hit = cache.get(key);
        if (hit) {
          usage.cacheHits++;
          return { ...hit, cached: true };
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
        if (error instanceof LlmError && error.kind !== 'response_format' && error.kind !== 'bad_request') {
          consecutiveFailures++;
          if (threshold > 0 && consecutiveFailures >= threshold && !circuit.open) {
            circuit.open = true;
            circuit.reason = `it failed ${consecutiveFailures} times in a row (last: ${error.message})`;
          }
        }
        throw error;
      }
      consecutiveFailures = 0;
      usage.promptTokens += result.usage.promptTokens;
      usage.completionTokens += result.usage.completionTokens;
      // Only replies the caller validated are worth replaying; a cut-off reply never is.
      if (cache && result.finishReason !== 'length' && callOptions.accept?.(result.content) === true) cache.put(key, result);
      return result;
    },
    close() {
      cache?.close();
    },
  };
}

interface ClassifyContext {
  redact: (t: string) => string;
  where: string;
  url: string;
  attemptMs: number;
  state: AttemptState;
  maxBytes: number;
}

function causeOf(error: unknown): unknown {
  return error instanceof Error && 'cause' in error ? error.cause : undefined;
}

function classify(error: unknown, ctx: ClassifyContext): { error: LlmError; retryAfter: number | null } {
  const { where, url, redact } = ctx;
  if (error instanceof LlmError) return { error, retryAfter: null };
  const cause = causeOf(error);
  if (error instanceof ReplyTooLargeError || cause instanceof ReplyTooLargeError) {
    return {
      error: new LlmError('malformed', `${where}: the reply is larger than ${Math.round(ctx.maxBytes / 1024)} kB; not read further`),
      retryAfter: null,
    };
  }
  if (error instanceof OpenAI.APIUserAbortError || error instanceof OpenAI.APIConnectionTimeoutError) {
    const within = formatSeconds(ctx.attemptMs);
    const message = ctx.state.headers
      ? `${where}: ${url} sent headers but no complete reply within ${within} (the reply body stalled after ${ctx.state.bytes} bytes)`
      : `${where}: no reply from ${url} within ${within}`;
    return { error: new LlmError('timeout', message), retryAfter: null };
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const inner = causeOf(cause) ?? cause;
    const code = inner instanceof Error ? ((inner as NodeJS.ErrnoException).code ?? inner.message) : error.message;
    return { error: new LlmError('connection', redact(`${where}: cannot connect to ${url} (${code})`)), retryAfter: null };
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status as number | undefined;
    const headers = error.headers as Headers | undefined;
    const retryAfter = retryAfterMs(headers?.get?.('retry-after') ?? null);
    const detail = redact(error.message.replace(/\s+/g, ' ').slice(0, 300));
    if (status === 429) return { error: new LlmError('rate_limited', `${where}: rate limited (429): ${detail}`, status), retryAfter };
    if (status !== undefined && status >= 500)
      return { error: new LlmError('server_error', `${where}: server error ${status}: ${detail}`, status), retryAfter };
    if (status === 401 || status === 403)
      return {
        error: new LlmError('auth', `${where}: the endpoint refused the API key (${status}); check EXAM_COPILOT_LLM_API_KEY`, status),
        retryAfter: null,
      };
    if (status === 400 && /response_format|json_schema|json_object/i.test(error.message))
      return { error: new LlmError('response_format', `${where}: ${detail}`, status), retryAfter: null };
    if (status === undefined) return { error: new LlmError('malformed', `${where}: unreadable reply: ${detail}`), retryAfter: null };
    return { error: new LlmError('bad_request', `${where}: request rejected (${status}): ${detail}`, status), retryAfter: null };
  }
  // A 200 whose body is not JSON surfaces as a SyntaxError from the client.
  const message = error instanceof Error ? error.message : String(error);
  return { error: new LlmError('malformed', redact(`${where}: unreadable reply: ${message.slice(0, 200)}`)), retryAfter: null };
}

/** The cache key: endpoint (credentials removed), model and the full request, hashed. */
export function cacheKey(endpoint: Pick<EndpointConfig, 'baseURL' | 'model'>, request: ChatRequest): string {
  const canonical = JSON.stringify({ baseURL: redactUrl(endpoint.baseURL).replace(/\/+$/, ''), model: endpoint.model, request });
  return createHash('sha256').update(canonical).digest('hex');
}

/** Size of the LLM response cache. */
export interface LlmCacheStats {
  entries: number;
  bytes: number;
}

interface ResponseCache {
  get(key: string): Omit<ChatResult, 'cached'> | undefined;
  put(key: string, value: ChatResult): void;
  close(): void;
}

const CACHE_TABLE = 'CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL)';

function openLlmCache(
  file: string,
  options: { maxEntries?: number | undefined; maxBytes?: number | undefined; redact: (t: string) => string },
): ResponseCache {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(CACHE_TABLE);
  const maxEntries = options.maxEntries ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const select = db.prepare<[string], { value: string }>('SELECT value FROM responses WHERE key = ?');
  const insert = db.prepare<[string, string, string]>('INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)');
  const totals = db.prepare<[], { n: number; bytes: number | null }>(
    'SELECT count(*) AS n, sum(length(CAST(value AS BLOB))) AS bytes FROM responses',
  );
  // Oldest first: INSERT OR REPLACE gives a rewritten entry a new rowid, so rowid order is insertion order.
  const oldest = db.prepare<[], { rowid: number; bytes: number }>(
    'SELECT rowid, length(CAST(value AS BLOB)) AS bytes FROM responses ORDER BY rowid',
  );
  const remove = db.prepare<[number]>('DELETE FROM responses WHERE rowid = ?');
  const evict = db.transaction(() => {
    const t = totals.get() ?? { n: 0, bytes: 0 };
    let n = t.n;
    let bytes = t.bytes ?? 0;
    if (n <= maxEntries && bytes <= maxBytes) return;
    for (const row of oldest.all()) {
      if (n <= maxEntries && bytes <= maxBytes) break;
      remove.run(row.rowid);
      n--;
      bytes -= row.bytes;
    }
  });
  return {
    get(key) {
      const row = select.get(key);
      if (!row) return undefined;
      try {
        return JSON.parse(row.value) as Omit<ChatResult, 'cached'>;
      } catch {
        return undefined;
      }
    },
    put(key, value) {
      const { cached: _cached, ...rest } = value;
      const text = options.redact(JSON.stringify(rest));
      // An entry larger than the whole budget would only evict everything else.
      if (Buffer.byteLength(text) > maxBytes) return;
      insert.run(key, text, new Date().toISOString());
      evict();
    },
    close() {
      db.close();
    },
  };
}

/** Entries and bytes in an LLM response cache file (zero when it does not exist). */
export function llmCacheStats(file: string): LlmCacheStats {
  if (!existsSync(file)) return { entries: 0, bytes: 0 };
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'responses'").get();
    if (!hasTable) return { entries: 0, bytes: 0 };
    const row = db
      .prepare<[], { n: number; bytes: number | null }>('SELECT count(*) AS n, sum(length(CAST(value AS BLOB))) AS bytes FROM responses')
      .get();
    return { entries: row?.n ?? 0, bytes: row?.bytes ?? 0 };
  } finally {
    db.close();
  }
}

/** Empties an LLM response cache and gives its space back; returns what was removed. */
export function clearLlmCache(file: string): LlmCacheStats {
  const before = llmCacheStats(file);
  if (!existsSync(file)) return before;
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.exec(CACHE_TABLE);
    db.exec('DELETE FROM responses');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
  } finally {
    db.close();
  }
  return before;
}

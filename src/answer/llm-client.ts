import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import type { EndpointConfig } from '../config/load-config.js';
import { createLimiter } from '../limiter.js';

/**
 * A chat client for any OpenAI-compatible endpoint, built on the real `openai` package with its own
 * retries turned off: this module retries 429 / 5xx / timeouts / dropped connections itself, a bounded
 * number of times with exponential backoff that honours `Retry-After`, so behaviour is the same on every
 * endpoint and tests are deterministic. Successful responses are cached in SQLite, keyed by endpoint,
 * model and the full request, so repeated runs are reproducible and free. Safe for concurrent calls
 * (a semaphore bounds requests in flight); token usage is counted across calls.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** How the reply should be structured; `text` means no `response_format` is sent. */
export type ResponseFormat = { type: 'json_schema'; name: string; schema: Record<string, unknown> } | { type: 'json_object' } | { type: 'text' };

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

/** Why a call failed after retries. `response_format` means the endpoint rejected the structured-output request. */
export type LlmFailureKind = 'timeout' | 'rate_limited' | 'server_error' | 'connection' | 'bad_request' | 'auth' | 'response_format' | 'malformed';

/** A failed LLM call. The message never contains the API key. */
export class LlmError extends Error {
  readonly kind: LlmFailureKind;
  readonly status: number | undefined;
  constructor(kind: LlmFailureKind, message: string, status?: number) {
    super(message);
    this.name = 'LlmError';
    this.kind = kind;
    this.status = status;
  }
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  requests: number;
  cacheHits: number;
}

export interface LlmClient {
  readonly model: string;
  readonly baseURL: string;
  chat(request: ChatRequest): Promise<ChatResult>;
  /** Token usage and request counts so far (cache hits cost no tokens). */
  usage(): LlmUsage;
  /**
   * The strongest structured-output mode the endpoint accepted so far; answerers start there, so an
   * endpoint that rejected `json_schema` once is not asked again.
   */
  structuredOutput: 'json_schema' | 'json_object' | 'text';
  close(): void;
}

export interface CreateLlmClientOptions {
  endpoint: EndpointConfig & { timeoutMs: number; maxRetries: number; concurrency: number };
  /** SQLite file for the response cache (`projectPaths(root).llmCache`); null disables caching. */
  cachePath: string | null;
  noCache?: boolean;
  /** Injected for tests, which record waits instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  /** Base backoff before the first retry, doubled each retry (default 500 ms). */
  backoffMs?: number;
  /** Longest wait honoured from Retry-After or backoff (default 30 s). */
  maxWaitMs?: number;
}

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

export function createLlmClient(options: CreateLlmClientOptions): LlmClient {
  const { endpoint } = options;
  const client = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, timeout: endpoint.timeoutMs, maxRetries: 0 });
  const sleep = options.sleep ?? defaultSleep;
  const backoff = options.backoffMs ?? 500;
  const maxWait = options.maxWaitMs ?? 30_000;
  const usage: LlmUsage = { promptTokens: 0, completionTokens: 0, requests: 0, cacheHits: 0 };
  const cache = options.cachePath && !options.noCache ? openCache(options.cachePath) : null;
  const limiter = createLimiter({ concurrency: endpoint.concurrency });
  const redact = (t: string): string => redactKey(t, endpoint.apiKey);

  async function callOnce(request: ChatRequest): Promise<ChatResult> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: endpoint.model,
      messages: request.messages,
      temperature: request.temperature ?? 0,
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
    };
    const rf = request.responseFormat;
    if (rf?.type === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: rf.name, schema: rf.schema, strict: true } };
    else if (rf?.type === 'json_object') body.response_format = { type: 'json_object' };
    const completion = await client.chat.completions.create(body);
    const choice = completion.choices?.[0];
    if (!choice || typeof choice.message?.content !== 'string') throw new LlmError('malformed', `${endpoint.model}: the reply had no message content`);
    return {
      content: choice.message.content,
      finishReason: choice.finish_reason ?? 'stop',
      usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
      cached: false,
    };
  }

  async function withRetries(request: ChatRequest): Promise<ChatResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        usage.requests++;
        return await callOnce(request);
      } catch (error) {
        const failure = classify(error, redact, endpoint);
        const retryable = failure.error.kind === 'rate_limited' || failure.error.kind === 'server_error' || failure.error.kind === 'timeout' || failure.error.kind === 'connection';
        if (!retryable || attempt >= endpoint.maxRetries) {
          const tries = attempt + 1;
          if (retryable) throw new LlmError(failure.error.kind, `${failure.error.message} (after ${tries} attempt${tries === 1 ? '' : 's'})`, failure.error.status);
          throw failure.error;
        }
        const wait = Math.min(maxWait, failure.retryAfter ?? backoff * 2 ** attempt);
        await sleep(wait);
      }
    }
  }

  return {
    model: endpoint.model,
    baseURL: endpoint.baseURL,
    structuredOutput: 'json_schema',
    usage: () => ({ ...usage }),
    async chat(request) {
      const key = cache ? cacheKey(endpoint, request) : '';
      if (cache) {
        const hit = cache.get(key);
        if (hit) {
          usage.cacheHits++;
          return { ...hit, cached: true };
        }
      }
      const result = await limiter.run(() => withRetries(request));
      usage.promptTokens += result.usage.promptTokens;
      usage.completionTokens += result.usage.completionTokens;
      // A cut-off reply is not worth replaying.
      if (cache && result.finishReason !== 'length') cache.put(key, result);
      return result;
    },
    close() {
      cache?.close();
    },
  };
}

function classify(error: unknown, redact: (t: string) => string, endpoint: EndpointConfig): { error: LlmError; retryAfter: number | null } {
  const where = `LLM ${endpoint.model} @ ${endpoint.baseURL}`;
  if (error instanceof LlmError) return { error, retryAfter: null };
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { error: new LlmError('timeout', `${where}: timed out`), retryAfter: null };
  if (error instanceof OpenAI.APIConnectionError) return { error: new LlmError('connection', redact(`${where}: cannot connect (${error.cause instanceof Error ? error.cause.message : error.message})`)), retryAfter: null };
  if (error instanceof OpenAI.APIError) {
    const status = error.status as number | undefined;
    const headers = error.headers as Headers | undefined;
    const retryAfter = retryAfterMs(headers?.get?.('retry-after') ?? null);
    const detail = redact(error.message.replace(/\s+/g, ' ').slice(0, 300));
    if (status === 429) return { error: new LlmError('rate_limited', `${where}: rate limited (429): ${detail}`, status), retryAfter };
    if (status !== undefined && status >= 500) return { error: new LlmError('server_error', `${where}: server error ${status}: ${detail}`, status), retryAfter };
    if (status === 401 || status === 403) return { error: new LlmError('auth', `${where}: the endpoint refused the API key (${status}); check EXAM_COPILOT_LLM_API_KEY`, status), retryAfter: null };
    if (status === 400 && /response_format|json_schema|json_object/i.test(error.message)) return { error: new LlmError('response_format', `${where}: ${detail}`, status), retryAfter: null };
    if (status === undefined) return { error: new LlmError('malformed', `${where}: unreadable reply: ${detail}`), retryAfter: null };
    return { error: new LlmError('bad_request', `${where}: request rejected (${status}): ${detail}`, status), retryAfter: null };
  }
  // A 200 whose body is not JSON surfaces as a SyntaxError from the client.
  const message = error instanceof Error ? error.message : String(error);
  return { error: new LlmError('malformed', redact(`${where}: unreadable reply: ${message.slice(0, 200)}`)), retryAfter: null };
}

/** The cache key: endpoint, model and the full request, hashed. */
export function cacheKey(endpoint: Pick<EndpointConfig, 'baseURL' | 'model'>, request: ChatRequest): string {
  const canonical = JSON.stringify({ baseURL: endpoint.baseURL.replace(/\/+$/, ''), model: endpoint.model, request });
  return createHash('sha256').update(canonical).digest('hex');
}

interface ResponseCache {
  get(key: string): Omit<ChatResult, 'cached'> | undefined;
  put(key: string, value: ChatResult): void;
  close(): void;
}

function openCache(file: string): ResponseCache {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL)');
  const select = db.prepare<[string], { value: string }>('SELECT value FROM responses WHERE key = ?');
  const insert = db.prepare<[string, string, string]>('INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)');
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
      insert.run(key, JSON.stringify(rest), new Date().toISOString());
    },
    close() {
      db.close();
    },
  };
}

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { formatSeconds } from './llm-deadline.js';
import { ReplyTooLargeError, type AttemptState } from './llm-fetch.js';

/**
 * Why a call failed. `response_format` means the endpoint rejected the structured-output request,
 * `tools_unsupported` that it rejected the `tools` parameter (the agent then speaks a text protocol);
 * `circuit_open` means the call was not made because the endpoint kept failing earlier in the run.
 */
export type LlmFailureKind =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'connection'
  | 'bad_request'
  | 'auth'
  | 'response_format'
  | 'tools_unsupported'
  | 'malformed'
  | 'circuit_open';

/** A failed LLM call. The message never contains the API key or URL credentials. */
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

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds, or null. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** The `cause` of an error, if it has one (fetch and the openai client wrap the socket error). */
export function causeOf(error: unknown): unknown {
  return error instanceof Error && 'cause' in error ? error.cause : undefined;
}

/** What `classify` needs to word a failure of one attempt. */
export interface ClassifyContext {
  /** The one redactor (`redactText` with the endpoint's secrets). */
  redact: (t: string) => string;
  /** `LLM <model> @ <url>`, credentials removed. */
  where: string;
  /** The base URL, credentials removed. */
  url: string;
  attemptMs: number;
  state: AttemptState;
  maxBytes: number;
  /** The request offered tools, so a 400 about tools means the endpoint does not take them. */
  tools: boolean;
}

/** Turns whatever one attempt threw into an `LlmError` (redacted) and the server's `Retry-After`, if any. */
export function classify(error: unknown, ctx: ClassifyContext): { error: LlmError; retryAfter: number | null } {
  const { where, url, redact } = ctx;
  if (error instanceof LlmError) return { error, retryAfter: null };
  const cause = causeOf(error);
  if (error instanceof ReplyTooLargeError || cause instanceof ReplyTooLargeError) {
    return {
      error: new LlmError('malformed', `${where}: the reply is larger than ${Math.round(ctx.maxBytes / 1024)} kB; not read further`),
      retryAfter: null,
    };
  }
  if (error instanceof APIUserAbortError || error instanceof APIConnectionTimeoutError) {
    const within = formatSeconds(ctx.attemptMs);
    const message = ctx.state.headers
      ? `${where}: ${url} sent headers but no complete reply within ${within} (the reply body stalled after ${ctx.state.bytes} bytes)`
      : `${where}: no reply from ${url} within ${within}`;
    return { error: new LlmError('timeout', message), retryAfter: null };
  }
  if (error instanceof APIConnectionError) {
    const inner = causeOf(cause) ?? cause;
    const code = inner instanceof Error ? ((inner as NodeJS.ErrnoException).code ?? inner.message) : error.message;
    return { error: new LlmError('connection', redact(`${where}: cannot connect to ${url} (${code})`)), retryAfter: null };
  }
  if (error instanceof APIError) {
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
    if (status === 400 && ctx.tools && /tool|function/i.test(error.message))
      return { error: new LlmError('tools_unsupported', `${where}: the endpoint rejected tools (${detail})`, status), retryAfter: null };
    if (status === undefined) return { error: new LlmError('malformed', `${where}: unreadable reply: ${detail}`), retryAfter: null };
    return { error: new LlmError('bad_request', `${where}: request rejected (${status}): ${detail}`, status), retryAfter: null };
  }
  // A 200 whose body is not JSON surfaces as a SyntaxError from the client.
  const message = error instanceof Error ? error.message : String(error);
  return { error: new LlmError('malformed', redact(`${where}: unreadable reply: ${message.slice(0, 200)}`)), retryAfter: null };
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible HTTP server for tests. It listens on 127.0.0.1 on a free port and serves
 * `POST /v1/chat/completions`, `POST /v1/embeddings` and `GET /v1/models`, so the real `openai` client
 * (and anything else that speaks the protocol) can be driven through success and failure paths
 * without network access. Every request is recorded.
 *
 * Responses come, in order of precedence, from: a `response_format` rejection (when configured), the
 * queue of scripted responses (`enqueue`), the handler function, then the defaults (embeddings: a
 * deterministic hashed bag-of-characters vector; models: one model; chat: a 500 saying the script ran
 * out, so a test that forgot to script a call fails loudly instead of passing on a canned answer).
 */

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw request body. */
  rawBody: string;
  /** The body parsed as JSON, or undefined when it was not JSON. */
  body: unknown;
  /** When the whole request had arrived (`Date.now()`). */
  receivedAt: number;
  /** Bytes of the reply body written to the socket, for `streamBytes` replies (how much the client read before it stopped). */
  bytesSent?: number;
}

/** What the server should send back for one request. */
export interface ScriptedResponse {
  /** HTTP status (default 200). */
  status?: number;
  /** Extra headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>;
  /** A JSON body (sent with `content-type: application/json`). */
  json?: unknown;
  /** A raw body, sent as is (use for malformed or truncated JSON). Wins over `json`. */
  body?: string;
  /** Wait this long before answering (use a delay above the client timeout to simulate a timeout). */
  delayMs?: number;
  /** Destroy the socket instead of answering (connection reset). */
  destroy?: boolean;
  /** Send the status, headers and this much of the body, then stall without ending the reply. */
  stallAfterBytes?: number;
  /**
   * Stream a body of this many bytes (the start of a chat completion, then filler, never valid JSON) in 64 KiB
   * writes that wait for the socket to drain, stopping when the client hangs up; `bytesSent` records how far it got.
   */
  streamBytes?: number;
}

/** Computes a response for a request; return undefined to fall through to the defaults. */
export type FakeHandler = (request: RecordedRequest) => ScriptedResponse | undefined | Promise<ScriptedResponse | undefined>;

export interface FakeOpenAiServerOptions {
  /** Responses served first, one per request, in order (any endpoint). */
  responses?: ScriptedResponse[];
  handler?: FakeHandler;
  /**
   * `response_format.type` values the "model" does not support: such requests get a 400 mentioning
   * `response_format`, as real endpoints (older vLLM, some Ollama models) do. Does not consume the queue.
   */
  rejectResponseFormat?: ReadonlyArray<'json_schema' | 'json_object'>;
  /** Dimension of the default embeddings (default 16). */
  embeddingDimension?: number;
}

export interface FakeOpenAiServer {
  /** Base URL to hand to the client, ending in `/v1`. */
  readonly baseURL: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Requests to `/v1/chat/completions` only. */
  chatRequests(): RecordedRequest[];
  /** Appends scripted responses to the queue. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Replaces the handler. */
  setHandler(handler: FakeHandler | undefined): void;
  /** Scripted responses not yet served. */
  pending(): number;
  close(): Promise<void>;
}

/** Starts a fake server on 127.0.0.1:0. Always `await server.close()` (e.g. in `after`). */
export async function startFakeOpenAiServer(options: FakeOpenAiServerOptions = {}): Promise<FakeOpenAiServer> {
  const queue: ScriptedResponse[] = [...(options.responses ?? [])];
  let handler = options.handler;
  const requests: RecordedRequest[] = [];
  const dimension = options.embeddingDimension ?? 16;
  const reject = new Set(options.rejectResponseFormat ?? []);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
      };
      requests.push(recorded);
      void respond(recorded, res);
    });
  });

  async function respond(request: RecordedRequest, res: http.ServerResponse): Promise<void> {
    let scripted: ScriptedResponse | undefined;
    const formatType = responseFormatType(request.body);
    if (request.path.endsWith('/chat/completions') && formatType && reject.has(formatType as 'json_schema' | 'json_object')) {
      scripted = {
        status: 400,
        json: {
          error: {
            message: `response_format type '${formatType}' is not supported by this model`,
            type: 'invalid_request_error',
            param: 'response_format',
            code: null,
          },
        },
      };
    }
    scripted ??= queue.shift();
    if (!scripted && handler) scripted = await handler(request);
    scripted ??= defaultResponse(request, dimension);
    await send(res, scripted, request);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path.endsWith('/chat/completions')),
    enqueue: (...responses) => {
      queue.push(...responses);
    },
    setHandler: (h) => {
      handler = h;
    },
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        // Delayed responses keep sockets open; drop them so close() does not wait for the delay.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function responseFormatType(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const rf = (body as { response_format?: unknown }).response_format;
  if (typeof rf !== 'object' || rf === null) return undefined;
  const type = (rf as { type?: unknown }).type;
  return typeof type === 'string' ? type : undefined;
}

async function send(res: http.ServerResponse, scripted: ScriptedResponse, request: RecordedRequest): Promise<void> {
  if (scripted.delayMs && scripted.delayMs > 0) {
    const aborted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), scripted.delayMs);
      // The client gave up (timeout): stop waiting so the test does not hang on the timer.
      res.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (aborted || res.destroyed) return;
  }
  if (scripted.destroy) {
    res.socket?.destroy();
    return;
  }
  if (scripted.streamBytes !== undefined) {
    await streamBody(res, scripted.streamBytes, request);
    return;
  }
  const status = scripted.status ?? 200;
  const headers: Record<string, string> = { ...lowerKeys(scripted.headers ?? {}) };
  let payload: string;
  if (scripted.body !== undefined) {
    payload = scripted.body;
    headers['content-type'] ??= 'application/json';
  } else {
    payload = JSON.stringify(scripted.json ?? {});
    headers['content-type'] ??= 'application/json';
  }
  if (scripted.stallAfterBytes !== undefined) {
    // Headers go out at once; the body stops part-way and the reply never ends (until the client gives up).
    const bytes = Buffer.from(payload);
    res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
    res.flushHeaders();
    if (scripted.stallAfterBytes > 0) res.write(bytes.subarray(0, Math.min(scripted.stallAfterBytes, bytes.length)));
    return;
  }
  res.writeHead(status, headers);
  res.end(payload);
}

/** Writes a `total`-byte body with backpressure until it is all sent or the client closes the connection. */
async function streamBody(res: http.ServerResponse, total: number, request: RecordedRequest): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  const head = Buffer.from('{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"');
  const filler = Buffer.alloc(64 * 1024, 'x');
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  request.bytesSent = 0;
  for (let chunk = head; request.bytesSent < total && !closed; chunk = filler) {
    const part = chunk.subarray(0, Math.min(chunk.length, total - request.bytesSent));
    request.bytesSent += part.length;
    if (!res.write(part))
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  }
  if (!closed) res.end();
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

function defaultResponse(request: RecordedRequest, dimension: number): ScriptedResponse {
  if (request.path.endsWith('/embeddings')) {
    const input = (request.body as { input?: unknown } | undefined)?.input;
    const texts = Array.isArray(input) ? input.map((t) => asString(t)) : [asString(input)];
    const model = asString((request.body as { model?: unknown } | undefined)?.model) || 'fake-embedding';
    const encoding = (request.body as { encoding_format?: unknown } | undefined)?.encoding_format === 'base64' ? 'base64' : 'float';
    return {
      json: embeddingResponse(
        texts.map((t) => hashedEmbedding(t, dimension)),
        model,
        encoding,
      ),
    };
  }
  if (request.path.endsWith('/models')) {
    return { json: { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] } };
  }
  return { status: 500, json: { error: { message: 'fake server: no scripted response left for this request', type: 'server_error' } } };
}

/** A deterministic, L2-normalised bag-of-characters vector, so similar texts get similar embeddings. */
export function hashedEmbedding(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    const idx = Math.imul(code, 2654435761) >>> 0;
    v[idx % dimension] = (v[idx % dimension] ?? 0) + 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

/**
 * A complete `/v1/embeddings` response body. The `openai` client asks for `encoding_format: 'base64'`
 * by default (little-endian float32), so the defaults answer in the encoding requested.
 */
export function embeddingResponse(vectors: number[][], model = 'fake-embedding', encoding: 'float' | 'base64' = 'float'): unknown {
  return {
    object: 'list',
    model,
    data: vectors.map((embedding, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? Buffer.from(new Float32Array(embedding).buffer).toString('base64') : embedding,
    })),
    usage: { prompt_tokens: vectors.length, total_tokens: vectors.length },
  };
}

/** A complete `/v1/chat/completions` response body whose single choice says `content`. */
export function chatCompletion(
  content: string,
  options: { model?: string; finishReason?: 'stop' | 'length'; promptTokens?: number; completionTokens?: number } = {},
): unknown {
  const promptTokens = options.promptTokens ?? 100;
  const completionTokens = options.completionTokens ?? 20;
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: options.model ?? 'fake-model',
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: options.finishReason ?? 'stop' },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** Shorthand: a scripted 200 response carrying a chat completion with `content`. */
export function chatReply(content: string, options: Parameters<typeof chatCompletion>[1] = {}): ScriptedResponse {
  return { json: chatCompletion(content, options) };
}

/**
 * Shorthand: a scripted 200 response whose assistant message makes native tool calls; `raw` replaces a call's
 * JSON arguments (for malformed ones).
 */
export function toolCalls(...calls: { name: string; args: unknown; raw?: string }[]): ScriptedResponse {
  return {
    json: {
      id: 'chatcmpl-agent',
      object: 'chat.completion',
      created: 0,
      model: 'fake-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: calls.map((c, i) => ({
              id: `call_${i + 1}`,
              type: 'function',
              function: { name: c.name, arguments: c.raw ?? JSON.stringify(c.args) },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/** Shorthand: a scripted OpenAI-style error response. */
export function errorReply(status: number, message: string, headers: Record<string, string> = {}): ScriptedResponse {
  return { status, headers, json: { error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error', code: null } } };
}

/** Reads the messages of a recorded chat request (for assertions on prompts). */
export function chatMessages(request: RecordedRequest): Array<{ role: string; content: string }> {
  const messages = (request.body as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.map((m: unknown) => {
    const o = m as { role?: unknown; content?: unknown };
    return { role: asString(o.role), content: typeof o.content === 'string' ? o.content : JSON.stringify(o.content) };
  });
}

function asString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

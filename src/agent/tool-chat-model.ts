import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../sqlite-database.js';
import OpenAI from 'openai';
import { LlmError, redactKey } from '../answer/llm-client.js';
import type { EndpointConfig } from '../config/load-config.js';
import type { ToolSpec } from './agent-tools.js';

/** A tool call as the model made it (native `tool_calls`, or one JSON object in simulated mode). */
export interface AgentToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: a JSON string, or an object in simulated mode. */
  arguments: unknown;
}

/** The agent's conversation, independent of the wire protocol. */
export type AgentMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: AgentToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** How tools are offered: the API's `tools` parameter, or a text protocol described in the prompt. */
export type ToolProtocol = 'native' | 'simulated';

/** One reply of the model. */
export interface ModelTurn {
  content: string;
  /** A separate reasoning field (DeepSeek's `reasoning_content`), kept out of the answer. */
  reasoning: string;
  toolCalls: AgentToolCall[];
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number };
  cached: boolean;
}

/** The swap point between the agent loop and an LLM transport. */
export interface ToolChatModel {
  /** The protocol in use: fixed by config, or chosen by `auto` (native until the endpoint rejects `tools`). */
  readonly protocol: ToolProtocol;
  turn(request: {
    messages: readonly AgentMessage[];
    tools: readonly ToolSpec[];
    allowTools: boolean;
    signal: AbortSignal;
  }): Promise<ModelTurn>;
  /** Requests that reached the endpoint (cache hits excluded). */
  requests(): number;
  close(): void;
}

/** Thrown when `auto` finds that the endpoint rejects `tools`: the caller restarts the conversation in simulated mode. */
export class ToolsUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolsUnsupportedError';
  }
}

export interface OpenAiToolModelOptions {
  endpoint: EndpointConfig;
  /** `native`, `simulated`, or `auto` (native first; switch once on a 400 that rejects tools, remembered per endpoint). */
  tools: 'native' | 'simulated' | 'auto';
  /** SQLite file shared with the answer cache (`projectPaths(root).llmCache`); null disables caching. */
  cachePath: string | null;
  /** Largest reply body kept; a longer one is malformed (a runaway or hostile server). */
  maxReplyChars?: number;
}

/** The cache key of a turn: endpoint, model, protocol and the whole conversation with its tools. */
export function turnCacheKey(
  endpoint: Pick<EndpointConfig, 'baseURL' | 'model'>,
  protocol: ToolProtocol,
  request: { messages: readonly AgentMessage[]; tools: readonly ToolSpec[]; allowTools: boolean },
): string {
  const canonical = JSON.stringify({ baseURL: endpoint.baseURL.replace(/\/+$/, ''), model: endpoint.model, protocol, ...request });
  return createHash('sha256').update(canonical).digest('hex');
}

/** Renders the conversation for the wire: native keeps tool messages; simulated turns them into plain text turns. */
function wireMessages(messages: readonly AgentMessage[], protocol: ToolProtocol): OpenAI.Chat.ChatCompletionMessageParam[] {
  return messages.map((m): OpenAI.Chat.ChatCompletionMessageParam => {
    if (m.role === 'tool') {
      return protocol === 'native'
        ? { role: 'tool', tool_call_id: m.toolCallId, content: m.content }
        : { role: 'user', content: `Tool result (${m.name}):\n${m.content}` };
    }
    if (m.role === 'assistant') {
      if (protocol === 'native' && m.toolCalls && m.toolCalls.length > 0) {
        return {
          role: 'assistant',
          content: m.content || null,
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
          })),
        };
      }
      return { role: 'assistant', content: m.content };
    }
    return { role: m.role, content: m.content };
  });
}

interface TurnCache {
  get(key: string): Omit<ModelTurn, 'cached'> | undefined;
  put(key: string, turn: ModelTurn): void;
  protocolFor(endpoint: string): ToolProtocol | undefined;
  rememberProtocol(endpoint: string, protocol: ToolProtocol): void;
  close(): void;
}

function openTurnCache(file: string): TurnCache {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS agent_turns (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS endpoint_tools (endpoint TEXT PRIMARY KEY, protocol TEXT NOT NULL, noted_at TEXT NOT NULL);`);
  const select = db.prepare<[string], { value: string }>('SELECT value FROM agent_turns WHERE key = ?');
  const insert = db.prepare<[string, string, string]>('INSERT OR REPLACE INTO agent_turns (key, value, created_at) VALUES (?, ?, ?)');
  const selectProtocol = db.prepare<[string], { protocol: string }>('SELECT protocol FROM endpoint_tools WHERE endpoint = ?');
  const insertProtocol = db.prepare<[string, string, string]>(
    'INSERT OR REPLACE INTO endpoint_tools (endpoint, protocol, noted_at) VALUES (?, ?, ?)',
  );
  return {
    get(key) {
      const row = select.get(key);
      if (!row) return undefined;
      try {
        return JSON.parse(row.value) as Omit<ModelTurn, 'cached'>;
      } catch {
        return undefined;
      }
    },
    put(key, turn) {
      const { cached: _cached, ...rest } = turn;
      insert.run(key, JSON.stringify(rest), new Date().toISOString());
    },
    protocolFor(endpoint) {
      const p = selectProtocol.get(endpoint)?.protocol;
      return p === 'native' || p === 'simulated' ? p : undefined;
    },
    rememberProtocol(endpoint, protocol) {
      insertProtocol.run(endpoint, protocol, new Date().toISOString());
    },
    close() {
      db.close();
    },
  };
}

/** True for a 400 that says the endpoint or model does not take `tools` / function calling. */
function rejectsTools(error: unknown): boolean {
  return error instanceof OpenAI.APIError && error.status === 400 && /tool|function/i.test(error.message);
}

/**
 * A ToolChatModel over any OpenAI-compatible endpoint through the real `openai` client. Each turn is bounded by the
 * caller's AbortSignal (the agent's deadline); connection failures and 5xx are retried once while time remains.
 * Replies are cached by the whole conversation, so a rerun of the same question makes no requests.
 */
export function createOpenAiToolModel(options: OpenAiToolModelOptions): ToolChatModel {
  const { endpoint } = options;
  const client = new OpenAI({ baseURL: endpoint.baseURL, apiKey: endpoint.apiKey, maxRetries: 0 });
  const cache = options.cachePath ? openTurnCache(options.cachePath) : null;
  const endpointKey = `${endpoint.baseURL.replace(/\/+$/, '')}|${endpoint.model}`;
  const maxReply = options.maxReplyChars ?? 200_000;
  const where = `LLM ${endpoint.model} @ ${endpoint.baseURL}`;
  let protocol: ToolProtocol = options.tools === 'auto' ? (cache?.protocolFor(endpointKey) ?? 'native') : options.tools;
  let requests = 0;
  const redact = (t: string): string => redactKey(t, endpoint.apiKey);

  async function call(
    messages: readonly AgentMessage[],
    tools: readonly ToolSpec[],
    allowTools: boolean,
    signal: AbortSignal,
  ): Promise<ModelTurn> {
    const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: endpoint.model,
      messages: wireMessages(messages, protocol),
      temperature: 0,
    };
    if (protocol === 'native') {
      body.tools = tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      body.tool_choice = allowTools ? 'auto' : 'none';
      body.parallel_tool_calls = true;
    }
    for (let attempt = 0; ; attempt++) {
      requests++;
      try {
        const completion = await client.chat.completions.create(body, { signal });
        const choice = completion.choices?.[0];
        if (!choice) throw new LlmError('malformed', `${where}: the reply had no choices`);
        const message = choice.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: unknown };
        const content = typeof message.content === 'string' ? message.content : '';
        const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
        if (content.length + reasoning.length > maxReply)
          throw new LlmError('malformed', `${where}: the reply is longer than ${maxReply} characters`);
        const toolCalls: AgentToolCall[] = [];
        for (const c of message.tool_calls ?? []) {
          if (c.type === 'function') toolCalls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments });
        }
        return {
          content,
          reasoning,
          toolCalls,
          finishReason: choice.finish_reason ?? 'stop',
          usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
          cached: false,
        };
      } catch (error) {
        if (signal.aborted) throw new LlmError('timeout', `${where}: no reply within the agent's deadline`);
        if (error instanceof LlmError) throw error;
        if (protocol === 'native' && rejectsTools(error)) {
          if (options.tools === 'auto') {
            protocol = 'simulated';
            cache?.rememberProtocol(endpointKey, 'simulated');
            throw new ToolsUnsupportedError(redact(`${where} rejected tools; switching to simulated tool calls`));
          }
          throw new LlmError(
            'bad_request',
            redact(`${where}: the endpoint rejected tools (${(error as Error).message.slice(0, 200)}); set llm.tools to "simulated"`),
            400,
          );
        }
        const status: number | undefined = error instanceof OpenAI.APIError ? (error.status as number | undefined) : undefined;
        const retryable = error instanceof OpenAI.APIConnectionError || (typeof status === 'number' && (status === 429 || status >= 500));
        if (retryable && attempt === 0) continue;
        if (error instanceof OpenAI.APIConnectionError)
          throw new LlmError('connection', redact(`${where}: cannot connect to ${endpoint.baseURL}`));
        if (error instanceof OpenAI.APIError)
          throw new LlmError(
            status === 401 || status === 403 ? 'auth' : 'bad_request',
            redact(`${where}: request failed (${status ?? '?'}): ${error.message.slice(0, 200)}`),
            status,
          );
        throw new LlmError(
          'malformed',
          redact(`${where}: unreadable reply: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`),
        );
      }
    }
  }

  return {
    get protocol() {
      return protocol;
    },
    requests: () => requests,
    async turn({ messages, tools, allowTools, signal }) {
      const key = cache ? turnCacheKey(endpoint, protocol, { messages, tools, allowTools }) : '';
      const hit = cache?.get(key);
      if (hit) return { ...hit, cached: true };
      const turn = await call(messages, tools, allowTools, signal);
      if (cache && turn.finishReason !== 'length') cache.put(key, turn);
      return turn;
    },
    close() {
      cache?.close();
    },
  };
}

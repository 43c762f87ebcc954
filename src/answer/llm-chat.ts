import type OpenAI from 'openai';

/**
 * The request and reply of one chat call, as the LLM client, its cache and its callers (the one-shot answerer, the
 * reranker, the agent) see them, and their translation to and from the wire format of the `openai` package.
 */

/** A function the model may call (OpenAI `tools`). */
export interface ChatTool {
  name: string;
  description: string;
  /** The JSON schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** A tool call as the model made it; `arguments` is the JSON text the model wrote (not yet parsed or trusted). */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One message of the conversation; `tool` messages answer an assistant's tool call. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** How the reply should be structured; `text` means no `response_format` is sent. */
export type ResponseFormat =
  { type: 'json_schema'; name: string; schema: Record<string, unknown> } | { type: 'json_object' } | { type: 'text' };

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
  /** Functions the model may call; with them, a reply may carry tool calls and no text. */
  tools?: ChatTool[];
  /** `none` keeps the tools described but forbids calling them this turn; default `auto`. */
  toolChoice?: 'auto' | 'none';
}

export interface ChatResult {
  /** The reply text, secrets redacted ('' when the model only called tools). */
  content: string;
  /** `length` means the reply was cut off. */
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number };
  cached: boolean;
  /** A separate reasoning field (DeepSeek's `reasoning_content`), redacted; '' when absent. */
  reasoning?: string;
  /** Tool calls of the reply, redacted; empty when none. */
  toolCalls?: ChatToolCall[];
}

/** A conversation message as the `openai` package sends it. */
function wireMessage(m: ChatMessage): OpenAI.Chat.ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
  }
  return { role: m.role, content: m.content };
}

/** The request body of one chat call. */
export function requestBody(model: string, request: ChatRequest): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
    model,
    messages: request.messages.map(wireMessage),
    temperature: request.temperature ?? 0,
    ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
  };
  const rf = request.responseFormat;
  if (rf?.type === 'json_schema')
    body.response_format = { type: 'json_schema', json_schema: { name: rf.name, schema: rf.schema, strict: true } };
  else if (rf?.type === 'json_object') body.response_format = { type: 'json_object' };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    body.tool_choice = request.toolChoice ?? 'auto';
    body.parallel_tool_calls = true;
  }
  return body;
}

/**
 * The reply of a completion, every text in it redacted; null when it has no usable message (with tools offered, a
 * reply may be calls only; without, it must have text).
 */
export function readCompletion(
  completion: OpenAI.Chat.ChatCompletion,
  toolsOffered: boolean,
  redact: (t: string) => string,
): Omit<ChatResult, 'cached'> | null {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  if (!choice || !message || (typeof message.content !== 'string' && !toolsOffered)) return null;
  // DeepSeek-style reasoning comes in a field the openai types do not know.
  const reasoning: unknown = (message as unknown as Record<string, unknown>).reasoning_content;
  const toolCalls: ChatToolCall[] = [];
  for (const c of message.tool_calls ?? []) {
    if (c.type !== 'function') continue;
    toolCalls.push({
      id: redact(String(c.id ?? '')),
      name: redact(String(c.function?.name ?? '')),
      arguments: redact(String(c.function?.arguments ?? '')),
    });
  }
  return {
    content: redact(typeof message.content === 'string' ? message.content : ''),
    reasoning: redact(typeof reasoning === 'string' ? reasoning : ''),
    toolCalls,
    finishReason: choice.finish_reason ?? 'stop',
    usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
  };
}

/**
 * The request and reply of one chat call, as the LLM client, its cache and its callers (the one-shot answerer, the
 * reranker, the agent) see them: independent of the wire format of the `openai` package.
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

import type { ChatMessage, ChatResult, ChatTool } from '../answer/llm-chat.js';
import type { LlmClient } from '../answer/llm-client.js';
import type { Deadline } from '../answer/llm-deadline.js';
import { LlmError } from '../answer/llm-error.js';
import { evidenceFence } from '../answer/prompt-templates.js';
import type { ToolSpec } from './agent-tools.js';
import { readReply } from './simulated-protocol.js';

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
    /** The question's deadline, shared by every turn of the run. */
    deadline: Deadline;
  }): Promise<ModelTurn>;
  close(): void;
}

/** Thrown when `auto` finds that the endpoint rejects `tools`: the caller restarts the conversation in simulated mode. */
export class ToolsUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolsUnsupportedError';
  }
}

export interface ToolChatModelOptions {
  /** The one LLM transport (deadline, retries, breaker, byte cap, redaction, cache). */
  llm: LlmClient;
  /** `native`, `simulated`, or `auto` (native first; switch once on a 400 that rejects tools, remembered per endpoint). */
  tools: 'native' | 'simulated' | 'auto';
  /** Closes the LLM client with the model (when the model owns it). */
  ownsClient?: boolean;
}

/**
 * A tool result as the simulated protocol sends it: a user turn, so the book text inside is fenced as data by a tag
 * derived from its own hash (the one-shot path's evidence fence), which no text inside it can close.
 */
export function simulatedToolResult(name: string, content: string): string {
  const tag = evidenceFence(content, 'tool-result');
  return `Tool result (${name}):\n<${tag}>\n${content}\n</${tag}>`;
}

/** Renders the conversation for the wire: native keeps tool messages; simulated turns them into plain text turns. */
function chatMessages(messages: readonly AgentMessage[], protocol: ToolProtocol): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    if (m.role === 'tool') {
      return protocol === 'native'
        ? { role: 'tool', toolCallId: m.toolCallId, content: m.content }
        : { role: 'user', content: simulatedToolResult(m.name, m.content) };
    }
    if (m.role === 'assistant') {
      if (protocol === 'native' && m.toolCalls && m.toolCalls.length > 0) {
        return {
          role: 'assistant',
          content: m.content,
          toolCalls: m.toolCalls.map((c) => ({
            id: c.id,
            name: c.name,
            arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
          })),
        };
      }
      return { role: 'assistant', content: m.content };
    }
    return { role: m.role, content: m.content };
  });
}

/**
 * Whether a turn is worth caching (and replaying): it calls only offered tools, or reads as a call or a final
 * answer. A turn that is neither would replay the same repair round on every rerun.
 */
function usableTurn(result: ChatResult, protocol: ToolProtocol, offered: ReadonlySet<string>): boolean {
  const calls = result.toolCalls ?? [];
  if (protocol === 'native' && calls.length > 0) return calls.every((c) => offered.has(c.name));
  const reply = readReply(result.content);
  if (reply.kind === 'call') return protocol === 'simulated' && offered.has(reply.name);
  return reply.kind === 'final';
}

/**
 * The agent's model over the one LLM transport (`LlmClient`): each turn is one `chat` with the tools in the request
 * (native) or described in the prompt (simulated), under the run's deadline. So the agent gets what the one-shot
 * path has: redacted replies, reasoning and tool-call arguments; the bounded, validated response cache; the byte
 * cap; the breaker, the limiter and 429 backoff honouring Retry-After; credentials in the base URL.
 */
export function createToolChatModel(options: ToolChatModelOptions): ToolChatModel {
  const { llm } = options;
  let protocol: ToolProtocol = options.tools === 'auto' ? (llm.toolProtocol() ?? 'native') : options.tools;

  return {
    get protocol() {
      return protocol;
    },
    async turn({ messages, tools, allowTools, deadline }) {
      const offered = new Set(tools.map((t) => t.name));
      const chatTools: ChatTool[] = tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
      const current = protocol;
      let result: ChatResult;
      try {
        result = await llm.chat(
          {
            messages: chatMessages(messages, current),
            temperature: 0,
            ...(current === 'native' ? { tools: chatTools, toolChoice: allowTools ? ('auto' as const) : ('none' as const) } : {}),
          },
          { deadline, accept: (_content, r) => usableTurn(r, current, offered) },
        );
      } catch (error) {
        if (!(error instanceof LlmError) || error.kind !== 'tools_unsupported') throw error;
        if (options.tools === 'auto') {
          protocol = 'simulated';
          llm.rememberToolProtocol('simulated');
          throw new ToolsUnsupportedError(`${error.message}; switching to simulated tool calls`);
        }
        throw new LlmError('bad_request', `${error.message}; set llm.tools to "simulated"`, error.status);
      }
      return {
        content: result.content,
        reasoning: result.reasoning ?? '',
        toolCalls: (result.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        finishReason: result.finishReason,
        usage: result.usage,
        cached: result.cached,
      };
    },
    close() {
      if (options.ownsClient) llm.close();
    },
  };
}

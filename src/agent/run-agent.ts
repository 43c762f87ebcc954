import { z } from 'zod';
import type { OptionVerdict, ParsedQuestion } from '../answer/answer-types.js';
import { LlmError } from '../answer/llm-client.js';
import { createDeadline, formatSeconds, type Deadline } from '../answer/llm-deadline.js';
import { questionValues, validateLetters } from '../answer/llm-answerer.js';
import { checkVerdicts, rawVerdictsSchema } from '../answer/llm-verdicts.js';
import { fillTemplate, readPrompt, type PromptTemplate } from '../answer/prompt-templates.js';
import { AGENT_TOOLS, runTool, type ToolContext, type ToolOutcome } from './agent-tools.js';
import { describeTools, readReply, stripThinking } from './simulated-protocol.js';
import { ToolsUnsupportedError, type AgentMessage, type AgentToolCall, type ModelTurn, type ToolChatModel } from './tool-chat-model.js';

/** Limits of one agent run; exhausting any of them forces a final answer from what was read. */
export interface AgentBudgets {
  /** Rounds in which the model may call tools. */
  maxRounds: number;
  /** Characters of passage text the tools may return in all. */
  maxReadChars: number;
  /** Characters of passage text one tool call may return. */
  maxCharsPerCall: number;
  /** Wall-clock limit for the whole run, covering every request. */
  deadlineMs: number;
}

/**
 * Six rounds cover toc → search → read → read on → switch chapter → answer; 16k characters is a long section. The
 * deadline has no default here: it is the configuration's `llm.deadlineMs`, passed in.
 */
export const DEFAULT_AGENT_BUDGETS: Omit<AgentBudgets, 'deadlineMs'> = { maxRounds: 6, maxReadChars: 16_000, maxCharsPerCall: 4_000 };

/** One step of the trace (`ask --agent --json` prints them). */
export interface AgentTraceStep {
  round: number;
  tool: string;
  arguments: unknown;
  /** Passages the call returned. */
  chunk_ids: string[];
  ms: number;
  /** The refusal the model was shown (bad arguments, unknown tool). */
  error?: string;
  /** A repeated identical call, answered from memory. */
  repeated?: boolean;
}

/** The agent's final answer, validated: letters against the options, citations against what the tools returned. */
export interface AgentAnswer {
  answer: string;
  confidence: number;
  /** Chunk ids, each returned by a tool during the run. */
  evidenceIds: string[];
  status: 'answered' | 'no_evidence' | 'off_topic' | 'conflict';
  explanation: string;
  /**
   * One verdict per option and statement, checked: a verdict citing a chunk no tool returned, or quoting text not
   * verbatim in it, is `not_found` (counted in `warnings`).
   */
  verdicts: OptionVerdict[];
  trace: AgentTraceStep[];
  protocol: 'native' | 'simulated';
  rounds: number;
  usage: { promptTokens: number; completionTokens: number };
  /** Non-fatal problems: a repaired answer, a forced answer on budget exhaustion, a protocol switch. */
  warnings: string[];
}

/** The agent could not produce a usable answer; the caller falls back to the one-shot pipeline. */
export class AgentFailure extends Error {
  constructor(
    message: string,
    readonly trace: AgentTraceStep[],
  ) {
    super(message);
    this.name = 'AgentFailure';
  }
}

/** The agent's prompt files in `prompts/`. */
export interface AgentPrompts {
  native: PromptTemplate;
  simulated: PromptTemplate;
  budget: PromptTemplate;
  repair: PromptTemplate;
}

/** Reads `agent.md`, `agent-simulated.md`, `agent-budget.md` and `agent-repair.md` from a prompts folder. */
export function loadAgentPrompts(dir: string): AgentPrompts {
  return {
    native: readPrompt(dir, 'agent'),
    simulated: readPrompt(dir, 'agent-simulated'),
    budget: readPrompt(dir, 'agent-budget'),
    repair: readPrompt(dir, 'agent-repair'),
  };
}

const finalSchema = z.object({
  answer: z.string().catch(''),
  confidence: z.coerce.number().min(0).max(1).catch(0.5),
  evidence_ids: z.array(z.coerce.string()).catch([]).default([]),
  status: z.enum(['answered', 'no_evidence', 'off_topic', 'conflict']).catch('answered').default('answered'),
  explanation: z.string().catch('').default(''),
  verdicts: rawVerdictsSchema,
});

export interface RunAgentOptions {
  model: ToolChatModel;
  tools: Omit<ToolContext, 'maxCharsPerCall'>;
  prompts: AgentPrompts;
  /** The exam the prompts name (config `exam.name`). */
  examName: string;
  /** The deadline (`llm.deadlineMs`) and any other budget that differs from `DEFAULT_AGENT_BUDGETS`. */
  budgets: Partial<AgentBudgets> & Pick<AgentBudgets, 'deadlineMs'>;
  /** Injected clock for tests of the trace timings. */
  now?: () => number;
}

/** Tool arguments as the trace shows them: native calls send a JSON string, shown as the object it encodes. */
function readableArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** A stable key for a tool call, so an identical repeat is answered from memory. */
function callKey(name: string, args: unknown): string {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      return `${name}:${args}`;
    }
  }
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return `${name}:${JSON.stringify(sort(value))}`;
}

/**
 * Answers one question by letting the model read the books with tools (TOC first, then search and read), then
 * checks its final answer: option letters must exist, and every cited chunk id must have been returned by a tool.
 * An unusable answer gets one repair round. Budgets (rounds, characters read, a wall-clock deadline) force a
 * final answer from what was read; an identical repeated call is answered from memory and counted. Throws
 * `AgentFailure` (with the trace) when no usable answer comes, and `LlmError` when the endpoint fails.
 */
export async function runAgent(question: ParsedQuestion, options: RunAgentOptions): Promise<AgentAnswer> {
  const budgets: AgentBudgets = { ...DEFAULT_AGENT_BUDGETS, ...options.budgets };
  const now = options.now ?? Date.now;
  // The same per-question deadline as the one-shot LLM path: one budget covers every request of the run.
  const deadline = createDeadline(budgets.deadlineMs);
  const warnings: string[] = [];
  try {
    try {
      return await converse(question, options, budgets, deadline, now, warnings);
    } catch (error) {
      if (!(error instanceof ToolsUnsupportedError)) throw error;
      // The endpoint rejected `tools`: the model now speaks the simulated protocol; start the reading over.
      warnings.push(error.message);
      return await converse(question, options, budgets, deadline, now, warnings);
    }
  } catch (error) {
    // The transport's own timeout already says how long it waited; anything else cut by the deadline says so here.
    if (deadline.expired() && error instanceof LlmError && error.kind !== 'timeout') {
      throw new LlmError('timeout', `${error.message}: no reply within ${formatSeconds(budgets.deadlineMs)}`);
    }
    throw error;
  }
}

async function converse(
  question: ParsedQuestion,
  options: RunAgentOptions,
  budgets: AgentBudgets,
  deadline: Deadline,
  now: () => number,
  warnings: string[],
): Promise<AgentAnswer> {
  const { model } = options;
  const protocol = model.protocol;
  const template = protocol === 'native' ? options.prompts.native : options.prompts.simulated;
  const values = { ...questionValues(question), exam_name: options.examName, tools: describeTools(AGENT_TOOLS) };
  const messages: AgentMessage[] = [
    { role: 'system', content: fillTemplate(template.system, values) },
    { role: 'user', content: fillTemplate(template.user, values) },
  ];
  const ctx: ToolContext = { ...options.tools, maxCharsPerCall: budgets.maxCharsPerCall };
  const returned = new Set<string>();
  const memory = new Map<string, ToolOutcome>();
  const trace: AgentTraceStep[] = [];
  const usage = { promptTokens: 0, completionTokens: 0 };
  let readChars = 0;
  let toolRounds = 0;
  let repeats = 0;
  let forced: string | null = null;
  let repaired = false;

  const force = (reason: string): void => {
    if (forced !== null) return;
    forced = reason;
    warnings.push(`the agent's budget ran out (${reason}); it answered from what it had read`);
    messages.push({ role: 'user', content: fillTemplate(options.prompts.budget.user, { reason }) });
  };

  for (let round = 1; round <= budgets.maxRounds + 3; round++) {
    if (forced === null) {
      if (toolRounds >= budgets.maxRounds) force(`${budgets.maxRounds} rounds`);
      else if (readChars >= budgets.maxReadChars) force(`${budgets.maxReadChars} characters read`);
      // Keep a fifth of the time for the final answer.
      else if (deadline.remaining() < budgets.deadlineMs * 0.2) force('time');
    }
    const allowTools = forced === null;
    const turn: ModelTurn = await model.turn({ messages, tools: AGENT_TOOLS, allowTools, deadline });
    usage.promptTokens += turn.usage.promptTokens;
    usage.completionTokens += turn.usage.completionTokens;

    let calls: AgentToolCall[] = turn.toolCalls;
    let finalValue: Record<string, unknown> | null = null;
    let problem: string | null = null;
    if (protocol === 'simulated') {
      const reply = readReply(turn.content);
      if (reply.kind === 'call') calls = [{ id: `call_${round}`, name: reply.name, arguments: reply.arguments }];
      else if (reply.kind === 'final') finalValue = reply.value;
      else problem = reply.problem;
    } else if (calls.length === 0) {
      const reply = readReply(turn.content);
      if (reply.kind === 'final') finalValue = reply.value;
      else problem = reply.kind === 'call' ? 'tool calls go through the tools API, not the message text' : reply.problem;
    }

    if (calls.length > 0) {
      if (!allowTools) {
        problem = 'tools are no longer available';
      } else {
        toolRounds++;
        messages.push({
          role: 'assistant',
          content: protocol === 'simulated' ? stripThinking(turn.content) : turn.content,
          toolCalls: calls,
        });
        for (const call of calls) {
          const key = callKey(call.name, call.arguments);
          const t0 = now();
          const remembered = memory.get(key);
          const outcome = remembered ?? (await runTool(call.name, call.arguments, ctx));
          if (remembered) repeats++;
          else memory.set(key, outcome);
          for (const id of outcome.chunkIds) returned.add(id);
          if (!remembered) readChars += outcome.chars;
          const content = remembered
            ? JSON.stringify({
                note: 'identical call already answered; here is the same result again',
                result: JSON.parse(outcome.content) as unknown,
              })
            : outcome.content;
          messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
          trace.push({
            round,
            tool: call.name,
            arguments: readableArguments(call.arguments),
            chunk_ids: outcome.chunkIds,
            ms: Math.max(0, now() - t0),
            ...(outcome.error ? { error: outcome.error } : {}),
            ...(remembered ? { repeated: true } : {}),
          });
        }
        // A model that keeps repeating itself is stuck: make it answer.
        if (repeats >= 2) force('repeated identical calls');
        continue;
      }
    }

    if (finalValue !== null) {
      const parsed = finalSchema.safeParse(finalValue);
      if (!parsed.success) problem = 'the final JSON object does not have the answer fields';
      else {
        const letters = validateLetters(question, parsed.data);
        const ids = [...new Set(parsed.data.evidence_ids)];
        const invented = ids.filter((id) => !returned.has(id));
        if ('problem' in letters) problem = letters.problem;
        else if (invented.length > 0) problem = `evidence_ids ${invented.join(', ')} were never returned by a tool`;
        else if (parsed.data.status === 'answered' && ids.length === 0 && question.kind !== 'open')
          problem = 'the answer cites no evidence_ids';
        else {
          if (repaired) warnings.push('the first final answer was unusable; the repair round fixed it');
          // A verdict may rest only on a passage a tool returned during this run, as the citations do.
          const judged = checkVerdicts(question, parsed.data.verdicts, (id) => (returned.has(id) ? ctx.retriever.chunk(id) : undefined));
          if (judged.warning) warnings.push(judged.warning);
          return {
            answer: letters.answer,
            confidence: parsed.data.confidence,
            evidenceIds: ids,
            status: parsed.data.status,
            explanation: parsed.data.explanation,
            verdicts: judged.verdicts,
            trace,
            protocol,
            rounds: round,
            usage,
            warnings,
          };
        }
      }
    }
    if (repaired) throw new AgentFailure(`the agent's answer was unusable after a repair round (${problem ?? 'no answer'})`, trace);
    repaired = true;
    messages.push(
      { role: 'assistant', content: stripThinking(turn.content).slice(0, 2000) },
      { role: 'user', content: fillTemplate(options.prompts.repair.user, { problem: problem ?? 'no answer' }) },
    );
    forced ??= 'repair';
  }
  throw new AgentFailure('the agent gave no final answer within its rounds', trace);
}

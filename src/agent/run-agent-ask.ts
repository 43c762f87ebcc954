import type { AnswerResult, EvidenceItem, ParsedQuestion } from '../answer/answer-types.js';
import { toEvidence } from '../answer/evidence.js';
import { createLlmClient, LlmError } from '../answer/llm-client.js';
import { llmReplyResult, replyOutcome } from '../answer/llm-reply-result.js';
import { buildCorpusStats, corpusStatsFromIndex, type CorpusStats } from '../answer/corpus-stats.js';
import { checkAgainstClauses } from '../answer/verdict-check.js';
import type { Analyzer } from '../text/analyzer.js';
import { parseQuestion } from '../answer/parse-question.js';
import { openAskSession, type AskResult, type AskSession } from '../answer/run-ask.js';
import { describeEndpoint, redactSecrets, type ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError } from '../errors.js';
import { projectPaths } from '../paths.js';
import { openRetriever, type OpenedRetriever } from '../retrieve/open-retriever.js';
import { runToc } from '../retrieve/run-toc.js';
import type { Hit, Warning } from '../types.js';
import { AgentFailure, loadAgentPrompts, runAgent, type AgentAnswer, type AgentBudgets, type AgentTraceStep } from './run-agent.js';
import { createToolChatModel, type ToolChatModel } from './tool-chat-model.js';

/** What the agent adds to an answer: the steps it took and how it called tools. */
export interface AgentReport {
  trace: AgentTraceStep[];
  protocol: 'native' | 'simulated';
  rounds: number;
}

/** An answer made by the agent, or by the fallback after it failed (then `agent.trace` shows how far it got). */
export interface AgentAskResult extends AskResult {
  agent: AgentReport;
}

export interface AgentSessionOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Evidence passages for the one-shot fallback, as `ask --top-k`. */
  topK: number;
  /** Use the response cache (`--no-cache` turns it off). */
  cache: boolean;
  /** `native`, `simulated` or `auto` (default: native, switching once when the endpoint rejects tools). */
  tools?: 'native' | 'simulated' | 'auto';
  budgets?: Partial<AgentBudgets>;
  /** The exam the prompts name; default `config.exam.name`. */
  examName?: string;
  /**
   * An index opened by the caller and shared (the web server's, per index generation); the session neither reopens
   * nor closes it. Without it the session opens one, which its tools and its one-shot fallback share.
   */
  retriever?: OpenedRetriever;
}

/** An open agent: the index, the outline, the tool model, and the one-shot session it falls back to. */
export interface AgentSession extends AskSession {
  answer(question: ParsedQuestion): Promise<AgentAskResult>;
  ask(text: string, options?: Record<string, string>): Promise<AgentAskResult>;
}

/** The agent's answer as an AnswerResult: cited chunks become evidence items; statuses map as in the one-shot path. */
function toAnswerResult(
  question: ParsedQuestion,
  reply: AgentAnswer,
  chunkOf: (id: string) => Hit['chunk'] | undefined,
  started: number,
): AnswerResult {
  const evidence: EvidenceItem[] = [];
  const context: Hit[] = [];
  for (const id of reply.evidenceIds) {
    const chunk = chunkOf(id);
    if (!chunk) continue;
    evidence.push(toEvidence(chunk));
    context.push({ chunk, score: 1 });
  }
  return llmReplyResult({ question, reply, outcome: replyOutcome(reply, evidence), evidence, context, mode: 'agent', started });
}

/**
 * Opens the agent for one or many questions. It needs an LLM endpoint (NotReadyError, exit 5, otherwise). Every
 * failure ends in the usual fallbacks, marked in `fallback` and `message`: the one-shot pipeline (retrieve, rerank,
 * answer with the LLM), and below it the offline answerer.
 */
export async function openAgentSession(options: AgentSessionOptions): Promise<AgentSession> {
  const { root, config } = options;
  if (!config.llm) {
    throw new NotReadyError(
      'ask --agent needs an LLM endpoint: set EXAM_COPILOT_LLM_MODEL (and EXAM_COPILOT_LLM_BASE_URL / EXAM_COPILOT_LLM_API_KEY)',
    );
  }
  const llmConfig = config.llm;
  const paths = projectPaths(root);
  const prompts = loadAgentPrompts(paths.prompts);
  const outline = runToc({ root }).entries;
  const owned = options.retriever === undefined;
  const retriever = options.retriever ?? (await openRetriever({ root, config }));
  let model: ToolChatModel | null = null;
  let oneShot: AskSession | null = null;
  try {
    // The one LLM transport, as the one-shot path uses it (bounds, breaker, redaction, the response cache).
    const llm = createLlmClient({ endpoint: llmConfig, cachePath: options.cache ? paths.llmCache : null, noCache: !options.cache });
    model = createToolChatModel({ llm, tools: options.tools ?? 'auto', ownsClient: true });
    oneShot = await openAskSession({
      root,
      config,
      mode: 'hybrid',
      topK: options.topK,
      rerank: true,
      cache: options.cache,
      answerer: 'llm',
      retriever,
    });
  } catch (error) {
    model?.close();
    if (owned) retriever.close();
    throw error;
  }
  const tools = model;
  const fallbackSession = oneShot;
  const endpoint = describeEndpoint(config.llm);
  // The fallback answers from the same index, so its warnings (the same dictionary's) are the retriever's.
  const warnings: Warning[] = [...retriever.warnings];

  // The corpus statistics the clause check weighs words by, built at the first answer from what the index stored.
  let corpus: { analyzer: Analyzer; stats: CorpusStats } | null = null;
  const answer = async (question: ParsedQuestion): Promise<AgentAskResult> => {
    const started = Date.now();
    try {
      const reply = await runAgent(question, {
        model: tools,
        tools: { retriever, outline },
        prompts,
        examName: options.examName ?? config.exam.name,
        budgets: { deadlineMs: llmConfig.deadlineMs, ...options.budgets },
      });
      // The letter is checked against what its own cited passages say, clause by clause, independently of the model.
      corpus ??= {
        analyzer: retriever.analyzer,
        stats: retriever.corpusFrequency
          ? corpusStatsFromIndex(retriever.size, retriever.corpusFrequency)
          : buildCorpusStats(retriever.chunks, retriever.analyzer),
      };
      const result = checkAgainstClauses(
        toAnswerResult(question, reply, (id) => retriever.chunk(id), started),
        corpus,
      );
      return { result, endpoint, warnings: [], agent: { trace: reply.trace, protocol: reply.protocol, rounds: reply.rounds } };
    } catch (error) {
      if (!(error instanceof AgentFailure) && !(error instanceof LlmError)) throw error;
      const reason = redactSecrets(error.message, config);
      const out = await fallbackSession.answer(question);
      const r = out.result;
      r.fallback = r.fallback === 'llm_failed' ? 'llm_failed' : 'agent_failed';
      r.message = `agent failed (${reason}); ${r.fallback === 'llm_failed' ? 'the one-shot LLM pipeline failed too, so the offline answer is shown' : 'answered by the one-shot pipeline'}${r.message ? `. ${r.message}` : ''}`;
      const trace = error instanceof AgentFailure ? error.trace : [];
      return {
        ...out,
        agent: { trace, protocol: tools.protocol, rounds: trace.length === 0 ? 0 : Math.max(...trace.map((t) => t.round)) },
      };
    }
  };

  return {
    answerer: 'llm',
    warnings,
    answer,
    ask: (text, opts) => answer(parseQuestion(text, opts ? { options: opts } : {})),
    close() {
      tools.close();
      fallbackSession.close();
      if (owned) retriever.close();
    },
  };
}

/** `exam-copilot ask --agent "<question>"`: one question through the agent. */
export async function runAgentAsk(
  options: AgentSessionOptions & { question: string; options?: Record<string, string> },
): Promise<AgentAskResult> {
  const parsed = parseQuestion(options.question, options.options ? { options: options.options } : {});
  const session = await openAgentSession(options);
  try {
    const out = await session.answer(parsed);
    return { ...out, warnings: [...session.warnings, ...out.warnings] };
  } finally {
    session.close();
  }
}

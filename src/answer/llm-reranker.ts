import { applyExamPriority } from '../retrieve/exam-priority.js';
import { formatCitation } from '../text/citation.js';
import type { Analyzer } from '../text/analyzer.js';
import type { Hit } from '../types.js';
import type { LlmClient } from './llm-client.js';
import type { Deadline } from './llm-deadline.js';
import type { PromptTemplate } from './prompt-templates.js';
import { evidenceFence, fillTemplate } from './prompt-templates.js';

/**
 * Listwise LLM reranking in the style of RankGPT (Sun et al. 2023, "Is ChatGPT Good at Search?"):
 * the model sees numbered passages and replies with a permutation `[2] > [1] > [3]`. Lists longer
 * than the window are ranked with a sliding window from the bottom up, so strong passages bubble to the
 * top. Unknown or repeated numbers are ignored and passages the model left out keep their order.
 */

export interface RerankOptions {
  llm: LlmClient;
  prompt: PromptTemplate;
  /** Passages per LLM call (default 10). */
  window?: number;
  /** Window step (default half the window). */
  step?: number;
  /** Characters of each passage shown to the model (default 400). */
  passageChars?: number;
  /** The question's LLM deadline, shared with the answer call. */
  deadline?: Deadline;
}

export interface RerankResult {
  hits: Hit[];
  warnings: string[];
  usage: { promptTokens: number; completionTokens: number };
}

/** Reads a permutation from `[2] > [1] > [3]`, `2 > 1 > 3`, `{"ranking":[2,1,3]}` or `[2,1,3]`; 1-based numbers. */
export function parseRanking(text: string, count: number): { order: number[]; unknown: number[] } {
  let numbers: number[] = [];
  const trimmed = text.trim();
  try {
    const parsed: unknown = JSON.parse(trimmed.replace(/^```(?:json)?\s*|\s*```$/g, ''));
    const arr = Array.isArray(parsed)
      ? parsed
      : typeof parsed === 'object' && parsed !== null
        ? (Object.values(parsed).find(Array.isArray) as unknown[] | undefined)
        : undefined;
    if (arr) numbers = arr.map((x) => Number(x)).filter((x) => Number.isInteger(x));
  } catch {
    numbers = [...trimmed.matchAll(/\d+/g)].map((m) => Number(m[0]));
  }
  const order: number[] = [];
  const unknown: number[] = [];
  for (const n of numbers) {
    if (n < 1 || n > count) unknown.push(n);
    else if (!order.includes(n)) order.push(n);
  }
  for (let i = 1; i <= count; i++) if (!order.includes(i)) order.push(i);
  return { order, unknown };
}

async function rankWindow(
  hits: Hit[],
  query: string,
  options: RerankOptions,
  warnings: string[],
  usage: RerankResult['usage'],
): Promise<Hit[]> {
  const chars = options.passageChars ?? 400;
  const passages = hits
    .map(
      (h, i) =>
        `[${i + 1}] ${formatCitation({ ...h.chunk, page_start: '', page_end: '' })}\n${h.chunk.text.replace(/\s+/g, ' ').slice(0, chars)}`,
    )
    .join('\n\n');
  const values = { query, passages, count: String(hits.length), fence: evidenceFence(passages, 'passages') };
  // Cache a ranking only when it names at least one passage that was shown.
  const accept = (content: string): boolean => {
    const { order, unknown } = parseRanking(content, hits.length);
    const named = [...content.matchAll(/\d+/g)].length - unknown.length;
    return order.length === hits.length && named > 0;
  };
  const reply = await options.llm.chat(
    {
      messages: [
        { role: 'system', content: fillTemplate(options.prompt.system, values) },
        { role: 'user', content: fillTemplate(options.prompt.user, values) },
      ],
      temperature: 0,
      maxTokens: 20 + hits.length * 6,
    },
    { accept, ...(options.deadline ? { deadline: options.deadline } : {}) },
  );
  usage.promptTokens += reply.usage.promptTokens;
  usage.completionTokens += reply.usage.completionTokens;
  const { order, unknown } = parseRanking(reply.content, hits.length);
  if (unknown.length > 0) warnings.push(`rerank: ignored passage numbers not shown to the model: ${unknown.join(', ')}`);
  return order.map((n) => hits[n - 1] as Hit);
}

/**
 * Reorders hits with the LLM. Scores are replaced by rank-based scores (1, 1/2, 1/3…), higher is better.
 * Errors from the LLM propagate (the caller decides whether to fall back to the retriever's order).
 */
export async function rerankWithLlm(query: string, hits: readonly Hit[], options: RerankOptions): Promise<RerankResult> {
  const window = Math.max(2, options.window ?? 10);
  const step = Math.max(1, options.step ?? Math.floor(window / 2));
  const warnings: string[] = [];
  const usage = { promptTokens: 0, completionTokens: 0 };
  const list = [...hits];
  if (list.length <= 1) return { hits: list, warnings, usage };
  if (list.length <= window) {
    const ranked = await rankWindow(list, query, options, warnings, usage);
    return { hits: ranked.map((h, i) => ({ chunk: h.chunk, score: 1 / (i + 1) })), warnings, usage };
  }
  // Sliding windows from the end to the start (RankGPT), each re-sorting its slice in place.
  let end = list.length;
  for (;;) {
    const start = Math.max(0, end - window);
    const ranked = await rankWindow(list.slice(start, end), query, options, warnings, usage);
    list.splice(start, ranked.length, ...ranked);
    if (start === 0) break;
    end -= step;
  }
  return { hits: list.map((h, i) => ({ chunk: h.chunk, score: 1 / (i + 1) })), warnings, usage };
}

/**
 * The seed design's rule priorities, applied after any reranking: a passage whose section (or
 * chapter) heading matches the question moves up, and for figure/table questions the table
 * transcriptions are boosted and a named figure reference goes first (`applyExamPriority`).
 */
export function applyRulePriorities(query: string, hits: readonly Hit[], analyzer: Analyzer): Hit[] {
  const queryTokens = new Set(analyzer.tokens(query));
  const boosted = hits.map((hit) => {
    const heading = analyzer.tokens(`${hit.chunk.section} ${hit.chunk.subsection}`).filter((t) => t.length >= 2);
    const matched = heading.filter((t) => queryTokens.has(t)).length;
    // Half of the heading's words in the question counts as "the question names this section".
    const sectionMatch = heading.length > 0 && matched / heading.length >= 0.5;
    return { chunk: hit.chunk, score: sectionMatch ? hit.score * 1.5 : hit.score };
  });
  return applyExamPriority(query, boosted);
}

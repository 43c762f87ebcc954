import { z } from 'zod';
import type { Hit } from '../types.js';
import type { OptionVerdict, ParsedQuestion } from './answer-types.js';
import { citation, toEvidence } from './evidence.js';
import type { ChatMessage, ChatResult, LlmClient, ResponseFormat } from './llm-client.js';
import { LlmError } from './llm-error.js';
import type { Deadline } from './llm-deadline.js';
import { checkVerdicts, noVerdicts, rawVerdictsSchema, VERDICTS_JSON_SCHEMA } from './llm-verdicts.js';
import type { PromptSet } from './prompt-templates.js';
import { evidenceFence, fillTemplate } from './prompt-templates.js';

/**
 * Asks the LLM for a structured answer over numbered evidence. Structured output is negotiated per
 * endpoint: `json_schema` first, then `json_object` when the endpoint rejects it, then plain text read
 * tolerantly (`Answer: B` / `答案：B` lines). An unusable reply gets one repair request; a second
 * unusable reply is an `LlmError('malformed')`. Evidence is fenced as data in the prompt by a tag derived from
 * its own hash (`evidenceFence`), so no text inside it can close the fence; only replies that parsed and
 * validated are cached.
 */

/** The exam the prompts name when the config does not say (`exam.name`). */
export const DEFAULT_EXAM_NAME = '基金从业资格';

export type LlmStatus = 'answered' | 'no_evidence' | 'off_topic' | 'conflict';

export interface LlmAnswer {
  answer: string;
  confidence: number;
  /** 1-based numbers of the evidence shown, validated. */
  evidenceIds: number[];
  /** Cited numbers that were not shown (the LLM invented them); dropped from `evidenceIds`. */
  invalidIds: number[];
  status: LlmStatus;
  explanation: string;
  /**
   * One verdict per option and statement, checked: those citing evidence that was not shown, or quoting text not
   * verbatim in the cited passage, are `not_found` (counted in `warnings`).
   */
  verdicts: OptionVerdict[];
  warnings: string[];
  usage: { promptTokens: number; completionTokens: number };
}

const replySchema = z.object({
  answer: z.string(),
  confidence: z.coerce.number().min(0).max(1).catch(0.5),
  evidence_ids: z.array(z.coerce.number().int()).catch([]).default([]),
  status: z.enum(['answered', 'no_evidence', 'off_topic', 'conflict']).catch('answered').default('answered'),
  explanation: z.string().catch('').default(''),
  verdicts: rawVerdictsSchema,
});

/** JSON schema of the baseline reply, sent as `response_format` (strict mode: every property required, nothing else allowed). */
export const BASELINE_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    answer: { type: 'string', description: 'option letters, e.g. "B" or "ABD"; "" when not answerable' },
    confidence: { type: 'number' },
    evidence_ids: { type: 'array', items: { type: 'integer' } },
    status: { type: 'string', enum: ['answered', 'no_evidence', 'off_topic', 'conflict'] },
    explanation: { type: 'string' },
  },
  required: ['answer', 'confidence', 'evidence_ids', 'status', 'explanation'],
  additionalProperties: false,
};

/** JSON schema of the reply over evidence: the baseline's fields plus one verdict per option and statement. */
export const ANSWER_JSON_SCHEMA: Record<string, unknown> = {
  ...BASELINE_JSON_SCHEMA,
  properties: { ...(BASELINE_JSON_SCHEMA.properties as Record<string, unknown>), verdicts: VERDICTS_JSON_SCHEMA },
  required: [...(BASELINE_JSON_SCHEMA.required as string[]), 'verdicts'],
};

/** Output tokens for a reply: the letters and a sentence, and over evidence a verdict with a quote per option. */
const BASELINE_MAX_TOKENS = 600;
const ANSWER_MAX_TOKENS = 1600;

const KIND_LABEL: Record<ParsedQuestion['kind'], string> = {
  single: '单选题',
  multi: '多选题',
  judge: '判断题',
  combination: '组合型选择题',
  open: '问答题',
};

function kindRule(q: ParsedQuestion): string {
  const neg = q.negated
    ? ' The question asks for the INCORRECT / excluded option: choose the option the evidence does NOT support or contradicts.'
    : '';
  switch (q.kind) {
    case 'multi':
      return `This is a multi-select question: "answer" lists every correct letter in order, e.g. "ABD".${neg}`;
    case 'combination':
      return `Judge each numbered statement, then answer with the ONE option letter whose set of statements matches.${neg}`;
    case 'judge':
      return 'This is a true/false question: answer with the letter of 正确 or 错误.';
    case 'open':
      return 'There are no options: set "answer" to "" and put the answer in "explanation", citing evidence.';
    default:
      return `Exactly one option is correct: "answer" is one letter.${neg}`;
  }
}

/** Numbered evidence as shown to the model: `[1] book | chapter | section | figure | p.N` then the text. */
export function formatEvidence(hits: readonly Hit[], maxChars = 900): string {
  return hits
    .map((h, i) => {
      const text = h.chunk.text.replace(/\s+/g, ' ').trim();
      return `[${i + 1}] ${citation(toEvidence(h.chunk))}\n${text.length > maxChars ? `${text.slice(0, maxChars)}…` : text}`;
    })
    .join('\n\n');
}

/** The placeholders every answer prompt fills: question kind, the rule for that kind, stem, statements and options. */
export function questionValues(q: ParsedQuestion): Record<string, string> {
  return {
    kind_label: KIND_LABEL[q.kind],
    kind_rule: kindRule(q),
    stem: q.stem,
    statements: q.statements.map((s) => `${s.label}. ${s.text}`).join('\n'),
    options: q.options.map((o) => `${o.letter}. ${o.text}`).join('\n') || '（无选项）',
  };
}

/** Extracts an answer from a reply: a JSON object anywhere in it, else `Answer:` / `答案：` lines. */
export function parseAnswerReply(content: string): { value: z.infer<typeof replySchema> } | { problem: string } {
  const text = content.trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const parsed = replySchema.safeParse(JSON.parse(text.slice(start, end + 1)));
      if (parsed.success) return { value: parsed.data };
      return { problem: `the JSON did not match the schema (${parsed.error.issues[0]?.message ?? 'invalid'})` };
    } catch {
      // fall through to line parsing
    }
  }
  const answer = /(?:answer|答案)\s*[:：]\s*([A-Ha-h](?:[\s,，、]*[A-Ha-h])*)\b/i.exec(text);
  if (answer) {
    const conf = /(?:confidence|置信度|信心)\s*[:：]\s*([0-9.]+)/i.exec(text);
    const ev = /(?:evidence|证据|依据)\s*[:：]\s*([^\n]*)/i.exec(text);
    const confidence = conf ? Number(conf[1]) : 0.5;
    return {
      value: {
        answer: (answer[1] ?? '').replace(/[^A-Ha-h]/g, ''),
        confidence: Number.isFinite(confidence) && confidence >= 0 && confidence <= 1 ? confidence : 0.5,
        evidence_ids: ev ? [...(ev[1] ?? '').matchAll(/\d+/g)].map((m) => Number(m[0])) : [],
        status: 'answered',
        explanation: '',
        verdicts: [],
      },
    };
  }
  if (start >= 0 && end <= start) return { problem: 'the JSON object was cut off' };
  return { problem: 'no JSON object and no "Answer:" line found' };
}

/** Checks letters against the question (the one-shot answer and the agent's); returns the normalised answer or a problem. */
export function validateLetters(q: ParsedQuestion, value: { answer: string; status: string }): { answer: string } | { problem: string } {
  const letters = [
    ...new Set(
      value.answer
        .toUpperCase()
        .replace(/[^A-H]/g, '')
        .split(''),
    ),
  ]
    .sort()
    .join('');
  if (value.status === 'no_evidence' || value.status === 'off_topic' || q.kind === 'open')
    return { answer: q.kind === 'open' ? '' : letters };
  if (letters === '') return { problem: 'the answer has no option letter' };
  const allowed = new Set(q.options.map((o) => o.letter));
  const bad = letters.split('').filter((l) => !allowed.has(l));
  if (bad.length > 0) return { problem: `the answer names options that do not exist: ${bad.join(', ')}` };
  if (q.kind !== 'multi' && letters.length !== 1) return { problem: `this question takes exactly one letter, got "${letters}"` };
  return { answer: letters };
}

const FORMATS: ReadonlyArray<'json_schema' | 'json_object' | 'text'> = ['json_schema', 'json_object', 'text'];

function responseFormat(kind: 'json_schema' | 'json_object' | 'text', baseline: boolean): ResponseFormat {
  if (kind === 'json_schema')
    return { type: 'json_schema', name: 'exam_answer', schema: baseline ? BASELINE_JSON_SCHEMA : ANSWER_JSON_SCHEMA };
  return kind === 'json_object' ? { type: 'json_object' } : { type: 'text' };
}

/** Sends messages, stepping down the structured-output ladder when the endpoint rejects a format. */
async function chatStructured(
  llm: LlmClient,
  messages: ChatMessage[],
  deadline: Deadline | undefined,
  accept: (content: string) => boolean,
  baseline: boolean,
): Promise<ChatResult> {
  for (let i = FORMATS.indexOf(llm.structuredOutput); i < FORMATS.length; i++) {
    const format = FORMATS[i] ?? 'text';
    try {
      const request = {
        messages,
        temperature: 0,
        maxTokens: baseline ? BASELINE_MAX_TOKENS : ANSWER_MAX_TOKENS,
        ...(format === 'text' ? {} : { responseFormat: responseFormat(format, baseline) }),
      };
      return await llm.chat(request, { accept, ...(deadline ? { deadline } : {}) });
    } catch (error) {
      if (error instanceof LlmError && error.kind === 'response_format' && i + 1 < FORMATS.length) {
        llm.structuredOutput = FORMATS[i + 1] ?? 'text';
        continue;
      }
      throw error;
    }
  }
  throw new LlmError('bad_request', 'the endpoint rejected every output format');
}

/**
 * Answers with the LLM. `hits` are the evidence shown (empty for baseline mode). Throws `LlmError` on
 * failure after retries and after the one repair attempt.
 */
export async function answerWithLlm(
  question: ParsedQuestion,
  hits: readonly Hit[],
  options: { llm: LlmClient; prompts: PromptSet; baseline: boolean; deadline?: Deadline; examName?: string },
): Promise<LlmAnswer> {
  const template = options.baseline ? options.prompts.baseline : options.prompts.answer;
  const evidence = formatEvidence(hits);
  const values = {
    ...questionValues(question),
    evidence,
    fence: evidenceFence(evidence),
    exam_name: options.examName ?? DEFAULT_EXAM_NAME,
  };
  // Only a reply that parses and names valid options is cached, so a replay never serves junk.
  const accept = (content: string): boolean => {
    const parsed = parseAnswerReply(content);
    return 'value' in parsed && 'answer' in validateLetters(question, parsed.value);
  };
  const messages: ChatMessage[] = [
    { role: 'system', content: fillTemplate(template.system, values) },
    { role: 'user', content: fillTemplate(template.user, values) },
  ];
  const usage = { promptTokens: 0, completionTokens: 0 };
  const warnings: string[] = [];
  let problem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    let reply: ChatResult;
    try {
      reply = await chatStructured(options.llm, messages, options.deadline, accept, options.baseline);
    } catch (error) {
      // A garbled HTTP body is worth the one repair attempt too; anything else is final.
      if (error instanceof LlmError && error.kind === 'malformed' && attempt === 0) {
        problem = error.message;
        continue;
      }
      throw error;
    }
    usage.promptTokens += reply.usage.promptTokens;
    usage.completionTokens += reply.usage.completionTokens;
    const parsed = parseAnswerReply(reply.content);
    let checked: { answer: string } | { problem: string } = 'problem' in parsed ? parsed : validateLetters(question, parsed.value);
    if (reply.finishReason === 'length' && 'problem' in checked)
      checked = { problem: `the reply was cut off (finish_reason=length): ${checked.problem}` };
    if ('answer' in checked && 'value' in parsed) {
      const shown = hits.length;
      const ids = [...new Set(parsed.value.evidence_ids)];
      const valid = ids.filter((n) => n >= 1 && n <= shown);
      const dropped = ids.filter((n) => n < 1 || n > shown);
      if (dropped.length > 0) warnings.push(`the LLM cited evidence that was not shown (${dropped.join(', ')}); ignored`);
      if (attempt > 0) warnings.push(`the first LLM reply was unusable (${problem}); the repair request succeeded`);
      // Verdict ids are evidence numbers, as the citations are: only the numbers shown name a passage.
      const judged = options.baseline
        ? { verdicts: noVerdicts(question), warning: undefined }
        : checkVerdicts(question, parsed.value.verdicts, (id) => {
            // `1` or `[1]`, as the evidence is numbered in the prompt.
            const n = /^\[?(\d+)\]?$/.exec(id)?.[1];
            return n === undefined ? undefined : hits[Number(n) - 1]?.chunk;
          });
      if (judged.warning) warnings.push(judged.warning);
      return {
        answer: checked.answer,
        confidence: parsed.value.confidence,
        evidenceIds: valid,
        invalidIds: dropped,
        status: parsed.value.status,
        explanation: parsed.value.explanation,
        verdicts: judged.verdicts,
        warnings,
        usage,
      };
    }
    problem = 'problem' in checked ? checked.problem : 'unusable reply';
    messages.push(
      { role: 'assistant', content: reply.content.slice(0, 2000) },
      { role: 'user', content: fillTemplate(`${options.prompts.repair.system}\n${options.prompts.repair.user}`.trim(), { problem }) },
    );
  }
  throw new LlmError('malformed', `the LLM reply was unusable twice (${problem})`);
}

import { z } from 'zod';
import type { AnswerMode } from '../answer/answer-types.js';
import { errorMessage } from '../errors.js';
import { chunkFilter } from '../retrieve/parse-chunk-filter.js';
import type { RetrievalMode } from '../retrieve/retriever.js';
import type { Chunk, ChunkFilter } from '../types.js';
import { RequestError } from './guards.js';
import type { WebAnswerer } from './serve-context.js';

/** Largest request body accepted (a question with options is a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Longest question accepted, in characters (a long case-study stem with options fits comfortably). */
export const MAX_QUESTION_CHARS = 4000;
/** Longest search query accepted, in characters. */
export const MAX_QUERY_CHARS = 1000;
/** Most passages one search may return. */
export const MAX_K = 50;

const RETRIEVAL_MODES: readonly RetrievalMode[] = ['hybrid', 'keyword', 'vector'];
const ANSWERERS: readonly WebAnswerer[] = ['offline', 'llm', 'agent'];

/** The body of `POST /api/ask`. */
export const askBody = z
  .object({
    question: z
      .string()
      .trim()
      .min(1, 'question is empty')
      .max(MAX_QUESTION_CHARS, `question is longer than ${MAX_QUESTION_CHARS} characters`),
    options: z.record(z.string(), z.string().max(MAX_QUESTION_CHARS)).optional(),
    mode: z.enum(['baseline', 'keyword', 'vector', 'hybrid']).optional(),
    answerer: z.enum(['offline', 'llm', 'agent']).optional(),
  })
  .strict();

/** The first zod issue as `field: message`. */
export function firstZodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request';
  const where = issue.path.join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** Picks the answer mode and answerer from request fields, refusing what cannot run here. */
export function answerChoice(
  llmAvailable: boolean,
  mode: string | undefined,
  answerer: string | undefined,
): { mode: AnswerMode; answerer: WebAnswerer } {
  if (answerer !== undefined && !(ANSWERERS as readonly string[]).includes(answerer))
    throw new RequestError(400, `answerer must be offline, llm or agent, got "${answerer}"`);
  const a = (answerer ?? 'offline') as WebAnswerer;
  if (a !== 'offline' && !llmAvailable)
    throw new RequestError(400, `answerer ${a} needs an LLM endpoint configured for this server; use offline`);
  const m = (mode ?? 'hybrid') as AnswerMode;
  if (!['baseline', ...RETRIEVAL_MODES].includes(m))
    throw new RequestError(400, `mode must be one of hybrid, keyword, vector, baseline; got "${mode}"`);
  if (m === 'baseline' && a !== 'llm') throw new RequestError(400, 'mode baseline is the LLM alone and needs answerer llm');
  return { mode: m, answerer: a };
}

/** A search mode from the query string (default hybrid). */
export function retrievalMode(mode: string | undefined): RetrievalMode {
  const m = (mode === undefined || mode === '' ? 'hybrid' : mode) as RetrievalMode;
  if (!RETRIEVAL_MODES.includes(m)) throw new RequestError(400, `mode must be one of ${RETRIEVAL_MODES.join(', ')}, got "${mode}"`);
  return m;
}

/** How many passages a search returns (default 10, at most `MAX_K`). */
export function searchK(k: string | undefined): number {
  if (k === undefined || k === '') return 10;
  const n = Number(k);
  if (!Number.isInteger(n) || n < 1 || n > MAX_K) throw new RequestError(400, `k must be a whole number from 1 to ${MAX_K}, got "${k}"`);
  return n;
}

/** The CLI's filters (book, chapter, pages, type), validated as `search` validates them. */
export function webFilter(raw: {
  book?: string | undefined;
  chapter?: string | undefined;
  pages?: string | undefined;
  type?: string | undefined;
}): ChunkFilter {
  try {
    return chunkFilter(raw, { prefix: '' });
  } catch (error) {
    throw new RequestError(400, errorMessage(error));
  }
}

/** A chunk's heading path, top level first, without empty levels. */
export function headingsOf(c: Pick<Chunk, 'chapter' | 'section' | 'subsection'>): string[] {
  return [c.chapter, c.section, c.subsection].filter((h) => h !== '');
}

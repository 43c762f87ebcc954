import { confidenceWords } from '../answer/answer-json.js';
import type { AnswerResult } from '../answer/answer-types.js';
import type { Chunk, ChunkLocation } from '../types.js';
import type { EvalRow, EvidenceRef, RunRecord } from './eval-types.js';
import { answerLetters, isCorrect } from './is-correct.js';
import { inferType } from './metrics.js';
import { recordVerdict } from './record-verdict.js';

function evidenceRef(e: ChunkLocation & { quote?: string; highlights?: Array<[number, number]> }, chunk: Chunk | undefined): EvidenceRef {
  const path = e.headings ?? chunk?.headings;
  const articles = e.articles ?? chunk?.articles;
  return {
    chunk_id: e.chunk_id,
    book: e.book,
    ...(path ? { headings: path } : {}),
    chapter: e.chapter,
    section: e.section,
    ...(articles ? { articles } : {}),
    figure_ref: e.figure_ref,
    page_start: e.page_start,
    page_end: e.page_end,
    chunk_type: chunk?.chunk_type ?? null,
    ...(e.quote !== undefined ? { quote: e.quote } : {}),
    ...(e.highlights && e.highlights.length > 0 ? { highlights: e.highlights } : {}),
  };
}

/** Turns an answer into the run-file record of one question. */
export function toRecord(
  row: EvalRow,
  result: AnswerResult,
  fingerprint: string,
  k: number,
  chunk: (id: string) => Chunk | undefined,
): RunRecord {
  const predicted = answerLetters(result.answer);
  const retrieved = result.context.slice(0, k).map((h) =>
    evidenceRef(
      {
        chunk_id: h.chunk.chunk_id,
        book: h.chunk.book,
        chapter: h.chunk.chapter,
        section: h.chunk.section,
        figure_ref: h.chunk.figure_ref,
        page_start: h.chunk.page_start,
        page_end: h.chunk.page_end,
      },
      h.chunk,
    ),
  );
  const evidence = result.evidence.map((e) => evidenceRef(e, chunk(e.chunk_id)));
  const { type, source } = inferType(row.type, retrieved.length > 0 ? retrieved : evidence);
  return {
    id: row.id,
    mode: result.mode,
    fingerprint,
    answerer: result.answerer,
    question: row.question,
    options: row.options,
    kind: result.question.kind,
    negated: result.question.negated,
    predicted,
    gold: row.answer,
    correct: isCorrect({ predicted, gold: row.answer, fallback: result.fallback }),
    fallback: result.fallback,
    message: result.message ?? null,
    confidence: Number.isFinite(result.confidence) ? Math.min(1, Math.max(0, result.confidence)) : 0,
    confidence_words: confidenceWords(result),
    guess: predicted === '' && result.guess ? answerLetters(result.guess.answer) : null,
    stated_confidence: result.statedConfidence ?? null,
    type,
    type_source: source,
    gold_evidence: row.gold,
    evidence,
    ...(result.verdicts && result.verdicts.length > 0 ? { verdicts: result.verdicts.map(recordVerdict) } : {}),
    retrieved,
    latency_ms: result.latencyMs,
    tokens: result.usage ? { prompt: result.usage.promptTokens, completion: result.usage.completionTokens } : null,
    finished_at: new Date().toISOString(),
  };
}

import { formatCitation } from '../text/citation.js';
import type { AnswerResult, EvidenceItem, OptionVerdict } from './answer-types.js';

/** What a caller knows about an answer beyond the result itself. */
export interface AnswerJsonInput {
  result: AnswerResult;
  /** Which endpoint answered (never the key), when an LLM was used. */
  endpoint?: string;
  /** The agent's steps, when the agent answered (`ask --agent`); printed as `agent` and `trace`. */
  agent?: { protocol: string; rounds: number; trace: readonly unknown[] };
}

/**
 * The stable JSON shape of one answer: what `ask --json` prints, what the web API returns, and what
 * scripts read. Evidence carries its location and quote; the key or endpoint credentials never appear.
 */
export function answerJson(out: AnswerJsonInput): Record<string, unknown> {
  const r = out.result;
  return {
    answer: r.answer,
    confidence: r.confidence,
    confidence_words: confidenceWords(r),
    confidence_source: confidenceSource(r),
    negated: r.question.negated,
    ...(r.guess ? { guess: r.guess } : {}),
    evidence: r.evidence.map(evidenceJson),
    ...(r.verdicts ? { verdicts: r.verdicts.map(verdictJson) } : {}),
    ...(r.verdictConflict ? { verdict_conflict: true } : {}),
    mode: r.mode,
    answerer: r.answerer,
    fallback: r.fallback,
    ...(r.message ? { message: r.message } : {}),
    kind: r.question.kind,
    ...(r.optionScores ? { option_scores: r.optionScores } : {}),
    ...(r.usage ? { usage: r.usage } : {}),
    ...(r.warnings && r.warnings.length > 0 ? { warnings: r.warnings } : {}),
    ...(out.agent ? { agent: { protocol: out.agent.protocol, rounds: out.agent.rounds }, trace: out.agent.trace } : {}),
  };
}

/** What a confidence can be called: the calibrated bands, a guess, or an answer without evidence behind it. */
export type ConfidenceWords = 'high' | 'medium' | 'low' | 'guess' | 'unsupported';

/**
 * The confidence in words, so a student reads it at a glance: a guess (below the abstention threshold, given only
 * on request) is always `guess`; an LLM answer that cites no evidence it was shown is `unsupported`, whatever it
 * stated; otherwise the bands, where for the offline answerer (calibrated) 0.75 and up is right about three times
 * in four. An LLM's number is its own statement (`confidenceSource`), not calibrated.
 */
export function confidenceWords(r: Pick<AnswerResult, 'confidence' | 'guess'> & { fallback?: AnswerResult['fallback'] }): ConfidenceWords {
  if (r.guess) return 'guess';
  if (r.fallback === 'unsupported') return 'unsupported';
  return r.confidence >= 0.75 ? 'high' : r.confidence >= 0.5 ? 'medium' : 'low';
}

/**
 * Where the confidence comes from: `calibrated` for the offline answerer (fitted on labelled questions), `stated`
 * for an LLM (the model's own report, capped where the evidence does not back it).
 */
export function confidenceSource(r: Pick<AnswerResult, 'answerer'>): 'calibrated' | 'stated' {
  return r.answerer === 'llm' ? 'stated' : 'calibrated';
}

/** One evidence item as JSON: its location, its citation line and its quote. */
export function evidenceJson(e: EvidenceItem): Record<string, unknown> {
  return {
    chunk_id: e.chunk_id,
    book: e.book,
    headings: e.headings ?? [],
    chapter: e.chapter,
    section: e.section,
    articles: e.articles ?? [],
    figure_ref: e.figure_ref,
    page_start: e.page_start,
    page_end: e.page_end,
    citation: formatCitation(e),
    quote: e.quote,
    ...(e.highlights ? { highlights: e.highlights } : {}),
    ...(e.suspicious ? { suspicious: e.suspicious } : {}),
  };
}

/** One option's verdict as JSON (`label`, `target`, `text`, `verdict`, and `reason` / `inferred` / `evidence` where set). */
export function verdictJson(v: OptionVerdict): Record<string, unknown> {
  return {
    label: v.label,
    target: v.target,
    text: v.text,
    verdict: v.verdict,
    ...(v.reason ? { reason: v.reason } : {}),
    ...(v.inferred ? { inferred: true } : {}),
    ...(v.evidence ? { evidence: evidenceJson(v.evidence) } : {}),
  };
}

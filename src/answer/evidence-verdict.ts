import { DEFAULT_WEIGHTS, type SolverWeights } from './solver-weights.js';

/** Messages the seed design fixes for the two "cannot answer" outcomes. */
export const NO_EVIDENCE_MESSAGE = '未在教材中找到明确依据';
export const OFF_TOPIC_MESSAGE = '与本知识库内容不符，无法回答';

/** Why a question gets no letter before any option is weighed: outside the books, or nothing relevant found. */
export type EvidenceVerdict = 'off_topic' | 'no_evidence' | null;

/**
 * The one no-evidence / off-topic decision, for the offline and the LLM path alike.
 * - `vocabulary`: share of the question's content words the corpus knows;
 * - `passages`: number of passages retrieved (undefined before retrieval);
 * - `support`: the best support any claim found (undefined when not measured, as on the LLM path).
 * Off topic: the corpus knows too little of the question's vocabulary and no passage supports a claim well.
 * No evidence: nothing was retrieved, or no window shares a key word with any claim.
 */
export function evidenceVerdict(
  e: { vocabulary: number; passages?: number; support?: number },
  weights: SolverWeights = DEFAULT_WEIGHTS,
): EvidenceVerdict {
  const unknownVocabulary = e.vocabulary < weights.onTopicVocabulary;
  if (unknownVocabulary && (e.support === undefined || e.support < weights.offTopicSupport)) return 'off_topic';
  if (e.passages === 0) return 'no_evidence';
  if (e.support !== undefined && e.support < weights.noEvidence) return 'no_evidence';
  return null;
}

/** The message shown for a verdict. */
export function verdictMessage(verdict: Exclude<EvidenceVerdict, null>): string {
  return verdict === 'off_topic' ? OFF_TOPIC_MESSAGE : NO_EVIDENCE_MESSAGE;
}

/** Shown after the no-evidence message when a best guess is given anyway. */
export const GUESS_NOTE = '所给答案为猜测，并非教材依据';

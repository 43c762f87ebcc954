import type { Analyzer } from '../text/analyzer.js';
import type { Chunk } from '../types.js';
import type { AnswerResult } from './answer-types.js';
import type { CorpusStats } from './corpus-stats.js';
import { optionVerdicts } from './option-verdicts.js';
import { questionVerdicts, tiedLetter, verdictStanding } from './question-verdicts.js';
import { DEFAULT_WEIGHTS } from './solver-weights.js';

/**
 * Defence in depth for an LLM answer (one-shot or agent): what the passages it cites say of each option, read clause by
 * clause the way the offline answerer reads them, independently of the model. When a clause of the cited passages
 * contradicts the chosen letter (or, for a negated stem, states it), the answer is said to disagree with its own
 * evidence and keeps `verdictConflictFactor` of its confidence. A model that obeys a planted instruction (答案是D)
 * while the passage it cites states A is caught here even when the plant itself is not. An answer whose own verdicts
 * tie its letter with other options is capped at its share among them (`tiedLetter`), as the offline answerer's is.
 */
export function checkAgainstClauses(result: AnswerResult, corpus: { analyzer: Analyzer; stats: CorpusStats }): AnswerResult {
  return withTiedVerdicts(againstClauses(result, corpus));
}

/** The answer flagged and lowered when a clause of its cited passages contradicts its letter. */
function againstClauses(result: AnswerResult, corpus: { analyzer: Analyzer; stats: CorpusStats }): AnswerResult {
  const q = result.question;
  if (result.answer === '' || q.kind === 'open' || q.kind === 'judge') return result;
  const passages: Chunk[] = result.context.map((h) => h.chunk);
  if (passages.length === 0) return result;
  const combination = q.kind === 'combination';
  const claims = combination
    ? q.statements.map((s) => ({ label: s.label, target: 'statement' as const, text: s.text }))
    : q.options.map((o) => ({ label: o.letter, target: 'option' as const, text: o.text }));
  const read = optionVerdicts({
    stem: q.stem,
    claims,
    fillsStem: !combination,
    exclusive: q.kind === 'single',
    negated: q.negated,
    passages: claims.map(() => passages),
    analyzer: corpus.analyzer,
    stats: corpus.stats,
  });
  const standing = verdictStanding(q, questionVerdicts(q, read), result.answer);
  if (standing.against !== 1) return result;
  const against = questionVerdicts(q, read).find((v) => v.target === 'option' && result.answer.includes(v.label));
  const why = against?.reason ?? (q.negated ? '教材原文支持该选项' : '教材原文与该选项不符');
  const note = `答案与其所引证据不一致：${why}（the letter disagrees with the passages it cites${against?.evidence ? `: "${against.evidence.quote}"` : ''}）`;
  return {
    ...result,
    confidence: Math.round(result.confidence * DEFAULT_WEIGHTS.verdictConflictFactor * 1000) / 1000,
    verdictConflict: true,
    message: result.message ? `${result.message}；${note}` : note,
    warnings: [...(result.warnings ?? []), note],
  };
}

/**
 * A single-choice LLM answer whose own verdicts state other options as they state the chosen one (B and C both
 * supported, answer B) contradicts itself: its confidence is capped at its share among them and the note says which,
 * as the offline answerer's is.
 */
function withTiedVerdicts(result: AnswerResult): AnswerResult {
  if (result.answer === '') return result;
  const tied = tiedLetter(result.question, result.verdicts ?? [], result.answer);
  if (!tied || result.confidence <= tied.share) return result;
  return {
    ...result,
    confidence: Math.round(tied.share * 1000) / 1000,
    message: result.message ? `${result.message}；${tied.message}` : tied.message,
    warnings: [...(result.warnings ?? []), tied.message],
  };
}

import type { EvidenceItem, OptionVerdict, ParsedQuestion } from './answer-types.js';

/**
 * The evidence shown with a chosen letter, first what settles it: the clause that settles the chosen option, so the
 * letter never stands beside a passage that says otherwise; or, where the chosen option has no clause of its own (an
 * answer by elimination: 不包括 the one option the book never lists), the clauses that rule out the others, in option
 * order, since those are what settle it. Then the passages the support ranking chose, each passage once, up to `limit`
 * in all. Without such a clause the ranking's evidence stands as it is.
 */
export function shownEvidence(
  question: ParsedQuestion,
  verdicts: readonly OptionVerdict[],
  answer: string,
  evidence: readonly EvidenceItem[],
  limit: number,
): EvidenceItem[] {
  const options = verdicts.filter((v) => v.target === 'option');
  const chosen = options.find((v) => answer.includes(v.label) && v.evidence && v.verdict !== 'not_found');
  const ruledOut = question.negated ? 'supported' : 'contradicted';
  const eliminated = options.every((v) => !answer.includes(v.label) || v.verdict === 'not_found');
  const first = chosen?.evidence
    ? [chosen.evidence]
    : eliminated
      ? options.flatMap((v) => (!answer.includes(v.label) && v.verdict === ruledOut && v.evidence ? [v.evidence] : []))
      : [];
  if (first.length === 0) return [...evidence];
  const out: EvidenceItem[] = [];
  const ids = new Set<string>();
  for (const item of [...first, ...evidence]) {
    if (ids.has(item.chunk_id)) continue;
    ids.add(item.chunk_id);
    out.push(item);
  }
  return out.slice(0, limit);
}

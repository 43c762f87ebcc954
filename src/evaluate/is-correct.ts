/** An answer's letters as one sorted, upper-case string (`bd` → `BD`, `A、C` → `AC`); empty when it names none. */
export function answerLetters(answer: string): string {
  return [...new Set(answer.toUpperCase().replace(/[^A-H]/g, ''))].sort().join('');
}

/**
 * Whether a recorded answer counts as right, the same for `eval` and `answer`: the letters the answerer gave as its
 * answer equal the gold. A fallback answer (`llm_failed` → the offline answer, `agent_failed`, `unsupported`, …) is
 * never right: it is not the evidence-backed answer the mode claims to give. Nor is a guess written on an answer sheet
 * in place of an abstention: the answerer did not give it as an answer, and eval counts that row as abstained.
 */
export function isCorrect(record: { predicted: string; gold: string; fallback: string | null; guessed?: boolean }): boolean {
  if (record.guessed === true || (record.fallback !== null && record.fallback !== '')) return false;
  return record.predicted !== '' && record.predicted === record.gold;
}

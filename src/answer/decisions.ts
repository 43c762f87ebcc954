import { normalizeText } from '../text/analyzer.js';
import type { EvidenceItem, ParsedQuestion, QuestionOption, VerdictKind } from './answer-types.js';
import { noSupport, type Support } from './claim-support.js';
import { NEGATIVE } from './clause-cues.js';
import { citation, toEvidence } from './evidence.js';
import { statementsInOption } from './parse-question.js';
import type { SolverWeights } from './solver-weights.js';

const JUDGE_TRUE = /^(正确|对|是|√|✓|true|t)$/i;

/** The evidence shown for the strongest supported claims: one item per passage, strongest first. */
export function evidenceFrom(supports: Support[], claims: readonly string[], limit: number): EvidenceItem[] {
  const out: EvidenceItem[] = [];
  const ids = new Set<string>();
  const order = supports.map((s, i) => ({ s, claim: claims[i] ?? claims[0] ?? '' })).sort((a, b) => b.s.score - a.s.score);
  for (const { s, claim } of order) {
    if (!s.chunk || s.score <= 0 || ids.has(s.chunk.chunk_id)) continue;
    ids.add(s.chunk.chunk_id);
    out.push(toEvidence(s.chunk, s.span, s.terms.length > 0 ? s.terms : [claim]));
    if (out.length >= limit) break;
  }
  return out;
}

/** {@link evidenceFrom} for the options (or statements) at `indices`. */
function evidenceAt(indices: readonly number[], supports: Support[], claims: readonly string[], limit: number): EvidenceItem[] {
  return evidenceFrom(
    indices.map((i) => supports[i] as Support),
    indices.map((i) => claims[i] ?? ''),
    limit,
  );
}

/** What one kind of question decided, before confidence: the letters, how clearly, and what to cite. */
export interface Decision {
  answer: string;
  /** See {@link CalibrationFeatures.margin}. */
  margin: number;
  /** Indices of the claims whose key-term coverage measures the evidence for this answer. */
  decisive: number[];
  evidence: EvidenceItem[];
  optionScores: Record<string, number>;
  fallback?: 'conflict';
  message?: string;
}

function optionScoresOf(labels: readonly string[], supports: readonly Support[]): Record<string, number> {
  return Object.fromEntries(labels.map((l, i) => [l, round(supports[i]?.score ?? 0)]));
}

/**
 * The option the verdicts point to instead of the support ranking's choice, or -1 to keep it. The verdicts overrule
 * the ranking when they single out one option: exactly one option has the verdict a right answer has (`supported`;
 * `contradicted` for a negated stem). When several have it and the ranking's choice has the opposite verdict (its
 * own clause rules it out), the best ranked of those several is taken: the letter never goes against its clause
 * while other options stand. Otherwise the support ranking stands (and its evidence is shown with it).
 */
function verdictChoice(verdicts: readonly VerdictKind[], signed: readonly number[], negated: boolean): number {
  const ranked = argmax(signed);
  const wanted: VerdictKind = negated ? 'contradicted' : 'supported';
  const ruledOut: VerdictKind = negated ? 'supported' : 'contradicted';
  const hits = verdicts.map((_, i) => i).filter((i) => verdicts[i] === wanted);
  if (hits.length === 1) return hits[0] === ranked ? -1 : (hits[0] ?? -1);
  if (hits.length > 1 && verdicts[ranked] === ruledOut)
    return hits.reduce((best, i) => ((signed[i] ?? 0) > (signed[best] ?? 0) ? i : best));
  return -1;
}

export function singleDecision(
  question: ParsedQuestion,
  supports: Support[],
  weights: SolverWeights,
  verdicts: readonly VerdictKind[] = [],
): Decision {
  const claims = question.options.map((o) => o.text);
  const scores = supports.map((s) => s.score);
  // A negated stem asks for the statement the book contradicts. An option whose best passage matches it as well as a
  // true statement would (judgeTrueSupport) but disagrees on negation (不得, 不能, … on one side only) is that
  // statement, more surely than an option the book never mentions; it ranks above every uncontradicted option.
  const contradicted = supports.map(
    (s, i) => s.score >= weights.judgeTrueSupport && NEGATIVE.test(claims[i] ?? '') !== NEGATIVE.test(s.window),
  );
  const signed = question.negated ? scores.map((s, i) => (contradicted[i] ? s : -s)) : scores;
  const byVerdict = verdictChoice(verdicts, signed, question.negated);
  const idx = byVerdict >= 0 ? byVerdict : argmax(signed);
  const runnerUp = Math.max(...signed.filter((_, i) => i !== idx));
  const others = supports.map((_, i) => i).filter((i) => i !== idx);
  // For a negated stem the chosen option is the contradicted one, shown with the passage that contradicts it, or else
  // the unsupported one, shown with the passages that support the others.
  const byOthers = question.negated && !contradicted[idx];
  const decision: Decision = {
    answer: question.options[idx]?.letter ?? '',
    margin: Number.isFinite(runnerUp) ? (signed[idx] ?? 0) - runnerUp : 0,
    decisive: byOthers ? others : [idx],
    evidence: byOthers
      ? evidenceAt(others, supports, claims, weights.evidenceShown)
      : evidenceAt([idx], supports, claims, weights.evidenceShown),
    optionScores: optionScoresOf(
      question.options.map((o) => o.letter),
      supports,
    ),
  };
  if (!question.negated && byVerdict < 0) {
    const conflict = detectConflict(question.options, supports, weights, verdicts);
    if (conflict) {
      decision.fallback = 'conflict';
      decision.message = conflict;
      decision.evidence = evidenceFrom(supports, claims, weights.evidenceShown + 1);
    }
  }
  return decision;
}

export function multiDecision(
  question: ParsedQuestion,
  supports: Support[],
  weights: SolverWeights,
  verdicts: readonly VerdictKind[] = [],
): Decision {
  const claims = question.options.map((o) => o.text);
  const scores = supports.map((s) => s.score);
  const threshold = weights.multiRatio * Math.max(...scores);
  // A verdict decides its option; the support threshold decides the options no clause settles.
  const wanted: VerdictKind = question.negated ? 'contradicted' : 'supported';
  const ruledOut: VerdictKind = question.negated ? 'supported' : 'contradicted';
  const pickedIdx = scores
    .map((_, i) => i)
    .filter(
      (i) =>
        verdicts[i] === wanted ||
        (verdicts[i] !== ruledOut && (question.negated ? (scores[i] ?? 0) < threshold : (scores[i] ?? 0) >= threshold)),
    );
  const supported = scores.map((_, i) => i).filter((i) => (scores[i] ?? 0) >= threshold);
  return {
    answer: pickedIdx.map((i) => question.options[i]?.letter ?? '').join(''),
    // How clearly the selected and unselected options separate around the threshold.
    margin: Math.min(...scores.map((s) => Math.abs(s - threshold))),
    decisive: supported,
    evidence: evidenceAt(supported, supports, claims, weights.evidenceShown),
    optionScores: optionScoresOf(
      question.options.map((o) => o.letter),
      supports,
    ),
  };
}

/**
 * Two options both strongly and almost equally supported by different passages: name both sources. Not when a clause
 * rules one of the two out (有固定封闭期 read in the 封闭式基金 column for a stem about 开放式基金): its passage's
 * support is for another subject, and the verdicts, not the support scores, tell the two apart.
 */
function detectConflict(
  options: QuestionOption[],
  supports: Support[],
  weights: SolverWeights,
  verdicts: readonly VerdictKind[],
): string | null {
  const order = supports.map((s, i) => ({ s, i })).sort((a, b) => b.s.score - a.s.score);
  const [first, second] = order;
  if (!first || !second || !first.s.chunk || !second.s.chunk) return null;
  if (verdicts[first.i] === 'contradicted' || verdicts[second.i] === 'contradicted') return null;
  if (
    first.s.score < weights.conflictSupport ||
    second.s.score < weights.conflictSupport ||
    first.s.score - second.s.score > weights.conflictGap
  )
    return null;
  if (first.s.chunk.chunk_id === second.s.chunk.chunk_id) return null;
  const a = options[first.i];
  const b = options[second.i];
  return `证据冲突：选项 ${a?.letter ?? '?'} 见 ${citation(toEvidence(first.s.chunk))}；选项 ${b?.letter ?? '?'} 见 ${citation(toEvidence(second.s.chunk))}`;
}

/** The statement a true/false question asks about: the stem without its 判断题 label and trailing blank. */
export function judgeStatement(stem: string): string {
  return stem.replace(/^[\s\S]*?(判断题|判断)[:：]?/, '').replace(/[（(]\s*[)）]\s*$/, '');
}

export function judgeDecision(
  question: ParsedQuestion,
  statement: string,
  s: Support | undefined,
  weights: SolverWeights,
  verdict: VerdictKind = 'not_found',
): Decision {
  const support = s ?? noSupport(null);
  const trueOpt = question.options.find((o) => JUDGE_TRUE.test(o.text)) ?? question.options[0];
  const falseOpt = question.options.find((o) => o !== trueOpt) ?? question.options[1];
  // Contradiction: the statement and its best passage disagree on negation, or on the numbers they state.
  const negMismatch = NEGATIVE.test(statement) !== NEGATIVE.test(support.window);
  const nums = (t: string): string[] => normalizeText(t).match(/\d+(?:\.\d+)?/g) ?? [];
  const stNums = nums(statement);
  const winNums = nums(support.window);
  const numMismatch = stNums.length > 0 && winNums.length > 0 && stNums.some((n) => !winNums.includes(n));
  // True: most of the statement is found in one window, with no contradiction cue. A contradiction in the
  // passage that matches the statement best makes it false, as surely as that passage matches.
  // A clause that settles the statement decides; the support and the cues decide where none does.
  const contradicted = verdict === 'contradicted' || (verdict === 'not_found' && (negMismatch || numMismatch));
  const isTrue = verdict === 'supported' || (!contradicted && support.score > weights.judgeTrueSupport);
  const message = !isTrue && contradicted ? `教材原文与题干不一致（${negMismatch ? '肯定/否定相反' : '数字不同'}）` : undefined;
  return {
    answer: (isTrue ? trueOpt : falseOpt)?.letter ?? '',
    margin: contradicted ? support.score : Math.abs(support.score - weights.judgeTrueSupport),
    decisive: [0],
    evidence: evidenceFrom([support], [statement], weights.evidenceShown),
    optionScores: { [trueOpt?.letter ?? 'A']: round(support.score) },
    ...(message ? { message } : {}),
  };
}

export function combinationDecision(
  question: ParsedQuestion,
  supports: Support[],
  weights: SolverWeights,
  verdicts: readonly VerdictKind[] = [],
): Decision | null {
  const claims = question.statements.map((s) => s.text);
  const scores = supports.map((s) => s.score);
  // A statement counts as supported relative to the others: above the mean support of all statements; a clause that
  // settles it outweighs any difference in support (scores stay under about 1.5).
  const meanScore = scores.reduce((a, b) => a + b, 0) / scores.length;
  const sign = question.negated ? -1 : 1;
  const settled = (i: number): number => (verdicts[i] === 'supported' ? 2 : verdicts[i] === 'contradicted' ? -2 : 0);
  const z = new Map(question.statements.map((st, i) => [st.label, sign * ((scores[i] ?? 0) - meanScore + settled(i))]));
  const optionFit = question.options.map((o) => {
    const set = new Set(statementsInOption(o.text, question.statements));
    if (set.size === 0) return -Infinity;
    let fit = 0;
    for (const [label, v] of z) fit += set.has(label) ? v : -v;
    return fit;
  });
  const valid = optionFit.filter((f) => Number.isFinite(f));
  if (valid.length === 0) return null;
  const idx = argmax(optionFit);
  const runnerUp = Math.max(...optionFit.filter((_, i) => i !== idx));
  const chosen = new Set(statementsInOption(question.options[idx]?.text ?? '', question.statements));
  const cited = question.statements.map((_, i) => i).filter((i) => chosen.has(question.statements[i]?.label ?? '') !== question.negated);
  const evidence = evidenceAt(cited, supports, claims, weights.evidenceShown);
  return {
    answer: question.options[idx]?.letter ?? '',
    // Per statement, so questions with more statements are not more confident for it.
    margin: Number.isFinite(runnerUp) ? ((optionFit[idx] ?? 0) - runnerUp) / question.statements.length : 0,
    decisive: cited,
    evidence: evidence.length > 0 ? evidence : evidenceFrom(supports, claims, weights.evidenceShown),
    optionScores: optionScoresOf(
      question.statements.map((s) => s.label),
      supports,
    ),
  };
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function argmax(values: readonly number[]): number {
  let idx = 0;
  for (let i = 1; i < values.length; i++) if ((values[i] ?? -Infinity) > (values[idx] ?? -Infinity)) idx = i;
  return idx;
}

export function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

import type { AnswerResult, OptionVerdict, ParsedQuestion } from './answer-types.js';
import type { CalibrationFeatures } from './calibration.js';
import { calibratedConfidence } from './calibration.js';
import { noSupport, Solver, type OfflineContext } from './claim-support.js';
import { optionVerdicts } from './option-verdicts.js';
import { decidingKinds } from './covering-options.js';
import { questionVerdicts, tiedLetter, verdictStanding } from './question-verdicts.js';
import { shownEvidence } from './shown-evidence.js';
import type { Chunk } from '../types.js';
import {
  combinationDecision,
  evidenceFrom,
  judgeDecision,
  judgeStatement,
  mean,
  multiDecision,
  round,
  singleDecision,
} from './decisions.js';
import { evidenceVerdict, GUESS_NOTE, NO_EVIDENCE_MESSAGE, verdictMessage } from './evidence-verdict.js';
import { DEFAULT_WEIGHTS } from './solver-weights.js';

export type { OfflineContext } from './claim-support.js';

/**
 * The offline answerer: a retrieval-based solver of the IR-solver family (Clark et al. 2016,
 * "Combining Retrieval, Statistics, and Inference to Answer Elementary Science Questions"; the ARC
 * IR solver reaches 62.55% on ARC-Easy). For every option it retrieves with `stem + option`, pools the
 * evidence, and scores how strongly each passage window supports the option: idf-weighted coverage of
 * the option's own words (those not already in the stem) plus the longest verbatim run of the option's
 * characters, both scaled by how well the same window matches the stem. The option with the most
 * support wins; negated stems take the least supported; combination questions judge each statement.
 */

function base(
  question: ParsedQuestion,
  ctx: OfflineContext,
  started: number,
): Omit<AnswerResult, 'answer' | 'confidence' | 'evidence' | 'fallback'> {
  return { question, mode: ctx.mode, answerer: 'offline', context: [], latencyMs: Date.now() - started };
}

/** Answers a parsed question from the index alone. */
export async function answerOffline(question: ParsedQuestion, ctx: OfflineContext): Promise<AnswerResult> {
  const started = Date.now();
  const weights = ctx.weights ?? DEFAULT_WEIGHTS;
  const judge = question.kind === 'judge';
  const combination = question.kind === 'combination';
  // Blank filling assumes one option fills the blank; a multi-select blank takes several.
  const solverWeights = question.kind === 'multi' ? { ...weights, fillShare: 0 } : weights;
  const solver = new Solver(ctx, solverWeights, judge ? '' : question.stem);

  // Retrieval: one query per claim (option or statement), plus the stem, pooled.
  const claims: string[] = combination
    ? question.statements.map((s) => s.text)
    : judge || question.kind === 'open'
      ? []
      : question.options.map((o) => o.text);
  await solver.retrieve([question.stem, ...claims.map((claim) => `${question.stem} ${claim}`)]);

  // Topic is judged on the question itself (stem and statements), not the options: unknown option words
  // mean "no evidence", an unknown stem means "not about these books".
  const vocab = solver.vocabularyCoverage([question.stem, ...(combination ? claims : [])].join(' '));
  // Set once the claims are weighed; every result from then on carries them.
  const shown: { verdicts?: OptionVerdict[] } = {};
  const finish = (r: Pick<AnswerResult, 'answer' | 'confidence' | 'evidence' | 'fallback'> & Partial<AnswerResult>): AnswerResult => ({
    ...base(question, ctx, started),
    context: solver.pool,
    ...(shown.verdicts ? { verdicts: shown.verdicts } : {}),
    ...r,
    latencyMs: Date.now() - started,
  });

  if (question.kind === 'open') {
    const supports = solver.supports(question.stem, { ignoreStem: true });
    const best = supports[0]?.score ?? 0;
    const verdict = evidenceVerdict({ vocabulary: vocab, passages: solver.pool.length, support: best }, weights);
    if (verdict) return finish({ answer: '', confidence: 0, evidence: [], fallback: verdict, message: verdictMessage(verdict) });
    // No letter to choose: the confidence is how much of the question the best passage covers.
    return finish({
      answer: '',
      confidence: round(Math.min(weights.openConfidenceCap, best)),
      evidence: evidenceFrom(supports, [question.stem], weights.evidenceShown),
      fallback: null,
      message: 'open question (no options): the cited passages answer it; no letter is chosen',
    });
  }

  // The claims weighed: the judge statement, the combination statements, or the options.
  const judged = judge ? [judgeStatement(question.stem)] : claims;
  const ranked = judged.map((c) => solver.supports(c, { ignoreStem: judge }));
  const supports = ranked.map((list) => list[0] ?? noSupport(null));
  // What the passages say of each claim, clause by clause: the decisions follow these verdicts.
  const claimVerdicts = optionVerdicts({
    stem: judge ? '' : question.stem,
    claims: judged.map((text, i) => ({
      label: combination
        ? (question.statements[i]?.label ?? '')
        : judge
          ? (question.options[0]?.letter ?? 'A')
          : (question.options[i]?.letter ?? ''),
      target: combination ? ('statement' as const) : ('option' as const),
      text,
    })),
    fillsStem: !combination && !judge,
    // One option fills a single-choice blank, so a clause that names another option in its place rules this one out.
    exclusive: question.kind === 'single',
    negated: question.negated,
    passages: ranked.map((list) => list.filter((s) => s.chunk && s.score > 0).map((s) => s.chunk as Chunk)),
    stemPassages: solver.pool.map((hit) => hit.chunk),
    analyzer: ctx.analyzer,
    stats: ctx.stats,
  });
  const verdicts = questionVerdicts(question, claimVerdicts);
  // The letter is chosen from the claims' verdicts, an option speaking of the others (以上都是) read off theirs.
  const kinds = combination || judge ? claimVerdicts.map((v) => v.verdict) : decidingKinds(question, verdicts);
  const best = Math.max(0, ...supports.map((s) => s.score));
  const verdict = evidenceVerdict({ vocabulary: vocab, passages: solver.pool.length, support: best }, weights);
  const decision = judge
    ? judgeDecision(question, judged[0] ?? '', supports[0], weights, kinds[0])
    : combination
      ? combinationDecision(question, supports, weights, kinds)
      : question.kind === 'multi'
        ? multiDecision(question, supports, weights, kinds)
        : singleDecision(question, supports, weights, kinds);
  shown.verdicts = verdicts;
  const chance = 1 / Math.max(2, question.options.length);
  // The clauses settle the question on their own: the chosen option stated, every other ruled out by its own clause
  // (投资条款清单（Term Sheet） for TS, the book writing none of MOU / LOI / SPA). Options the book never writes as such
  // have no support to pass the evidence gate, but the verdicts are evidence, each with its clause.
  const standing = decision ? verdictStanding(question, verdicts, decision.answer) : null;
  const settled = standing !== null && standing.agrees === 1 && standing.rivals === 0 && standing.ruledOut === 1;

  if ((verdict && !settled) || !decision) {
    // Nothing bears on the claims: no letter, and a best guess worth exactly chance.
    const v = verdict ?? 'no_evidence';
    const guess = decision && decision.answer !== '' ? { answer: decision.answer, confidence: round(chance) } : undefined;
    const scores = decision ? { optionScores: decision.optionScores } : {};
    if (ctx.guess && guess) {
      return finish({
        answer: guess.answer,
        confidence: guess.confidence,
        evidence: [],
        fallback: null,
        message: `${verdictMessage(v)}；${GUESS_NOTE}`,
        guess,
        ...scores,
      });
    }
    return finish({
      answer: '',
      confidence: guess ? guess.confidence : 0,
      evidence: [],
      fallback: v,
      message: verdictMessage(v),
      ...(guess ? { guess } : {}),
      ...scores,
    });
  }

  const decisiveCoverage = decision.decisive.map((i) => solver.keyCoverage(judged[i] ?? '', { ignoreStem: judge }));
  const features: CalibrationFeatures = {
    margin: decision.margin,
    support: best,
    coverage: mean(decisiveCoverage),
    verbatim: mean(decision.decisive.map((i) => supports[i]?.verbatim ?? 0)),
    stemCoverage: mean(decision.decisive.map((i) => supports[i]?.stemCoverage ?? 0)),
    vocabulary: vocab,
    negated: question.negated ? 1 : 0,
    combination: combination ? 1 : 0,
    multi: question.kind === 'multi' ? 1 : 0,
    judge: judge ? 1 : 0,
    ...(standing ?? verdictStanding(question, verdicts, decision.answer)),
  };
  // The letter against the clause its own evidence holds: said, and the confidence lowered by a fixed share
  // (`verdictConflictFactor`), not to chance: the clause reading is itself wrong on some questions.
  const conflict = features.against === 1;
  const calibrated = round(Math.min(weights.confidenceCap, calibratedConfidence(features, weights.calibration)));
  // A single-choice question has one right option. When clauses state others as they state the chosen one, the
  // verdicts do not tell those apart and the letter is only the better supported of them: its confidence is at most
  // its share among them. No question of the fitted sets has such rivals, so the model's terms for them are an
  // extrapolation (it stated 0.98 for one of two options a list of the book names alike).
  const tied = conflict ? null : tiedLetter(question, verdicts, decision.answer);
  const confidence = conflict
    ? round(calibrated * weights.verdictConflictFactor)
    : tied
      ? round(Math.min(calibrated, tied.share))
      : calibrated;
  // What settles the letter is shown first: its own clause, or the clauses that rule out the others.
  if (!conflict) decision.evidence = shownEvidence(question, verdicts, decision.answer, decision.evidence, weights.evidenceShown);
  if (conflict) {
    const against = verdicts.find((v) => v.target === 'option' && decision.answer.includes(v.label));
    decision.message = `答案与其证据不一致：${against?.reason ?? '教材原文与该选项不符'}（The letter disagrees with its own evidence）`;
  }
  if (tied) decision.message = tied.message;
  const abstainBelow = ctx.abstainBelow ?? weights.abstainBelow;
  // Decided on the confidence as it is shown (two decimals), so the value a student reads and the threshold agree.
  if (Math.round(confidence * 100) / 100 < abstainBelow) {
    // Selective answering: the evidence does not single out an option beyond chance. Say so, show the closest
    // passages, and keep the best letter as a guess (given as the answer only with `--guess`).
    const guess = { answer: decision.answer, confidence };
    const closest = evidenceFrom(supports, judged, weights.evidenceShown);
    const common = { confidence, evidence: closest, guess, optionScores: decision.optionScores, calibration: features };
    if (ctx.guess) return finish({ ...common, answer: decision.answer, fallback: null, message: `${NO_EVIDENCE_MESSAGE}；${GUESS_NOTE}` });
    return finish({ ...common, answer: '', fallback: 'no_evidence', message: NO_EVIDENCE_MESSAGE });
  }
  return finish({
    answer: decision.answer,
    confidence,
    ...(conflict ? { verdictConflict: true } : {}),
    evidence: decision.evidence,
    fallback: decision.fallback ?? null,
    ...(decision.message ? { message: decision.message } : {}),
    optionScores: decision.optionScores,
    calibration: features,
  });
}

/**
 * Confidence calibration of the offline answerer: a logistic model (Platt scaling with several features,
 * Platt 1999; Guo et al. 2017 "On Calibration of Modern Neural Networks" for the temperature special case)
 * that turns what the solver measured about one question into the probability that its chosen letter is
 * right. The features say how strongly the best passage supports a claim and, where it does, how clearly it
 * separates the options. The parameters are fitted by `scripts/fit-calibration.mjs` and shipped
 * in `solver-weights.ts`.
 */
import { seededRandom } from '../seeded-random.js';

/** The measurements of one answered question that the confidence is computed from. */
export interface CalibrationFeatures {
  /**
   * How far the chosen letter is ahead of the runner-up in support (single choice: signed best minus second;
   * multi: the smallest gap to the selection threshold; judge: distance from the true/false cut; combination:
   * the fit gap between the best and second option, per statement).
   */
  margin: number;
  /** The strongest support any claim (option or statement) found in one passage window, 0–~1.5. */
  support: number;
  /**
   * Evidence coverage: the idf-weighted share of the chosen claim's own key terms (those not in the stem) found
   * in one retrieved passage, 0–1 (for a negated stem: the mean over the options not chosen, whose support decides).
   */
  coverage: number;
  /**
   * Verbatim evidence: the longest run of the decisive claim's characters found in its best window, as a share of
   * the claim's length, 0–1 (textbook questions quote the book; questions the books cannot answer rarely do).
   */
  verbatim: number;
  /**
   * The idf-weighted share of the stem's words in the decisive claim's best window, 0–1 (1 for true/false claims,
   * judged without a stem): whether the passage that supports the option is about what the question asks. A textbook
   * question's supporting sentence holds the stem too; an option matched in a passage about something else does not.
   */
  stemCoverage: number;
  /** Share of the stem's content words the corpus has seen at all, 0–1. */
  vocabulary: number;
  /** 1 when the stem asks for the wrong / excluded option. */
  negated: number;
  /** 1 for combination (Ⅰ/Ⅱ/Ⅲ statements) questions. */
  combination: number;
  /** 1 for multi-select questions. */
  multi: number;
  /** 1 for true/false questions. */
  judge: number;
  /**
   * 1 when every chosen option has the verdict a right answer has: a clause of the passages states it (`supported`),
   * or, for a negated stem, states otherwise (`contradicted`). Absent in features recorded before verdicts (read as 0).
   */
  agrees?: number;
  /** Options not chosen with that same verdict: rivals the clauses do not rule out. */
  rivals?: number;
  /** 1 when a chosen option has the opposite verdict: the letter against its own evidence. */
  against?: number;
  /** Share of the options not chosen that their clauses rule out, 0–1 (absent before it was recorded: read as 0). */
  ruledOut?: number;
}

/**
 * Default support knot: where evidence starts to state a claim rather than brush past it. Below it the best window
 * covers well under half of the claim's weighted words (support also discounts stem coverage and window length), so
 * every option is matched only in fragments. There neither the support itself nor the margin between options, the
 * question's negation or its kind says anything about correctness: on FinanceIQ fund questions over the fund laws
 * (support mostly below 0.4) the share right is flat across support below it (28%, 24%, 35%, 29% by quintile), while
 * on the textbook sample (support mostly above) they all predict. So the model is flat below the knot and every term
 * enters only through the support above it. A fitted model carries its own knot (chosen by cross-validation in
 * `scripts/fit-calibration.mjs`); this is the one fitting starts from when none is given.
 */
export const STRONG_SUPPORT_KNOT = 0.4;

/**
 * The model's terms, in coefficient order: the support above the model's knot (a hinge, so the confidence is the
 * base rate on weak evidence and rises on strong) and the margin, the stem's coverage in the supporting window, and
 * the negation and combination flags, gated by it. The stem coverage tells "the book states this answer" from "the
 * option's words occur in a passage about something else": above the knot, sample answers whose window holds most of
 * the stem are right 85%, those whose window holds little of it 57%, and FinanceIQ's strong-support windows hold
 * little of the stem (median about 0.25).
 * Rising in support wherever the gated coefficients add up to a positive slope; a combination question with little
 * of its stem in the window and no margin may fall slightly below the base rate (the sample's combination questions
 * are right less often than its others at the same support).
 * Multi-select and true/false questions are absent from the fitting data; their flags stay in the model (at 0 when
 * unseen) so a refit can pick them up. A linear support term below the knot is left out on purpose: it let the
 * sample (tuning set of the solver, right 57% at support 0.3–0.7) lift FinanceIQ's best-supported answers (right
 * 33%) to a stated 40%, the overconfident top decile cross-validation showed. Coverage, verbatim share and
 * vocabulary are measured and recorded but not used: gated or not, they did not lower the cross-validated log-loss.
 */
export const FEATURE_NAMES = [
  'strongSupport',
  'marginXstrong',
  'stemXstrong',
  'negatedXstrong',
  'combinationXstrong',
  'multi',
  'judge',
  'verdictAgrees',
  'verdictUnique',
  'verdictRivals',
  'verdictSettled',
  'verdictEliminates',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

/** The value of each model term for one answer, with the support knot at `knot`. */
export function modelTerms(f: CalibrationFeatures, knot: number = STRONG_SUPPORT_KNOT): Record<FeatureName, number> {
  const strong = Math.max(0, f.support - knot);
  return {
    strongSupport: strong,
    marginXstrong: f.margin * strong,
    stemXstrong: f.stemCoverage * strong,
    negatedXstrong: f.negated * strong,
    combinationXstrong: f.combination * strong,
    multi: f.multi,
    judge: f.judge,
    // Verdicts are not gated by the support knot: a clause that states the option is evidence however the window
    // scored, and it transfers across books (it does not depend on how often a book holds its answers).
    verdictAgrees: f.agrees ?? 0,
    verdictUnique: (f.agrees ?? 0) === 1 && (f.rivals ?? 0) === 0 ? 1 : 0,
    verdictRivals: Math.min(3, f.rivals ?? 0),
    // How decisively the verdicts beat the others': the chosen option stated and the rest ruled out by their own
    // clauses, rather than merely not found. Also a property of the reading, not of how often a book holds answers.
    verdictSettled: (f.agrees ?? 0) * (f.ruledOut ?? 0),
    // Every other option ruled out by its own clause while the chosen one has none against it: the answer by
    // elimination (下列…不包括 with the three others each stated in the book). Also a property of the reading.
    verdictEliminates: (f.agrees ?? 0) === 0 && (f.against ?? 0) === 0 && (f.ruledOut ?? 0) === 1 ? 1 : 0,
  };
}

/** A fitted logistic calibration: p(correct) = σ(intercept + Σ coefficient · term), terms hinged at `knot`. */
export interface CalibrationModel {
  intercept: number;
  /** Support below which the confidence is flat (the terms are 0 there). */
  knot: number;
  coefficients: Record<FeatureName, number>;
}

/** How to fit: the L2 penalty on the coefficients and the support knot. */
export interface FitOptions {
  l2?: number;
  knot?: number;
  iterations?: number;
}

/** The feature vector in {@link FEATURE_NAMES} order. */
export function featureVector(f: CalibrationFeatures, knot: number = STRONG_SUPPORT_KNOT): number[] {
  const terms = modelTerms(f, knot);
  return FEATURE_NAMES.map((name) => terms[name]);
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** The calibrated probability that the chosen letter is right. */
export function calibratedConfidence(f: CalibrationFeatures, model: CalibrationModel): number {
  let z = model.intercept;
  const terms = modelTerms(f, model.knot);
  for (const name of FEATURE_NAMES) z += model.coefficients[name] * terms[name];
  return sigmoid(z);
}

/** One training example: features and whether the chosen letter was right. */
export interface CalibrationExample {
  features: CalibrationFeatures;
  correct: boolean;
  /** Weight in the log-loss (default 1), e.g. to give two data sets of different sizes equal say. */
  weight?: number;
}

/**
 * Fits the logistic model by Newton–Raphson (iteratively reweighted least squares) on the log-loss with an L2
 * penalty `l2` on the coefficients (not the intercept), which keeps features that never vary in the data
 * (e.g. no multi-select questions) at 0 instead of diverging. Deterministic: the same data gives the same model.
 */
export function fitCalibration(examples: readonly CalibrationExample[], options: FitOptions = {}): CalibrationModel {
  const l2 = options.l2 ?? 0.01;
  const knot = options.knot ?? STRONG_SUPPORT_KNOT;
  const iterations = options.iterations ?? 50;
  const d = FEATURE_NAMES.length + 1;
  const xs = examples.map((e) => [1, ...featureVector(e.features, knot)]);
  const ys = examples.map((e) => (e.correct ? 1 : 0));
  const total = examples.reduce((s, e) => s + (e.weight ?? 1), 0);
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    xs.forEach((x, i) => {
      const p = sigmoid(x.reduce((s, v, j) => s + v * (w[j] ?? 0), 0));
      const weight = examples[i]?.weight ?? 1;
      const r = weight * (p - (ys[i] ?? 0));
      const q = weight * p * (1 - p);
      for (let a = 0; a < d; a++) {
        grad[a] = (grad[a] ?? 0) + r * (x[a] ?? 0);
        const row = hess[a] as number[];
        for (let b = 0; b < d; b++) row[b] = (row[b] ?? 0) + q * (x[a] ?? 0) * (x[b] ?? 0);
      }
    });
    for (let a = 1; a < d; a++) {
      grad[a] = (grad[a] ?? 0) + l2 * total * (w[a] ?? 0);
      const row = hess[a] as number[];
      row[a] = (row[a] ?? 0) + l2 * total;
    }
    // A tiny ridge on the intercept too, so an all-correct or all-wrong set stays solvable.
    (hess[0] as number[])[0] = ((hess[0] as number[])[0] ?? 0) + 1e-9;
    const step = solveLinear(hess, grad);
    const next = w.map((v, j) => v - (step[j] ?? 0));
    const moved = Math.max(...step.map((s) => Math.abs(s)));
    w = next;
    if (moved < 1e-10) break;
  }
  const coefficients = Object.fromEntries(FEATURE_NAMES.map((name, j) => [name, w[j + 1] ?? 0])) as Record<FeatureName, number>;
  return { intercept: w[0] ?? 0, knot, coefficients };
}

/**
 * Cross-validated confidences: each example's confidence from a model fitted on the other folds only, so the
 * calibration of the result is what new questions would see. `foldOf(i)` gives example i's fold in 0…folds−1.
 */
export function crossValidatedConfidences(
  examples: readonly CalibrationExample[],
  folds: number,
  foldOf: (index: number) => number,
  options: FitOptions = {},
): number[] {
  const out = new Array<number>(examples.length).fill(0);
  for (let k = 0; k < folds; k++) {
    const train = examples.filter((_, i) => foldOf(i) !== k);
    const model = fitCalibration(train, options);
    examples.forEach((e, i) => {
      if (foldOf(i) === k) out[i] = calibratedConfidence(e.features, model);
    });
  }
  return out;
}

/**
 * Random folds 0…folds−1 for repeated cross-validation: each stratum (e.g. each data set) is shuffled with the seed
 * and dealt round-robin, so every fold holds its share of every stratum. The same seed gives the same folds.
 */
export function stratifiedFolds(strata: readonly string[], folds: number, seed: number): number[] {
  const rand = seededRandom(seed);
  const out = new Array<number>(strata.length).fill(0);
  for (const stratum of new Set(strata)) {
    const members = strata.flatMap((s, i) => (s === stratum ? [i] : []));
    // Fisher–Yates with the seeded generator.
    for (let i = members.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [members[i], members[j]] = [members[j] as number, members[i] as number];
    }
    members.forEach((index, k) => (out[index] = k % folds));
  }
  return out;
}

/** One knot and L2 of the grid and how its cross-validated confidences did, averaged over the repeats. */
export interface CalibrationCandidate {
  knot: number;
  l2: number;
  /** Mean over repeats of the cross-validated log-loss. */
  logLoss: number;
  /** Mean over repeats of the constraint's measure (NaN without a constraint). */
  measure: number;
  /** The constraint holds on that mean (true without a constraint). */
  admissible: boolean;
}

/** What {@link selectCalibration} tried and chose. */
export interface CalibrationSelection {
  best: CalibrationCandidate;
  candidates: CalibrationCandidate[];
  /** The folds of each repeat. */
  folds: number[][];
  /** The best candidate's cross-validated confidences, one array per repeat (for reporting mean and spread). */
  confidences: number[][];
}

/**
 * Chooses the knot and the L2 penalty by repeated stratified k-fold cross-validation, so the choice reflects what new
 * questions see, not one lucky split: every candidate is scored on the same `repeats` random partitions (seeds `seed`,
 * `seed + 1`, …) by the mean cross-validated log-loss. A `constraint` measures one repeat's cross-validated
 * confidences (e.g. the most confident tenth's accuracy minus its stated confidence on one data set); a candidate is
 * admissible when the mean measure is at least `atLeast`. Among the admissible candidates (all of them when none is,
 * which `admissible` then says), those within `tolerance` of the smallest log-loss count as equally good (default
 * 0.001 nats, far below the standard error of a mean log-loss over a few hundred questions, about 0.02), and of
 * those the one with the largest measure wins; without a constraint, the smallest log-loss.
 */
export function selectCalibration(
  examples: readonly CalibrationExample[],
  options: {
    knots: readonly number[];
    l2s: readonly number[];
    folds?: number;
    repeats?: number;
    seed?: number;
    /** Stratum of each example (default: one stratum). */
    strata?: readonly string[];
    constraint?: { measure: (confidences: readonly number[], folds: readonly number[]) => number; atLeast: number };
    tolerance?: number;
  },
): CalibrationSelection {
  const k = options.folds ?? 3;
  const repeats = options.repeats ?? 20;
  const seed = options.seed ?? 1;
  const strata = options.strata ?? examples.map(() => '');
  const folds = Array.from({ length: repeats }, (_, r) => stratifiedFolds(strata, k, seed + r));
  const runs: { candidate: CalibrationCandidate; confidences: number[][] }[] = [];
  for (const knot of options.knots) {
    for (const l2 of options.l2s) {
      const confidences = folds.map((f) => crossValidatedConfidences(examples, k, (i) => f[i] ?? 0, { l2, knot }));
      const logLoss = mean(confidences.map((c) => logLossOf(examples, c)));
      const measure = options.constraint ? mean(confidences.map((c, r) => options.constraint?.measure(c, folds[r] ?? []) ?? 0)) : NaN;
      const admissible = options.constraint ? measure >= options.constraint.atLeast : true;
      runs.push({ candidate: { knot, l2, logLoss, measure, admissible }, confidences });
    }
  }
  if (runs.length === 0) throw new Error('selectCalibration: no knot or no L2 to choose from');
  const pool = runs.some((r) => r.candidate.admissible) ? runs.filter((r) => r.candidate.admissible) : runs;
  const smallest = Math.min(...pool.map((r) => r.candidate.logLoss));
  const tied = pool.filter((r) => r.candidate.logLoss <= smallest + (options.tolerance ?? 0.001));
  const better = (a: CalibrationCandidate, b: CalibrationCandidate): boolean =>
    options.constraint && b.measure !== a.measure ? b.measure > a.measure : b.logLoss < a.logLoss;
  const best = tied.reduce((a, b) => (better(a.candidate, b.candidate) ? b : a));
  return { best: best.candidate, candidates: runs.map((r) => r.candidate), folds, confidences: best.confidences };
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Mean negative log-likelihood of given confidences. */
function logLossOf(examples: readonly CalibrationExample[], confidences: readonly number[]): number {
  if (examples.length === 0) return 0;
  let s = 0;
  examples.forEach((e, i) => {
    const p = Math.min(1 - 1e-12, Math.max(1e-12, confidences[i] ?? 0.5));
    s -= e.correct ? Math.log(p) : Math.log(1 - p);
  });
  return s / examples.length;
}

/** Mean negative log-likelihood of the examples under the model. */
export function logLoss(examples: readonly CalibrationExample[], model: CalibrationModel): number {
  return logLossOf(
    examples,
    examples.map((e) => calibratedConfidence(e.features, model)),
  );
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and positive definite here). */
function solveLinear(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] ?? 0]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]?.[col] ?? 0) > Math.abs(m[pivot]?.[col] ?? 0)) pivot = r;
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const p = m[col]?.[col] ?? 0;
    if (Math.abs(p) < 1e-15) continue;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = (m[r]?.[col] ?? 0) / p;
      if (f === 0) continue;
      const rowR = m[r] as number[];
      const rowC = m[col] as number[];
      for (let c = col; c <= n; c++) rowR[c] = (rowR[c] ?? 0) - f * (rowC[c] ?? 0);
    }
  }
  return m.map((row, i) => {
    const p = row[i] ?? 0;
    return Math.abs(p) < 1e-15 ? 0 : (row[n] ?? 0) / p;
  });
}

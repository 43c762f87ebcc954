/**
 * Confidence calibration of the offline answerer: a logistic model (Platt scaling with several features,
 * Platt 1999; Guo et al. 2017 "On Calibration of Modern Neural Networks" for the temperature special case)
 * that turns what the solver measured about one question into the probability that its chosen letter is
 * right. The features say how strongly the best passage supports a claim and, where it does, how clearly it
 * separates the options. The parameters are fitted by `scripts/fit-calibration.mjs` and shipped
 * in `offline-answerer.ts`.
 */

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
}

/**
 * Support at which evidence starts to state a claim rather than brush past it: below it the best window covers
 * well under half of the claim's weighted words (support also discounts stem coverage and window length), so
 * every option is matched only in fragments. There the margin between options, the question's negation and its
 * kind say nothing about correctness: on FinanceIQ fund questions over the fund laws (support mostly below 0.5)
 * none of them predicts the right letter better than chance, while on the textbook sample (support mostly
 * above) they all do. So they enter the model only through the support above this knot.
 */
export const STRONG_SUPPORT_KNOT = 0.4;

/**
 * The model's terms, in coefficient order: the support (a linear spline with one knot at
 * {@link STRONG_SUPPORT_KNOT}, so confidence can rise slowly on weak evidence and steeply on strong) and the
 * margin, negation and combination flags gated by the support above the knot. Monotone in support for
 * non-negative `support` and `strongSupport` coefficients. Multi-select and true/false questions are absent
 * from the fitting data; their flags stay in the model (at 0 when unseen) so a refit can pick them up.
 * Coverage, verbatim share and vocabulary are measured and recorded but not used: on the fitting data they
 * added nothing once the support was known (held-out log-loss), and took odd signs when included.
 */
export const FEATURE_NAMES = [
  'support',
  'strongSupport',
  'marginXstrong',
  'negatedXstrong',
  'combinationXstrong',
  'multi',
  'judge',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

/** The value of each model term for one answer. */
export function modelTerms(f: CalibrationFeatures): Record<FeatureName, number> {
  const strong = Math.max(0, f.support - STRONG_SUPPORT_KNOT);
  return {
    support: f.support,
    strongSupport: strong,
    marginXstrong: f.margin * strong,
    negatedXstrong: f.negated * strong,
    combinationXstrong: f.combination * strong,
    multi: f.multi,
    judge: f.judge,
  };
}

/** A fitted logistic calibration: p(correct) = σ(intercept + Σ coefficient · feature). */
export interface CalibrationModel {
  intercept: number;
  coefficients: Record<FeatureName, number>;
}

/** The feature vector in {@link FEATURE_NAMES} order. */
export function featureVector(f: CalibrationFeatures): number[] {
  const terms = modelTerms(f);
  return FEATURE_NAMES.map((name) => terms[name]);
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** The calibrated probability that the chosen letter is right. */
export function calibratedConfidence(f: CalibrationFeatures, model: CalibrationModel): number {
  let z = model.intercept;
  const terms = modelTerms(f);
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
export function fitCalibration(
  examples: readonly CalibrationExample[],
  options: { l2?: number; iterations?: number } = {},
): CalibrationModel {
  const l2 = options.l2 ?? 0.01;
  const iterations = options.iterations ?? 50;
  const d = FEATURE_NAMES.length + 1;
  const xs = examples.map((e) => [1, ...featureVector(e.features)]);
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
  return { intercept: w[0] ?? 0, coefficients };
}

/**
 * Cross-validated confidences: each example's confidence from a model fitted on the other folds only, so the
 * calibration of the result is what new questions would see. `foldOf(i)` gives example i's fold in 0…folds−1.
 */
export function crossValidatedConfidences(
  examples: readonly CalibrationExample[],
  folds: number,
  foldOf: (index: number) => number,
  options: { l2?: number; iterations?: number } = {},
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

/** Mean negative log-likelihood of the examples under the model. */
export function logLoss(examples: readonly CalibrationExample[], model: CalibrationModel): number {
  if (examples.length === 0) return 0;
  let s = 0;
  for (const e of examples) {
    const p = Math.min(1 - 1e-12, Math.max(1e-12, calibratedConfidence(e.features, model)));
    s -= e.correct ? Math.log(p) : Math.log(1 - p);
  }
  return s / examples.length;
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

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CalibrationExample, CalibrationFeatures, CalibrationModel } from '../../src/answer/calibration.js';
import {
  calibratedConfidence,
  crossValidatedConfidences,
  FEATURE_NAMES,
  fitCalibration,
  logLoss,
  selectCalibration,
  stratifiedFolds,
  STRONG_SUPPORT_KNOT,
} from '../../src/answer/calibration.js';
import { DEFAULT_WEIGHTS, FITTED_CALIBRATION } from '../../src/answer/solver-weights.js';
import { expectedCalibrationError } from '../../src/evaluate/metrics.js';
import { seededRandom } from '../../src/seeded-random.js';

const zero = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as CalibrationModel['coefficients'];

function features(rand: () => number): CalibrationFeatures {
  return {
    margin: rand() * 0.6,
    support: rand() * 1.4,
    coverage: rand(),
    verbatim: rand(),
    stemCoverage: rand(),
    vocabulary: 0.5 + rand() / 2,
    negated: rand() < 0.25 ? 1 : 0,
    combination: rand() < 0.2 ? 1 : 0,
    multi: 0,
    judge: 0,
  };
}

const plain: CalibrationFeatures = {
  margin: 0.2,
  support: 1,
  coverage: 1,
  verbatim: 1,
  stemCoverage: 1,
  vocabulary: 1,
  negated: 0,
  combination: 0,
  multi: 0,
  judge: 0,
};

void describe('calibration fitting', () => {
  void it('recovers a known logistic model from synthetic scores', () => {
    const truth: CalibrationModel = {
      intercept: -1.2,
      knot: STRONG_SUPPORT_KNOT,
      coefficients: { ...zero, strongSupport: 2, marginXstrong: 3, stemXstrong: 1.5, negatedXstrong: -1.5 },
    };
    const rand = seededRandom(7);
    const examples: CalibrationExample[] = [];
    for (let i = 0; i < 8000; i++) {
      const f = features(rand);
      examples.push({ features: f, correct: rand() < calibratedConfidence(f, truth) });
    }
    const fitted = fitCalibration(examples, { l2: 0 });
    const near = (name: keyof CalibrationModel['coefficients'], want: number, tolerance: number): void =>
      assert.ok(Math.abs(fitted.coefficients[name] - want) < tolerance, `${name} ${fitted.coefficients[name]}, want ${want}`);
    assert.ok(Math.abs(fitted.intercept - truth.intercept) < 0.3, `intercept ${fitted.intercept}`);
    assert.equal(fitted.knot, STRONG_SUPPORT_KNOT);
    near('strongSupport', 2, 0.9);
    near('marginXstrong', 3, 1.2);
    near('stemXstrong', 1.5, 0.8);
    near('negatedXstrong', -1.5, 0.5);
    near('combinationXstrong', 0, 0.5);
    // Never worse than the truth on its own training data, and calibrated on fresh data.
    assert.ok(logLoss(examples, fitted) <= logLoss(examples, truth) + 1e-9);
    const fresh = Array.from({ length: 3000 }, () => features(rand)).map((f) => ({
      confidence: calibratedConfidence(f, fitted),
      correct: rand() < calibratedConfidence(f, truth),
    }));
    assert.ok(expectedCalibrationError(fresh) < 0.04, `ECE ${expectedCalibrationError(fresh)}`);
  });

  void it('is flat below the knot: support, margin, negation and combination count only above it', () => {
    const model: CalibrationModel = {
      intercept: -1,
      knot: STRONG_SUPPORT_KNOT,
      coefficients: { ...zero, strongSupport: 2, marginXstrong: 3, negatedXstrong: -1, combinationXstrong: -1 },
    };
    const weak = { ...plain, support: STRONG_SUPPORT_KNOT - 0.1 };
    const p = calibratedConfidence(weak, model);
    for (const variant of [{ margin: 0.9 }, { negated: 1 }, { combination: 1 }, { margin: 0, negated: 1, combination: 1 }]) {
      assert.equal(calibratedConfidence({ ...weak, ...variant }, model), p, JSON.stringify(variant));
    }
    const strong = { ...plain, support: STRONG_SUPPORT_KNOT + 0.5 };
    assert.ok(calibratedConfidence({ ...strong, margin: 0.5 }, model) > calibratedConfidence({ ...strong, margin: 0 }, model));
    assert.ok(calibratedConfidence({ ...strong, negated: 1 }, model) < calibratedConfidence(strong, model));
    // The base rate σ(intercept) anywhere below the knot, rising above it; the model's own knot, not the default.
    const at = (support: number, knot = STRONG_SUPPORT_KNOT): number =>
      calibratedConfidence({ ...plain, margin: 0, support }, { ...model, knot });
    assert.equal(at(0.05), at(STRONG_SUPPORT_KNOT));
    assert.ok(Math.abs(at(0.05) - 1 / (1 + Math.exp(1))) < 1e-12);
    assert.ok(at(STRONG_SUPPORT_KNOT + 0.2) > at(STRONG_SUPPORT_KNOT));
    assert.equal(at(0.7, 0.8), at(0.05, 0.8));
    assert.ok(at(0.9, 0.8) > at(0.8, 0.8));
  });

  void it('a constant accuracy fits the intercept alone: p = base rate', () => {
    const rand = seededRandom(3);
    const examples: CalibrationExample[] = Array.from({ length: 400 }, (_, i) => ({ features: features(rand), correct: i % 4 === 0 }));
    const fitted = fitCalibration(examples, { l2: 10 });
    const p = calibratedConfidence(features(rand), fitted);
    assert.ok(Math.abs(p - 0.25) < 0.03, `p ${p}`);
  });

  void it('example weights count like repeated examples', () => {
    const weighted = fitCalibration(
      [
        { features: plain, correct: true, weight: 3 },
        { features: plain, correct: false },
      ],
      { l2: 0.1 },
    );
    const repeated = fitCalibration(
      [
        { features: plain, correct: true },
        { features: plain, correct: true },
        { features: plain, correct: true },
        { features: plain, correct: false },
      ],
      { l2: 0.1 },
    );
    assert.ok(Math.abs(calibratedConfidence(plain, weighted) - calibratedConfidence(plain, repeated)) < 1e-9);
    assert.ok(Math.abs(calibratedConfidence(plain, weighted) - 0.75) < 0.05);
  });
});

void describe('cross-validated confidences', () => {
  void it('predict each fold with a model that never saw it (hand values)', () => {
    // Same features everywhere and a strong penalty: each model is its training folds' base rate.
    // Fold 0: 10 of 10 right; folds 1 and 2: 5 of 10 right each.
    const examples: CalibrationExample[] = Array.from({ length: 30 }, (_, i) => ({
      features: plain,
      correct: i < 10 || i % 2 === 0,
    }));
    const foldOf = (i: number): number => Math.floor(i / 10);
    const cv = crossValidatedConfidences(examples, 3, foldOf, { l2: 1e6 });
    const want = [10 / 20, 15 / 20, 15 / 20]; // fold 0 from folds 1+2; folds 1 and 2 from fold 0 + the other
    cv.forEach((p, i) => assert.ok(Math.abs(p - (want[foldOf(i)] ?? -1)) < 1e-3, `example ${i}: ${p}`));
  });

  void it('are calibrated on synthetic scores from a known model', () => {
    const truth: CalibrationModel = { intercept: -1, knot: 0.3, coefficients: { ...zero, strongSupport: 2, marginXstrong: 2 } };
    const rand = seededRandom(5);
    const examples: CalibrationExample[] = Array.from({ length: 3000 }, () => {
      const f = features(rand);
      return { features: f, correct: rand() < calibratedConfidence(f, truth) };
    });
    const cv = crossValidatedConfidences(examples, 3, (i) => i % 3, { l2: 0.001, knot: 0.3 });
    const items = examples.map((e, i) => ({ confidence: cv[i] ?? 0, correct: e.correct }));
    assert.ok(expectedCalibrationError(items) < 0.05, `ECE ${expectedCalibrationError(items)}`);
  });
});

void describe('choosing the knot and L2 by repeated cross-validation', () => {
  // Synthetic scores from a model flat below support 0.7: p = 0.25 there, rising steeply above.
  const truth: CalibrationModel = { intercept: Math.log(0.25 / 0.75), knot: 0.7, coefficients: { ...zero, strongSupport: 4 } };
  const rand = seededRandom(11);
  const examples: CalibrationExample[] = Array.from({ length: 1500 }, () => {
    const f = features(rand);
    return { features: f, correct: rand() < calibratedConfidence(f, truth) };
  });

  void it('finds the true knot by cross-validated log-loss', () => {
    const chosen = selectCalibration(examples, { knots: [0.2, 0.7, 1.2], l2s: [0.0003, 0.003], repeats: 4 });
    assert.equal(chosen.best.knot, 0.7);
    assert.equal(chosen.candidates.length, 6);
    assert.ok(chosen.candidates.every((c) => c.admissible && Number.isNaN(c.measure)));
    // One array of cross-validated confidences per repeat, each a different partition.
    assert.equal(chosen.confidences.length, 4);
    assert.equal(chosen.folds.length, 4);
    assert.notDeepEqual(chosen.folds[0], chosen.folds[1]);
    const items = examples.map((e, i) => ({ confidence: chosen.confidences[0]?.[i] ?? 0, correct: e.correct }));
    assert.ok(expectedCalibrationError(items) < 0.05, `ECE ${expectedCalibrationError(items)}`);
  });

  void it('picks the smallest log-loss among the admissible candidates only', () => {
    // A constraint on the fold-0 answers' mean confidence, set so that only the worse (by log-loss) candidate meets it.
    const measure = (c: readonly number[], folds: readonly number[]): number => {
      const inFold = c.filter((_, i) => folds[i] === 0);
      return 0.3 - inFold.reduce((s, x) => s + x, 0) / inFold.length;
    };
    const grid = { knots: [0.7, 1.2], l2s: [0.001], repeats: 2 };
    const free = selectCalibration(examples, { ...grid, constraint: { measure, atLeast: -Infinity } });
    const [m07, m12] = free.candidates.map((c) => c.measure);
    assert.ok(m07 !== undefined && m12 !== undefined && m12 > m07, `measures ${m07} ${m12}`);
    assert.equal(free.best.knot, 0.7);
    const constrained = selectCalibration(examples, { ...grid, constraint: { measure, atLeast: (m07 + m12) / 2 } });
    const [low, high] = constrained.candidates;
    assert.ok(low && high && low.logLoss < high.logLoss && !low.admissible && high.admissible, JSON.stringify(constrained.candidates));
    assert.equal(constrained.best.knot, 1.2);
    // Nobody admissible: the smallest log-loss, flagged as not admissible.
    const none = selectCalibration(examples, { ...grid, constraint: { measure, atLeast: 1 } });
    assert.equal(none.best.knot, 0.7);
    assert.equal(none.best.admissible, false);
  });

  void it('among candidates within the tolerance of the smallest log-loss, the largest measure wins', () => {
    // Two L2s a hair apart fit nearly the same model; a measure that prefers the worse log-loss decides between them.
    const lossOf = (c: readonly number[]): number =>
      examples.reduce((s, e, i) => s - Math.log(e.correct ? (c[i] ?? 0.5) : 1 - (c[i] ?? 0.5)), 0) / examples.length;
    const grid = { knots: [0.7], l2s: [0.0003, 0.001], repeats: 2, constraint: { measure: lossOf, atLeast: -Infinity } };
    const strict = selectCalibration(examples, { ...grid, tolerance: 0 });
    const [a, b] = strict.candidates;
    assert.ok(a && b && a.logLoss !== b.logLoss && Math.abs(a.logLoss - b.logLoss) < 0.001, JSON.stringify(strict.candidates));
    const lower = a.logLoss < b.logLoss ? a : b;
    const higher = lower === a ? b : a;
    assert.equal(strict.best.l2, lower.l2);
    assert.equal(selectCalibration(examples, grid).best.l2, higher.l2);
  });

  void it('deals stratified folds: each stratum split evenly, the same for the same seed', () => {
    const strata = [...Array.from({ length: 10 }, () => 'a'), ...Array.from({ length: 31 }, () => 'b')];
    const folds = stratifiedFolds(strata, 3, 5);
    for (const s of ['a', 'b']) {
      const counts = [0, 1, 2].map((k) => folds.filter((f, i) => strata[i] === s && f === k).length);
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `${s}: ${counts.join(',')}`);
    }
    assert.deepEqual(stratifiedFolds(strata, 3, 5), folds);
    assert.notDeepEqual(stratifiedFolds(strata, 3, 6), folds);
  });
});

void describe('verdict terms', () => {
  void it('rises with the share of the other options the clauses rule out, and for an answer by elimination', () => {
    const stated = { ...plain, agrees: 1, rivals: 0 };
    const settled = [0, 1 / 3, 1].map((ruledOut) => calibratedConfidence({ ...stated, ruledOut }, FITTED_CALIBRATION));
    assert.ok(settled[0]! < settled[1]! && settled[1]! < settled[2]!, settled.join(' < '));
    const unstated = { ...plain, agrees: 0, rivals: 0 };
    const confidence = (f: typeof unstated & { ruledOut?: number; against?: number }): number =>
      calibratedConfidence(f, FITTED_CALIBRATION);
    // A letter whose own clause is not found: some others ruled out say nothing for it; all of them make it the answer
    // by elimination, unless its own clause goes against it.
    assert.equal(confidence({ ...unstated, ruledOut: 1 / 3 }), confidence(unstated));
    assert.ok(confidence({ ...unstated, ruledOut: 1 }) > confidence(unstated));
    assert.equal(confidence({ ...unstated, against: 1, ruledOut: 1 }), confidence({ ...unstated, against: 1 }));
  });
});

void describe('shipped calibration', () => {
  void it('abstains on the flat level: weak evidence is never presented as an answer', () => {
    const flat = 1 / (1 + Math.exp(-FITTED_CALIBRATION.intercept));
    assert.ok(DEFAULT_WEIGHTS.abstainBelow > Math.round(flat * 1000) / 1000, `abstainBelow ${DEFAULT_WEIGHTS.abstainBelow}, flat ${flat}`);
    const weak = { ...plain, support: FITTED_CALIBRATION.knot - 0.1 };
    assert.ok(calibratedConfidence(weak, FITTED_CALIBRATION) < DEFAULT_WEIGHTS.abstainBelow);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CalibrationExample, CalibrationFeatures, CalibrationModel } from '../../src/answer/calibration.js';
import {
  calibratedConfidence,
  crossValidatedConfidences,
  FEATURE_NAMES,
  fitCalibration,
  logLoss,
  STRONG_SUPPORT_KNOT,
} from '../../src/answer/calibration.js';
import { expectedCalibrationError } from '../../src/evaluate/metrics.js';
import { seededRandom } from '../../src/seeded-random.js';

const zero = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as CalibrationModel['coefficients'];

function features(rand: () => number): CalibrationFeatures {
  return {
    margin: rand() * 0.6,
    support: rand() * 1.4,
    coverage: rand(),
    verbatim: rand(),
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
      coefficients: { ...zero, support: 0.8, strongSupport: 2, marginXstrong: 3, negatedXstrong: -1.5 },
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
    near('support', 0.8, 0.6);
    near('strongSupport', 2, 0.9);
    near('marginXstrong', 3, 1.2);
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

  void it('margin, negation and combination count only for support above the knot', () => {
    const model: CalibrationModel = {
      intercept: -1,
      coefficients: { ...zero, support: 1, strongSupport: 2, marginXstrong: 3, negatedXstrong: -1, combinationXstrong: -1 },
    };
    const weak = { ...plain, support: STRONG_SUPPORT_KNOT - 0.1 };
    const p = calibratedConfidence(weak, model);
    for (const variant of [{ margin: 0.9 }, { negated: 1 }, { combination: 1 }, { margin: 0, negated: 1, combination: 1 }]) {
      assert.equal(calibratedConfidence({ ...weak, ...variant }, model), p, JSON.stringify(variant));
    }
    const strong = { ...plain, support: STRONG_SUPPORT_KNOT + 0.5 };
    assert.ok(calibratedConfidence({ ...strong, margin: 0.5 }, model) > calibratedConfidence({ ...strong, margin: 0 }, model));
    assert.ok(calibratedConfidence({ ...strong, negated: 1 }, model) < calibratedConfidence(strong, model));
    // Steeper above the knot than below: the same step in support moves the confidence more.
    const at = (support: number): number => calibratedConfidence({ ...plain, margin: 0, support }, model);
    assert.ok(at(STRONG_SUPPORT_KNOT + 0.2) - at(STRONG_SUPPORT_KNOT) > at(STRONG_SUPPORT_KNOT) - at(STRONG_SUPPORT_KNOT - 0.2));
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
    const truth: CalibrationModel = { intercept: -1, coefficients: { ...zero, support: 1, strongSupport: 2, marginXstrong: 2 } };
    const rand = seededRandom(5);
    const examples: CalibrationExample[] = Array.from({ length: 3000 }, () => {
      const f = features(rand);
      return { features: f, correct: rand() < calibratedConfidence(f, truth) };
    });
    const cv = crossValidatedConfidences(examples, 3, (i) => i % 3, { l2: 0.001 });
    const items = examples.map((e, i) => ({ confidence: cv[i] ?? 0, correct: e.correct }));
    assert.ok(expectedCalibrationError(items) < 0.05, `ECE ${expectedCalibrationError(items)}`);
  });
});

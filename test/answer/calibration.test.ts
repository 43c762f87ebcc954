import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CalibrationExample, CalibrationFeatures, CalibrationModel } from '../../src/answer/calibration.js';
import { calibratedConfidence, FEATURE_NAMES, fitCalibration, logLoss } from '../../src/answer/calibration.js';
import { expectedCalibrationError } from '../../src/evaluate/metrics.js';
import { seededRandom } from '../../src/seeded-random.js';

const zero = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as CalibrationModel['coefficients'];

function features(rand: () => number): CalibrationFeatures {
  return {
    margin: rand() * 0.6,
    support: rand() * 1.2,
    coverage: rand(),
    verbatim: rand(),
    vocabulary: 0.5 + rand() / 2,
    negated: rand() < 0.2 ? 1 : 0,
    combination: 0,
    multi: 0,
    judge: 0,
  };
}

void describe('calibration fitting', () => {
  void it('recovers a known logistic model from synthetic scores', () => {
    const truth: CalibrationModel = { intercept: -1.5, coefficients: { ...zero, marginXsupport: 3, support: 1, negated: -0.8 } };
    const rand = seededRandom(7);
    const examples: CalibrationExample[] = [];
    for (let i = 0; i < 6000; i++) {
      const f = features(rand);
      examples.push({ features: f, correct: rand() < calibratedConfidence(f, truth) });
    }
    const fitted = fitCalibration(examples, { l2: 0 });
    assert.ok(Math.abs(fitted.intercept - truth.intercept) < 0.35, `intercept ${fitted.intercept}`);
    assert.ok(Math.abs(fitted.coefficients.marginXsupport - 3) < 0.8, `marginXsupport ${fitted.coefficients.marginXsupport}`);
    assert.ok(Math.abs(fitted.coefficients.negated + 0.8) < 0.25, `negated ${fitted.coefficients.negated}`);
    for (const name of ['coverage', 'verbatimXsupport', 'vocabulary'] as const)
      assert.ok(Math.abs(fitted.coefficients[name]) < 0.4, `${name} ${fitted.coefficients[name]}`);
    // Never worse than the truth on its own training data, and calibrated on fresh data.
    assert.ok(logLoss(examples, fitted) <= logLoss(examples, truth) + 1e-9);
    const fresh = Array.from({ length: 3000 }, () => features(rand)).map((f) => ({
      confidence: calibratedConfidence(f, fitted),
      correct: rand() < calibratedConfidence(f, truth),
    }));
    assert.ok(expectedCalibrationError(fresh) < 0.04, `ECE ${expectedCalibrationError(fresh)}`);
  });

  void it('a constant accuracy fits the intercept alone: p = base rate', () => {
    const rand = seededRandom(3);
    const examples: CalibrationExample[] = Array.from({ length: 400 }, (_, i) => ({ features: features(rand), correct: i % 4 === 0 }));
    const fitted = fitCalibration(examples, { l2: 10 });
    const p = calibratedConfidence(features(rand), fitted);
    assert.ok(Math.abs(p - 0.25) < 0.03, `p ${p}`);
  });

  void it('example weights count like repeated examples', () => {
    const a: CalibrationFeatures = {
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
    const weighted = fitCalibration(
      [
        { features: a, correct: true, weight: 3 },
        { features: a, correct: false },
      ],
      { l2: 0.1 },
    );
    const repeated = fitCalibration(
      [
        { features: a, correct: true },
        { features: a, correct: true },
        { features: a, correct: true },
        { features: a, correct: false },
      ],
      { l2: 0.1 },
    );
    assert.ok(Math.abs(calibratedConfidence(a, weighted) - calibratedConfidence(a, repeated)) < 1e-9);
    assert.ok(Math.abs(calibratedConfidence(a, weighted) - 0.75) < 0.05);
  });
});

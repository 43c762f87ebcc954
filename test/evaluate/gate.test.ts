import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/errors.js';
import { checkGate, parseFailUnder, runGate } from '../../src/evaluate/gate.js';

void describe('gate', () => {
  void it('parses --fail-under for all modes or per mode, as fraction or percent', () => {
    assert.deepEqual(parseFailUnder('0.6'), { all: 0.6 });
    assert.deepEqual(parseFailUnder('60'), { all: 0.6 });
    assert.deepEqual(parseFailUnder('hybrid=0.6, keyword=50%'), { hybrid: 0.6, keyword: 0.5 });
    assert.throws(() => parseFailUnder('hybird=0.6'), UsageError);
    assert.throws(() => parseFailUnder('abc'), /--fail-under needs an accuracy/);
    assert.throws(() => parseFailUnder('150'), UsageError);
  });

  const current = {
    modes: [
      { mode: 'keyword', accuracy: 0.55 },
      { mode: 'hybrid', accuracy: 0.62 },
    ],
  };

  void it('fails modes under their floor, and names modes that did not run', () => {
    assert.deepEqual(checkGate(current, { failUnder: { all: 0.5 } }), []);
    const v = checkGate(current, { failUnder: { all: 0.6 } });
    assert.deepEqual(
      v.map((x) => [x.kind, x.mode]),
      [['fail-under', 'keyword']],
    );
    assert.equal(v[0]?.message, 'keyword: accuracy 55.0% is below --fail-under 60.0%');
    // A per-mode floor overrides the floor for all.
    assert.deepEqual(checkGate(current, { failUnder: { all: 0.6, keyword: 0.5 } }), []);
    assert.deepEqual(
      checkGate(current, { failUnder: { vector: 0.1 } }).map((x) => [x.kind, x.mode]),
      [['missing-mode', 'vector']],
    );
  });

  void it('fails a drop of more than --max-drop points against the previous report', () => {
    const previous = {
      modes: [
        { mode: 'keyword', accuracy: 0.57 },
        { mode: 'hybrid', accuracy: 0.61 },
      ],
    };
    assert.deepEqual(checkGate(current, { previous, maxDropPoints: 2 }), []); // exactly 2 points is allowed
    const v = checkGate(current, { previous, maxDropPoints: 1.5 });
    assert.deepEqual(
      v.map((x) => [x.kind, x.mode]),
      [['max-drop', 'keyword']],
    );
    assert.match(v[0]?.message ?? '', /keyword: accuracy fell 2\.0 points \(57\.0% → 55\.0%\), more than --max-drop 1\.5/);
    // Asked to be strict, a mode of the previous report that did not run now fails.
    const gone = checkGate({ modes: [{ mode: 'hybrid', accuracy: 0.7 }] }, { previous, maxDropPoints: 5, strict: true });
    assert.deepEqual(
      gone.map((x) => [x.kind, x.mode]),
      [['missing-mode', 'keyword']],
    );
  });

  void it('compares only the modes that ran in both reports, and says which were not compared', () => {
    // A default run (keyword, vector, hybrid) as the previous report; this run asked for --modes baseline,hybrid.
    const previous = {
      modes: [
        { mode: 'keyword', accuracy: 0.57 },
        { mode: 'vector', accuracy: 0.5 },
        { mode: 'hybrid', accuracy: 0.61 },
      ],
    };
    const now = {
      modes: [
        { mode: 'baseline', accuracy: 0.4 },
        { mode: 'hybrid', accuracy: 0.6 },
      ],
    };
    const outcome = runGate(now, { previous, maxDropPoints: 2, failUnder: { hybrid: 0.6 } });
    assert.deepEqual(outcome.violations, []);
    assert.deepEqual(outcome.notCompared, [
      'keyword: in the previous report (57.0%) but did not run now; not compared',
      'vector: in the previous report (50.0%) but did not run now; not compared',
      'baseline: not in the previous report; not compared',
    ]);
    // Every check made is listed, passed or not: CI shows them as test cases.
    assert.deepEqual(
      outcome.checks.map((c) => [c.name, c.passed]),
      [
        ['hybrid accuracy ≥ 60.0%', true],
        ['hybrid accuracy drop ≤ 2 points (was 61.0%)', true],
      ],
    );
    const failed = runGate(now, { previous, maxDropPoints: 0.5 });
    assert.deepEqual(
      failed.checks.map((c) => [c.name, c.passed, c.message]),
      [
        [
          'hybrid accuracy drop ≤ 0.5 points (was 61.0%)',
          false,
          'hybrid: accuracy fell 1.0 points (61.0% → 60.0%), more than --max-drop 0.5',
        ],
      ],
    );
  });
});

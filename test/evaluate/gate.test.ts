import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/errors.js';
import { checkGate, parseFailUnder } from '../../src/evaluate/gate.js';

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
    const gone = checkGate({ modes: [{ mode: 'hybrid', accuracy: 0.7 }] }, { previous, maxDropPoints: 5 });
    assert.deepEqual(
      gone.map((x) => [x.kind, x.mode]),
      [['missing-mode', 'keyword']],
    );
  });
});

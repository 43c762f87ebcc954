import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EvidenceRef, RunRecord } from '../../src/evaluate/eval-types.js';
import {
  aurc,
  brierScore,
  compareModes,
  evidenceHit,
  expectedCalibrationError,
  expectedCalibrationErrorFloor,
  inferType,
  mcnemarExact,
  modeMetrics,
  percentile,
  reliabilityBins,
  riskCoverage,
  selectiveAccuracy,
  wilsonInterval,
} from '../../src/evaluate/metrics.js';
import { seededRandom } from '../../src/seeded-random.js';

const close = (actual: number, expected: number, eps = 1e-6): void =>
  assert.ok(Math.abs(actual - expected) < eps, `${actual} ≉ ${expected}`);

function ref(over: Partial<EvidenceRef> = {}): EvidenceRef {
  return {
    chunk_id: 'c',
    book: '证券投资基金_上册',
    chapter: '第二章 基金的分类',
    section: '第一节',
    figure_ref: '',
    page_start: '44',
    page_end: '46',
    chunk_type: 'text',
    ...over,
  };
}

function rec(id: string, over: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    mode: 'keyword',
    fingerprint: 'f',
    answerer: 'offline',
    question: `q${id}`,
    predicted: 'A',
    gold: 'A',
    correct: true,
    fallback: null,
    message: null,
    confidence: 0.5,
    type: null,
    type_source: null,
    gold_evidence: null,
    evidence: [],
    retrieved: [],
    latency_ms: 10,
    tokens: null,
    finished_at: '2025-01-01T00:00:00Z',
    ...over,
  };
}

void describe('metrics against hand-computed values', () => {
  void it('Wilson interval', () => {
    // 7/10: centre (0.7 + z²/20)/(1 + z²/10) = 0.644495, half-width 0.247716 (z = 1.959964).
    const [lo, hi] = wilsonInterval(7, 10);
    close(lo, 0.39678, 1e-5);
    close(hi, 0.892211, 1e-5);
    assert.deepEqual(wilsonInterval(0, 0), [0, 0]);
    const [lo0, hi0] = wilsonInterval(0, 20);
    assert.equal(lo0, 0);
    close(hi0, 0.161125, 1e-5); // z²/(n + z²) = 3.841459 / 23.841459
    assert.equal(wilsonInterval(20, 20)[1], 1);
  });

  void it('percentiles interpolate linearly', () => {
    assert.equal(percentile([40, 10, 30, 20], 0.5), 25);
    close(percentile([10, 20, 30, 40], 0.95), 38.5); // rank 2.85 → 30 + 0.85·10
    assert.equal(percentile([7], 0.95), 7);
    assert.equal(percentile([], 0.5), 0);
  });

  void it('Brier score and ECE', () => {
    const items = [
      { confidence: 0.9, correct: true },
      { confidence: 0.6, correct: false },
      { confidence: 0.2, correct: false },
      { confidence: 0.8, correct: true },
    ];
    close(brierScore(items), (0.01 + 0.36 + 0.04 + 0.04) / 4);
    close(expectedCalibrationError(items), (0.1 + 0.6 + 0.2 + 0.2) / 4);
    // Two answers in one bin: |accuracy 0.5 − mean confidence 0.635| weighted 2/3, plus |1 − 1| for the confidence-1 answer.
    const shared = [
      { confidence: 0.65, correct: true },
      { confidence: 0.62, correct: false },
      { confidence: 1, correct: true },
    ];
    close(expectedCalibrationError(shared, 10), (2 / 3) * 0.135);
    const bins = reliabilityBins(shared, 10);
    assert.equal(reliabilityBins(shared).length, 15);
    assert.equal(bins.length, 10);
    assert.equal(bins[6]?.count, 2);
    close(bins[6]?.confidence ?? -1, 0.635);
    assert.equal(bins[6]?.accuracy, 0.5);
    assert.equal(bins[9]?.count, 1); // confidence 1.0 lands in the last bin
    assert.equal(bins[0]?.accuracy, null);
  });

  void it('McNemar exact test', () => {
    close(mcnemarExact(1, 9), 22 / 1024); // 2·(C(10,0)+C(10,1))/2^10
    close(mcnemarExact(2, 5), 58 / 128); // 2·(1+7+21)/2^7
    assert.equal(mcnemarExact(3, 3), 1);
    assert.equal(mcnemarExact(0, 0), 1);
    close(mcnemarExact(0, 6), 2 / 64);
  });

  void it('Evidence hit@K: book + printed page inside the chunk range, or the same figure', () => {
    assert.equal(evidenceHit({ book: '上册', page: '45' }, [ref()], 5), true);
    assert.equal(evidenceHit({ book: '下册', page: '45' }, [ref()], 5), false);
    assert.equal(evidenceHit({ book: '上册', page: '47' }, [ref()], 5), false);
    assert.equal(evidenceHit({ page: '第46页' }, [ref()], 5), true);
    assert.equal(
      evidenceHit(
        { figure_ref: '表 2-1' },
        [ref({ page_start: '', page_end: '' }), ref({ figure_ref: '表2-1', chunk_type: 'manual_table_rewrite' })],
        2,
      ),
      true,
    );
    assert.equal(evidenceHit({ figure_ref: '表2-1' }, [ref(), ref({ figure_ref: '表2-1' })], 1), false); // outside the top K
    assert.equal(evidenceHit(null, [ref()], 5), null);
    assert.equal(evidenceHit({ book: '上册' }, [ref()], 5), null); // a book alone locates nothing
  });

  void it("question type: dataset first, else the top evidence's chunk type", () => {
    assert.deepEqual(inferType('text', [ref({ chunk_type: 'manual_table_rewrite' })]), { type: 'text', source: 'dataset' });
    assert.deepEqual(inferType(null, [ref({ chunk_type: 'manual_table_rewrite' }), ref()]), { type: 'table', source: 'evidence' });
    assert.deepEqual(inferType(null, []), { type: null, source: null });
  });

  void it('per-mode metrics: fallbacks count as incorrect and are listed, abstentions apart', () => {
    const records = [
      rec('1', { confidence: 0.9, type: 'text', latency_ms: 10, gold_evidence: { book: '上册', page: '45' }, retrieved: [ref()] }),
      rec('2', {
        predicted: 'B',
        correct: false,
        confidence: 0.6,
        type: 'text',
        latency_ms: 20,
        gold_evidence: { page: '99' },
        retrieved: [ref()],
      }),
      rec('3', {
        predicted: 'A',
        correct: false,
        fallback: 'no_evidence',
        message: '未在教材中找到明确依据',
        confidence: 0.2,
        type: 'table',
        latency_ms: 30,
      }),
      rec('4', {
        predicted: '',
        correct: false,
        fallback: 'off_topic',
        confidence: 0,
        type: 'table',
        latency_ms: 40,
        tokens: { prompt: 100, completion: 7 },
      }),
      rec('5', { confidence: 0.8, latency_ms: 50, tokens: { prompt: 50, completion: 3 } }),
    ];
    const m = modeMetrics('keyword', records, { k: 5, runFile: 'run.jsonl', answeredNow: 3, answerer: 'offline' });
    assert.equal(m.total, 5);
    assert.equal(m.correct, 2);
    assert.equal(m.incorrect, 2);
    assert.equal(m.abstained, 1);
    assert.equal(m.accuracy, 0.4);
    assert.deepEqual(m.ci95, wilsonInterval(2, 5));
    assert.equal(m.evidence_hit_rate, 0.5);
    assert.equal(m.evidence_gold_count, 2);
    assert.deepEqual(m.by_type, { text: { total: 2, correct: 1, accuracy: 0.5 }, table: { total: 2, correct: 0, accuracy: 0 } });
    close(m.brier, (0.01 + 0.36 + 0.04 + 0 + 0.04) / 5);
    assert.deepEqual(m.latency_ms, { p50: 30, p95: 48 });
    assert.deepEqual(m.tokens, { prompt: 150, completion: 10 });
    assert.deepEqual(m.fallbacks, [
      { id: '3', fallback: 'no_evidence', message: '未在教材中找到明确依据' },
      { id: '4', fallback: 'off_topic', message: null },
    ]);
    assert.equal(m.resumed, 2);
  });

  void it('paired comparison counts discordant pairs on shared questions only', () => {
    const a = ['1', '2', '3', '4', '5', '6', '7'].map((id) => rec(id, { correct: id !== '7' }));
    const b = ['1', '2', '3', '4', '5', '6', '7', '8'].map((id) => rec(id, { mode: 'hybrid', correct: id === '7' || id === '8' }));
    const c = compareModes('keyword', a, 'hybrid', b);
    assert.equal(c.n, 7);
    assert.equal(c.a_only, 6);
    assert.equal(c.b_only, 1);
    close(c.p_value, (2 * (1 + 7)) / 128);
    assert.equal(c.verdict, 'within noise'); // p = 0.125
    const d = compareModes(
      'keyword',
      a,
      'hybrid',
      a.map((r) => ({ ...r, correct: false })),
    );
    assert.equal(d.verdict, 'keyword'); // 6 vs 0: p = 2/64
  });
});

void describe('selective answering', () => {
  // Confidence order: 0.9 right, 0.8 wrong, 0.7 right, 0.6 right, 0.2 wrong (the 0.7 ties are kept in input order).
  const items = [
    { confidence: 0.6, correct: true },
    { confidence: 0.9, correct: true },
    { confidence: 0.2, correct: false },
    { confidence: 0.8, correct: false },
    { confidence: 0.7, correct: true },
  ];
  void it('risk–coverage curve and AURC against hand values', () => {
    const curve = riskCoverage(items);
    assert.deepEqual(
      curve.map((p) => p.count),
      [1, 2, 3, 4, 5],
    );
    const risks = [0, 1 / 2, 1 / 3, 1 / 4, 2 / 5];
    curve.forEach((p, i) => close(p.risk, risks[i] ?? -1));
    close(aurc(items), (0 + 0.5 + 1 / 3 + 0.25 + 0.4) / 5);
    assert.equal(aurc([]), 0);
    // A perfect ranking gives the lowest AURC for the same answers.
    const perfect = items.map((it) => ({ ...it, confidence: it.correct ? 0.9 : 0.1 }));
    close(aurc(perfect), (0 + 0 + 0 + 0.25 + 0.4) / 5);
  });
  void it('selective accuracy at 25/50/75/100% coverage', () => {
    // ceil(0.25 · 5) = 2 most confident: 0.9 right, 0.8 wrong.
    close(selectiveAccuracy(items, 0.25) ?? -1, 1 / 2);
    close(selectiveAccuracy(items, 0.5) ?? -1, 2 / 3);
    close(selectiveAccuracy(items, 0.75) ?? -1, 3 / 4);
    close(selectiveAccuracy(items, 1) ?? -1, 3 / 5);
    assert.equal(selectiveAccuracy([], 0.5), null);
  });
});

void describe('ECE floor: what a perfectly calibrated confidence shows by chance', () => {
  void it('matches hand values', () => {
    // One answer at 0.5: right or wrong, |1 − 0.5| = |0 − 0.5| = 0.5.
    close(expectedCalibrationErrorFloor([0.5]), 0.5);
    // Two at 0.5 in one bin: 0, 1 or 2 right with 1/4, 1/2, 1/4; E|k − 1| / 2 = (1/4 + 1/4) / 2.
    close(expectedCalibrationErrorFloor([0.5, 0.5]), 0.25);
    // One at 0.9: 0.9 · 0.1 + 0.1 · 0.9.
    close(expectedCalibrationErrorFloor([0.9]), 0.18);
    // Certain outcomes leave nothing to chance.
    close(expectedCalibrationErrorFloor([1, 0, 1]), 0);
    // 0.1 and 0.9 fall in different bins: each contributes its own E|k − p|, over N = 2.
    close(expectedCalibrationErrorFloor([0.1, 0.9]), (0.18 + 0.18) / 2);
    assert.equal(expectedCalibrationErrorFloor([]), 0);
  });
  void it('agrees with the mean ECE of outcomes drawn from the confidences, and shrinks with more questions', () => {
    const rand = seededRandom(11);
    const confidences = Array.from({ length: 71 }, () => 0.2 + 0.75 * rand());
    let sum = 0;
    const draws = 4000;
    for (let d = 0; d < draws; d++) {
      sum += expectedCalibrationError(confidences.map((c) => ({ confidence: c, correct: rand() < c })));
    }
    close(expectedCalibrationErrorFloor(confidences), sum / draws, 0.004);
    const many = Array.from({ length: 710 }, () => 0.2 + 0.75 * rand());
    assert.ok(expectedCalibrationErrorFloor(many) < expectedCalibrationErrorFloor(confidences) / 2);
  });
});

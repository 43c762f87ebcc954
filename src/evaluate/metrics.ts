import type { AnswerMode } from '../answer/answer-types.js';
import type {
  EvidenceRef,
  GoldEvidence,
  ModeComparison,
  ModeReport,
  QuestionType,
  ReliabilityBin,
  RunRecord,
  TypeBreakdown,
} from './eval-types.js';

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * Wilson score interval for a binomial proportion (Wilson 1927). Unlike the normal approximation it stays inside [0, 1]
 * and is sensible for small n and for accuracies near 0 or 1, which validation sets of a few hundred questions hit.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 0];
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Percentile with linear interpolation between closest ranks (numpy's default); 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? 0;
  const b = sorted[hi] ?? 0;
  return a + (b - a) * (pos - lo);
}

/** Mean squared difference between confidence and outcome (0 perfect, 1 worst). */
export function brierScore(items: readonly { confidence: number; correct: boolean }[]): number {
  if (items.length === 0) return 0;
  let sum = 0;
  for (const it of items) sum += (clamp01(it.confidence) - (it.correct ? 1 : 0)) ** 2;
  return sum / items.length;
}

/** Confidence bins of equal width; a confidence of exactly 1 falls in the last bin. */
export function reliabilityBins(items: readonly { confidence: number; correct: boolean }[], bins = CALIBRATION_BINS): ReliabilityBin[] {
  const acc = Array.from({ length: bins }, () => ({ count: 0, conf: 0, correct: 0 }));
  for (const it of items) {
    const c = clamp01(it.confidence);
    const b = acc[Math.min(bins - 1, Math.floor(c * bins))];
    if (!b) continue;
    b.count++;
    b.conf += c;
    if (it.correct) b.correct++;
  }
  return acc.map((b, i) => ({
    lo: i / bins,
    hi: (i + 1) / bins,
    count: b.count,
    confidence: b.count > 0 ? b.conf / b.count : null,
    accuracy: b.count > 0 ? b.correct / b.count : null,
  }));
}

/** Expected calibration error over equal-width bins: Σ (n_b / N) · |accuracy_b − confidence_b|. */
export function expectedCalibrationError(items: readonly { confidence: number; correct: boolean }[], bins = CALIBRATION_BINS): number {
  if (items.length === 0) return 0;
  let ece = 0;
  for (const b of reliabilityBins(items, bins)) {
    if (b.count === 0 || b.accuracy === null || b.confidence === null) continue;
    ece += (b.count / items.length) * Math.abs(b.accuracy - b.confidence);
  }
  return ece;
}

/**
 * The ECE a perfectly calibrated confidence would still show by chance: its expectation when each outcome is drawn
 * with the stated confidence as its probability, computed exactly (per bin, the count of right answers follows a
 * Poisson-binomial distribution). With few questions it is far from 0 (71 spread-out confidences: about 0.12),
 * so an ECE near this floor is all that a calibrated confidence can show on that many questions.
 */
export function expectedCalibrationErrorFloor(confidences: readonly number[], bins = CALIBRATION_BINS): number {
  if (confidences.length === 0) return 0;
  const byBin = Array.from({ length: bins }, () => [] as number[]);
  for (const raw of confidences) byBin[Math.min(bins - 1, Math.floor(clamp01(raw) * bins))]?.push(clamp01(raw));
  let total = 0;
  for (const ps of byBin) {
    if (ps.length === 0) continue;
    // dist[k] = P(k of these answers are right), built one answer at a time.
    let dist = [1];
    for (const p of ps) {
      const next = new Array<number>(dist.length + 1).fill(0);
      dist.forEach((q, k) => {
        next[k] = (next[k] ?? 0) + q * (1 - p);
        next[k + 1] = (next[k + 1] ?? 0) + q * p;
      });
      dist = next;
    }
    const expected = ps.reduce((a, p) => a + p, 0);
    // Σ_b (n_b / N) · E|k/n_b − mean p| = Σ_b E|k − Σp| / N.
    total += dist.reduce((a, q, k) => a + q * Math.abs(k - expected), 0);
  }
  return total / confidences.length;
}

/** ln C(n, k), via log-gamma-free summation (n stays in the thousands here). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * Two-sided exact McNemar test: under H0 the discordant pairs split Binomial(b + c, 1/2);
 * p = min(1, 2 · P[X ≤ min(b, c)]). Exact rather than χ² because discordant counts are often small.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/**
 * Bins of the calibration measures (ECE and the reliability diagram): 15 equal-width bins, as in Guo et al. 2017
 * ("On Calibration of Modern Neural Networks"), which the calibration targets are stated in.
 */
export const CALIBRATION_BINS = 15;

/** One point of the risk–coverage curve: answering the `count` most confident questions. */
export interface RiskCoveragePoint {
  count: number;
  /** count / N. */
  coverage: number;
  /** Share of those answers that are wrong. */
  risk: number;
}

/**
 * Most confident first; ties keep the input order (a stable sort), so the curve is reproducible. Items are what
 * the answerer would say if it had to answer: abstentions count with their best guess and its confidence.
 */
function byConfidence<T extends { confidence: number }>(items: readonly T[]): T[] {
  return items
    .map((it, i) => ({ it, i }))
    .sort((a, b) => clamp01(b.it.confidence) - clamp01(a.it.confidence) || a.i - b.i)
    .map((x) => x.it);
}

/** The risk–coverage curve (Geifman & El-Yaniv 2017): selective risk when answering only the k most confident, k = 1…N. */
export function riskCoverage(items: readonly { confidence: number; correct: boolean }[]): RiskCoveragePoint[] {
  const sorted = byConfidence(items);
  const out: RiskCoveragePoint[] = [];
  let wrong = 0;
  sorted.forEach((it, k) => {
    if (!it.correct) wrong++;
    out.push({ count: k + 1, coverage: (k + 1) / sorted.length, risk: wrong / (k + 1) });
  });
  return out;
}

/**
 * Area under the risk–coverage curve: the mean selective risk over k = 1…N (Geifman et al. 2019, "Bias-Reduced
 * Uncertainty Estimation for Deep Neural Classifiers"). Lower is better; a confidence that ranks every right answer
 * above every wrong one reaches the minimum for its accuracy; 0 for an empty list.
 */
export function aurc(items: readonly { confidence: number; correct: boolean }[]): number {
  const curve = riskCoverage(items);
  if (curve.length === 0) return 0;
  return curve.reduce((s, p) => s + p.risk, 0) / curve.length;
}

/** Coverages at which selective accuracy is reported. */
export const REPORTED_COVERAGES = [0.25, 0.5, 0.75, 1] as const;

/** Accuracy of the ceil(coverage · N) most confident answers; null for an empty list. */
export function selectiveAccuracy(items: readonly { confidence: number; correct: boolean }[], coverage: number): number | null {
  if (items.length === 0) return null;
  const k = Math.max(1, Math.ceil(Math.min(1, Math.max(0, coverage)) * items.length - 1e-9));
  const top = byConfidence(items).slice(0, k);
  return top.filter((it) => it.correct).length / top.length;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** Loose equality for book names: `上册` matches `证券投资基金_上册` and `证券投资基金（上册）`. */
function sameBook(gold: string, book: string): boolean {
  const g = gold.normalize('NFKC').trim();
  const b = book.normalize('NFKC').trim();
  if (g === '' || b === '') return true;
  return g === b || b.includes(g) || g.includes(b);
}

function normRef(s: string): string {
  return s.normalize('NFKC').replace(/\s+/g, '').toLowerCase();
}

/**
 * Whether one evidence chunk covers the gold location: the same figure/table reference, or the same book with the
 * gold printed page inside the chunk's printed page range. Chapter/section only decide when no page or figure is given.
 */
export function evidenceCovers(gold: GoldEvidence, ref: EvidenceRef): boolean {
  if (gold.figure_ref && ref.figure_ref && normRef(gold.figure_ref) === normRef(ref.figure_ref) && sameBook(gold.book ?? '', ref.book))
    return true;
  if (gold.page) {
    const page = Number(gold.page.replace(/[^\d]/g, ''));
    const start = Number(ref.page_start);
    const end = ref.page_end === '' ? start : Number(ref.page_end);
    if (!Number.isFinite(page) || gold.page.trim() === '' || ref.page_start === '' || !Number.isFinite(start) || !Number.isFinite(end))
      return false;
    return sameBook(gold.book ?? '', ref.book) && page >= start && page <= end;
  }
  if (gold.figure_ref) return false;
  if (gold.section) return sameBook(gold.book ?? '', ref.book) && normRef(ref.section).includes(normRef(gold.section));
  if (gold.chapter) return sameBook(gold.book ?? '', ref.book) && normRef(ref.chapter).includes(normRef(gold.chapter));
  return false;
}

/** Hit@K for one question: null when the question has no usable gold location. */
export function evidenceHit(gold: GoldEvidence | null, retrieved: readonly EvidenceRef[], k: number): boolean | null {
  if (!gold || !(gold.page || gold.figure_ref || gold.section || gold.chapter)) return null;
  return retrieved.slice(0, k).some((ref) => evidenceCovers(gold, ref));
}

/** The type a question counts under: the dataset's, else the top evidence's chunk type. */
export function inferType(
  datasetType: QuestionType | null,
  retrieved: readonly EvidenceRef[],
): { type: QuestionType | null; source: 'dataset' | 'evidence' | null } {
  if (datasetType) return { type: datasetType, source: 'dataset' };
  const top = retrieved[0];
  if (!top || !top.chunk_type) return { type: null, source: null };
  return { type: top.chunk_type === 'manual_table_rewrite' ? 'table' : 'text', source: 'evidence' };
}

/**
 * Whether what the confidence is about was right: a correct answer, or, for an abstention, its best guess.
 * A fallback answer with a letter stays wrong, as in accuracy.
 */
export function letterRight(r: Pick<RunRecord, 'predicted' | 'guess' | 'gold' | 'correct'>): boolean {
  if (r.predicted !== '') return r.correct;
  return (r.guess ?? '') !== '' && r.guess === r.gold;
}

/** Metrics of one mode from its finished records (the run file's content). */
export function modeMetrics(
  mode: AnswerMode,
  records: readonly RunRecord[],
  options: { k: number; runFile: string; answeredNow: number; answerer: 'offline' | 'llm' },
): ModeReport {
  const n = records.length;
  const correct = records.filter((r) => r.correct).length;
  const abstained = records.filter((r) => !r.correct && r.predicted === '').length;
  const incorrect = n - correct - abstained;
  let hits = 0;
  let goldCount = 0;
  for (const r of records) {
    const hit = evidenceHit(r.gold_evidence, r.retrieved, options.k);
    if (hit === null) continue;
    goldCount++;
    if (hit) hits++;
  }
  const byType: Partial<Record<QuestionType, TypeBreakdown>> = {};
  for (const r of records) {
    if (!r.type) continue;
    const t = (byType[r.type] ??= { total: 0, correct: 0, accuracy: null });
    t.total++;
    if (r.correct) t.correct++;
  }
  for (const t of Object.values(byType)) t.accuracy = t.total > 0 ? t.correct / t.total : null;
  // Calibration is about the letter the confidence is for: the answer, or the guess of an abstention.
  const calib = records.map((r) => ({ confidence: r.confidence, correct: letterRight(r) }));
  const stated = records
    .filter((r) => typeof r.stated_confidence === 'number')
    .map((r) => ({ confidence: r.stated_confidence ?? 0, correct: letterRight(r) }));
  const curve = riskCoverage(calib);
  const step = Math.max(1, Math.ceil(curve.length / 100));
  const latencies = records.map((r) => r.latency_ms);
  const withTokens = records.filter((r) => r.tokens !== null);
  const tokens =
    withTokens.length === 0
      ? null
      : {
          prompt: withTokens.reduce((s, r) => s + (r.tokens?.prompt ?? 0), 0),
          completion: withTokens.reduce((s, r) => s + (r.tokens?.completion ?? 0), 0),
        };
  return {
    mode,
    answerer: records[0]?.answerer ?? options.answerer,
    total: n,
    accuracy: n > 0 ? correct / n : 0,
    ci95: wilsonInterval(correct, n),
    correct,
    incorrect,
    abstained,
    evidence_hit_rate: goldCount > 0 ? hits / goldCount : null,
    evidence_hit_k: options.k,
    evidence_gold_count: goldCount,
    by_type: byType,
    brier: brierScore(calib),
    ece: expectedCalibrationError(calib),
    reliability: reliabilityBins(calib),
    selective_accuracy: REPORTED_COVERAGES.map((coverage) => ({ coverage, accuracy: selectiveAccuracy(calib, coverage) })),
    aurc: aurc(calib),
    risk_coverage: curve
      .filter((_, i) => i % step === step - 1 || i === curve.length - 1)
      .map((p) => ({ coverage: p.coverage, risk: p.risk })),
    stated_calibration:
      stated.length > 0 ? { count: stated.length, brier: brierScore(stated), ece: expectedCalibrationError(stated) } : null,
    latency_ms: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
    tokens,
    fallbacks: records.filter((r) => r.fallback !== null).map((r) => ({ id: r.id, fallback: r.fallback ?? '', message: r.message })),
    run_file: options.runFile,
    answered_now: options.answeredNow,
    resumed: n - options.answeredNow,
  };
}

/** McNemar comparison of two modes over the questions both answered. */
export function compareModes(
  a: AnswerMode,
  ra: readonly RunRecord[],
  b: AnswerMode,
  rb: readonly RunRecord[],
  alpha = 0.05,
): ModeComparison {
  const byId = new Map(rb.map((r) => [r.id, r]));
  let n = 0;
  let aOnly = 0;
  let bOnly = 0;
  for (const x of ra) {
    const y = byId.get(x.id);
    if (!y) continue;
    n++;
    if (x.correct && !y.correct) aOnly++;
    else if (!x.correct && y.correct) bOnly++;
  }
  const p = mcnemarExact(aOnly, bOnly);
  return { a, b, n, a_only: aOnly, b_only: bOnly, p_value: p, verdict: p < alpha ? (aOnly > bOnly ? a : b) : 'within noise' };
}

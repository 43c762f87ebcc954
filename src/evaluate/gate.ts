import { EVAL_MODES, type AnswerMode } from '../answer/answer-types.js';
import { UsageError } from '../errors.js';

/** Per-mode accuracy floors; `all` applies to every mode that ran. Values are fractions (0.6 = 60%). */
export type FailUnder = Partial<Record<AnswerMode | 'all', number>>;

/** The accuracy part of a report the gate looks at (current or previous). */
export interface GateReport {
  modes: readonly { mode: string; accuracy: number }[];
}

/** One reason the gate fails. */
export interface GateViolation {
  kind: 'fail-under' | 'max-drop' | 'missing-mode';
  mode: string;
  /** Accuracy now (fraction), null when the mode did not run. */
  actual: number | null;
  /** The floor (fail-under) or the previous accuracy (max-drop). */
  threshold: number;
  message: string;
}

function parseFraction(name: string, raw: string): number {
  const v = raw.trim().replace(/%$/, '');
  const n = Number(v);
  if (v === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new UsageError(`${name} needs an accuracy like 0.6 or 60, got "${raw}"`);
  // Values above 1 are percentages: CI configs are written both ways.
  return n > 1 || raw.trim().endsWith('%') ? n / 100 : n;
}

/** Parses `--fail-under 0.6` (all modes) or `hybrid=0.6,keyword=0.5`. */
export function parseFailUnder(raw: string): FailUnder {
  const out: FailUnder = {};
  for (const part of raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const eq = part.indexOf('=');
    if (eq === -1) {
      out.all = parseFraction('--fail-under', part);
      continue;
    }
    const mode = part.slice(0, eq).trim();
    if (!(EVAL_MODES as readonly string[]).includes(mode) && mode !== 'all') {
      throw new UsageError(`--fail-under: unknown mode "${mode}"; use ${EVAL_MODES.join(', ')} (e.g. hybrid=0.6,keyword=0.5)`);
    }
    out[mode as AnswerMode | 'all'] = parseFraction(`--fail-under ${mode}`, part.slice(eq + 1));
  }
  if (Object.keys(out).length === 0) throw new UsageError('--fail-under needs a value like 0.6 or hybrid=0.6,keyword=0.5');
  return out;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * The CI gate, a pure function: accuracy floors per mode, and the largest allowed drop (in accuracy points) against a
 * previous report. A mode named in `--fail-under`, or present in the previous report, that did not run is a violation:
 * a guard that silently passes when a mode vanished guards nothing.
 */
export function checkGate(
  current: GateReport,
  options: { failUnder?: FailUnder; previous?: GateReport; maxDropPoints?: number },
): GateViolation[] {
  const violations: GateViolation[] = [];
  const byMode = new Map(current.modes.map((m) => [m.mode, m.accuracy]));
  const failUnder = options.failUnder ?? {};
  for (const m of current.modes) {
    const floor = failUnder[m.mode as AnswerMode] ?? failUnder.all;
    if (floor !== undefined && m.accuracy < floor) {
      violations.push({
        kind: 'fail-under',
        mode: m.mode,
        actual: m.accuracy,
        threshold: floor,
        message: `${m.mode}: accuracy ${pct(m.accuracy)} is below --fail-under ${pct(floor)}`,
      });
    }
  }
  for (const [mode, floor] of Object.entries(failUnder)) {
    if (mode === 'all' || floor === undefined || byMode.has(mode)) continue;
    violations.push({
      kind: 'missing-mode',
      mode,
      actual: null,
      threshold: floor,
      message: `${mode}: named in --fail-under but did not run`,
    });
  }
  if (options.previous) {
    const maxDrop = options.maxDropPoints ?? 0;
    for (const prev of options.previous.modes) {
      const now = byMode.get(prev.mode);
      if (now === undefined) {
        violations.push({
          kind: 'missing-mode',
          mode: prev.mode,
          actual: null,
          threshold: prev.accuracy,
          message: `${prev.mode}: in the previous report (${pct(prev.accuracy)}) but did not run now`,
        });
        continue;
      }
      // Reports store accuracy to 4 decimals (0.01 points): compare at that precision, so a drop that is
      // exactly at the limit in the report does not fail through rounding or float noise.
      const drop = Math.round((prev.accuracy - now) * 10_000) / 100;
      if (drop > maxDrop) {
        violations.push({
          kind: 'max-drop',
          mode: prev.mode,
          actual: now,
          threshold: prev.accuracy,
          message: `${prev.mode}: accuracy fell ${drop.toFixed(1)} points (${pct(prev.accuracy)} → ${pct(now)}), more than --max-drop ${maxDrop}`,
        });
      }
    }
  }
  return violations;
}

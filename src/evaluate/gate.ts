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

/** One check the gate made, passed or not: what CI lists as a test case. */
export interface GateCheck {
  kind: GateViolation['kind'];
  mode: string;
  /** What was checked, e.g. `hybrid accuracy ≥ 60.0%` or `keyword drop ≤ 2 points`. */
  name: string;
  passed: boolean;
  /** The violation's message when it failed, what was measured when it passed. */
  message: string;
}

/** Everything the gate decided: every check made, the failed ones, and the modes it could not compare. */
export interface GateOutcome {
  checks: GateCheck[];
  violations: GateViolation[];
  /** One line per mode in only one of the two reports (not compared unless `strict`). */
  notCompared: string[];
}

/** Options of the gate: floors, and a previous report with the largest allowed drop. */
export interface GateOptions {
  failUnder?: FailUnder;
  previous?: GateReport;
  maxDropPoints?: number;
  /** A mode of the previous report that did not run now fails the gate (default: it is only reported as not compared). */
  strict?: boolean;
}

/**
 * The CI gate, a pure function: accuracy floors per mode, and the largest allowed drop (in accuracy points) against a
 * previous report. A mode named in `--fail-under` that did not run is a violation: a guard that silently passes when a
 * mode vanished guards nothing. Against a previous report only the modes both ran are compared (a run with
 * `--modes hybrid` is not a regression of a default run's keyword mode); the others are listed in `notCompared`, and
 * with `strict` a mode of the previous report that did not run now is a violation.
 */
export function runGate(current: GateReport, options: GateOptions): GateOutcome {
  const checks: Array<GateCheck & { violation?: GateViolation }> = [];
  const notCompared: string[] = [];
  const byMode = new Map(current.modes.map((m) => [m.mode, m.accuracy]));
  const failUnder = options.failUnder ?? {};
  const fail = (v: GateViolation, name: string): void => {
    checks.push({ kind: v.kind, mode: v.mode, name, passed: false, message: v.message, violation: v });
  };
  for (const m of current.modes) {
    const floor = failUnder[m.mode as AnswerMode] ?? failUnder.all;
    if (floor === undefined) continue;
    const name = `${m.mode} accuracy ≥ ${pct(floor)}`;
    if (m.accuracy < floor) {
      fail(
        {
          kind: 'fail-under',
          mode: m.mode,
          actual: m.accuracy,
          threshold: floor,
          message: `${m.mode}: accuracy ${pct(m.accuracy)} is below --fail-under ${pct(floor)}`,
        },
        name,
      );
    } else {
      checks.push({ kind: 'fail-under', mode: m.mode, name, passed: true, message: `${m.mode}: accuracy ${pct(m.accuracy)}` });
    }
  }
  for (const [mode, floor] of Object.entries(failUnder)) {
    if (mode === 'all' || floor === undefined || byMode.has(mode)) continue;
    fail(
      { kind: 'missing-mode', mode, actual: null, threshold: floor, message: `${mode}: named in --fail-under but did not run` },
      `${mode} accuracy ≥ ${pct(floor)}`,
    );
  }
  if (options.previous) {
    const maxDrop = options.maxDropPoints ?? 0;
    const before = new Set(options.previous.modes.map((m) => m.mode));
    for (const prev of options.previous.modes) {
      const now = byMode.get(prev.mode);
      const name = `${prev.mode} accuracy drop ≤ ${maxDrop} points (was ${pct(prev.accuracy)})`;
      if (now === undefined) {
        const message = `${prev.mode}: in the previous report (${pct(prev.accuracy)}) but did not run now`;
        if (options.strict) fail({ kind: 'missing-mode', mode: prev.mode, actual: null, threshold: prev.accuracy, message }, name);
        else notCompared.push(`${message}; not compared`);
        continue;
      }
      // Reports store accuracy to 4 decimals (0.01 points): compare at that precision, so a drop that is
      // exactly at the limit in the report does not fail through rounding or float noise.
      const drop = Math.round((prev.accuracy - now) * 10_000) / 100;
      if (drop > maxDrop) {
        fail(
          {
            kind: 'max-drop',
            mode: prev.mode,
            actual: now,
            threshold: prev.accuracy,
            message: `${prev.mode}: accuracy fell ${drop.toFixed(1)} points (${pct(prev.accuracy)} → ${pct(now)}), more than --max-drop ${maxDrop}`,
          },
          name,
        );
      } else {
        checks.push({
          kind: 'max-drop',
          mode: prev.mode,
          name,
          passed: true,
          message: `${prev.mode}: ${pct(prev.accuracy)} → ${pct(now)}`,
        });
      }
    }
    for (const m of current.modes) if (!before.has(m.mode)) notCompared.push(`${m.mode}: not in the previous report; not compared`);
  }
  return {
    checks: checks.map(({ violation: _v, ...c }) => c),
    violations: checks.flatMap((c) => (c.violation ? [c.violation] : [])),
    notCompared,
  };
}

/** The failed checks of `runGate` (see there). */
export function checkGate(current: GateReport, options: GateOptions): GateViolation[] {
  return runGate(current, options).violations;
}

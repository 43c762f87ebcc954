import { formatCitation } from '../text/citation.js';
import type { EvalReport } from './eval-types.js';
import type { GateCheck } from './gate.js';

function short(s: string, n: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

/** Escapes text for XML content and attribute values, dropping characters XML 1.0 forbids. */
export function xmlEscape(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/**
 * JUnit XML for CI's test view. The test cases that can fail are the gate's checks (suite `eval.gate`: each
 * `--fail-under` floor and each `--compare` drop limit), so the view is red exactly when the job fails. Every question in
 * every mode is a test case too (suite `eval.<mode>`), but a wrong answer is not a failed test: a tuning set always has
 * some, and reporting them as failures would turn every passing run red. It is `skipped` with predicted and gold in its
 * message and the question, confidence and evidence in its `system-out`, so it stays listed, counted and readable.
 */
export function reportJunit(report: EvalReport, gate?: { checks: readonly GateCheck[] }): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const checks = gate?.checks ?? [];
  const questions = report.modes.reduce((s, m) => s + (report.records[m.mode] ?? []).length, 0);
  const notRight = report.modes.reduce((s, m) => s + (report.records[m.mode] ?? []).filter((r) => !r.correct).length, 0);
  const failures = checks.filter((c) => !c.passed).length;
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  out.push(
    `<testsuites name="exam-copilot eval ${xmlEscape(report.dataset)}" tests="${questions + checks.length}" failures="${failures}" errors="0" skipped="${notRight}" time="${seconds(report.wall_ms)}">`,
  );
  if (gate) {
    out.push(`  <testsuite name="eval.gate" tests="${checks.length}" failures="${failures}" errors="0" skipped="0" time="0.000">`);
    for (const c of checks) {
      out.push(`    <testcase classname="eval.gate" name="${xmlEscape(c.name)}" time="0.000">`);
      if (!c.passed)
        out.push(`      <failure message="${xmlEscape(c.message)}" type="${xmlEscape(c.kind)}">${xmlEscape(c.message)}</failure>`);
      else out.push(`      <system-out>${xmlEscape(c.message)}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  for (const m of report.modes) {
    const records = report.records[m.mode] ?? [];
    const time = records.reduce((s, r) => s + r.latency_ms, 0);
    out.push(
      `  <testsuite name="${xmlEscape(`eval.${m.mode}`)}" tests="${records.length}" failures="0" errors="0" skipped="${records.filter((r) => !r.correct).length}" time="${seconds(time)}">`,
    );
    out.push('    <properties>');
    const selective = m.selective_accuracy.map(
      (s) => [`selective_accuracy_${Math.round(s.coverage * 100)}`, s.accuracy === null ? '' : s.accuracy.toFixed(4)] as const,
    );
    for (const [k, v] of [
      ['accuracy', m.accuracy.toFixed(4)],
      ['ci95', `${m.ci95[0].toFixed(4)}-${m.ci95[1].toFixed(4)}`],
      ['answerer', m.answerer],
      ['correct', String(m.correct)],
      ['incorrect', String(m.incorrect)],
      ['abstained', String(m.abstained)],
      ...selective,
      ['aurc', m.aurc.toFixed(4)],
    ] as const) {
      out.push(`      <property name="${k}" value="${xmlEscape(v)}"/>`);
    }
    out.push('    </properties>');
    for (const r of records) {
      const name = `${r.id}: ${short(r.question, 60)}`;
      out.push(`    <testcase classname="${xmlEscape(`eval.${m.mode}`)}" name="${xmlEscape(name)}" time="${seconds(r.latency_ms)}">`);
      if (!r.correct) {
        const kind = r.predicted === '' ? 'abstained' : r.fallback ? `fallback ${r.fallback}` : 'wrong answer';
        const summary = `not right: predicted ${r.predicted || '(none)'}, gold ${r.gold} (${kind})`;
        const body = [
          `question: ${r.question}`,
          `predicted: ${r.predicted || '(none)'}`,
          `gold: ${r.gold}`,
          `confidence: ${r.confidence.toFixed(3)}`,
          ...(r.fallback ? [`fallback: ${r.fallback}${r.message ? ` (${r.message})` : ''}`] : []),
          ...r.evidence.map((e, i) => `evidence ${i + 1}: ${formatCitation(e)}`),
          ...(r.evidence.length === 0 ? r.retrieved.slice(0, 3).map((e, i) => `retrieved ${i + 1}: ${formatCitation(e)}`) : []),
          ...(r.verdicts ?? []).map(
            (v) =>
              `verdict ${v.label}: ${v.verdict}${v.reason ? ` (${v.reason})` : ''}${v.quote ? ` “${v.quote}”` : ''}${v.citation ? ` ${v.citation}` : ''}`,
          ),
        ].join('\n');
        out.push(`      <skipped message="${xmlEscape(summary)}"/>`);
        out.push(`      <system-out>${xmlEscape(body)}</system-out>`);
      }
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

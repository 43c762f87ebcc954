import { writeFileAtomic } from '../write-atomic.js';
import { formatCitation } from '../text/citation.js';
import type { AnswerMode } from '../answer/answer-types.js';
import { quoteSegments } from '../answer/evidence.js';
import type { EvalReport, EvidenceRef, RecordVerdict, RunRecord } from './eval-types.js';
import type { GateCheck } from './gate.js';
import {
  chanceNote,
  chapterBreakdown,
  questionEvidence,
  questionResults,
  recordConfidenceWords,
  type ModeOutcome,
  type QuestionEvidence,
  type QuestionResult,
} from './question-results.js';
import { renderHtmlReport } from './render-html.js';
import { reportJunit } from './report-junit.js';
import { spreadsheetText } from './spreadsheet-cell.js';
import { rowIssueSummary } from './row-issues.js';

export { reportJunit, xmlEscape } from './report-junit.js';

/** Where to write each report; any may be omitted. */
export interface ReportTargets {
  json?: string;
  md?: string;
  junit?: string;
  predictions?: string;
  html?: string;
}

/** The JSON report: the issue's shape plus `skipped`, `warnings`, `skipped_modes` (per-question records stay in the run files). */
export function reportJson(report: EvalReport): unknown {
  return {
    dataset: report.dataset,
    total: report.total,
    skipped: report.skipped,
    row_issues: report.row_issues,
    warnings: report.warnings,
    modes: report.modes.map((m) => ({
      mode: m.mode,
      answerer: m.answerer,
      accuracy: round(m.accuracy),
      ci95: [round(m.ci95[0]), round(m.ci95[1])],
      correct: m.correct,
      incorrect: m.incorrect,
      abstained: m.abstained,
      evidence_hit_rate: m.evidence_hit_rate === null ? null : round(m.evidence_hit_rate),
      evidence_hit_k: m.evidence_hit_k,
      by_type: m.by_type,
      brier: round(m.brier),
      ece: round(m.ece),
      selective_accuracy: m.selective_accuracy.map((s) => ({
        coverage: s.coverage,
        accuracy: s.accuracy === null ? null : round(s.accuracy),
      })),
      aurc: round(m.aurc),
      stated_calibration: m.stated_calibration
        ? { count: m.stated_calibration.count, brier: round(m.stated_calibration.brier), ece: round(m.stated_calibration.ece) }
        : null,
      latency_ms: { p50: Math.round(m.latency_ms.p50), p95: Math.round(m.latency_ms.p95) },
      tokens: m.tokens,
      total: m.total,
      fallbacks: m.fallbacks,
      run_file: m.run_file,
    })),
    skipped_modes: report.skipped_modes,
    comparisons: report.comparisons.map((c) => ({ ...c, p_value: round(c.p_value) })),
    config: report.config,
  };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** `上册 | 第二章 … | 第一节 … | 表2-1 | p.12-13` */
export function formatEvidence(e: EvidenceRef): string {
  return formatCitation(e);
}

/** Markdown summary: the per-mode table, comparisons, skipped modes and rows, and the wrong answers. */
export function reportMarkdown(report: EvalReport): string {
  const lines: string[] = [];
  lines.push(`# Evaluation: ${report.dataset}`, '');
  const issues = rowIssueSummary(report.row_issues);
  lines.push(
    `${report.total} questions, ${report.skipped} skipped rows${issues ? ` (bad rows: ${issues})` : ''}, answerer ${report.config.answerer}${report.config.llm_model ? ` (${report.config.llm_model})` : ''}, top-K ${report.config.top_k}.`,
    '',
  );
  lines.push(
    '| mode | answerer | accuracy | 95% CI | correct | incorrect | abstained | evidence hit@K | text | table | Brier | ECE | p50 ms | p95 ms |',
  );
  lines.push('| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const m of report.modes) {
    lines.push(
      `| ${m.mode} | ${m.answerer} | ${pct(m.accuracy)} | ${pct(m.ci95[0])}–${pct(m.ci95[1])} | ${m.correct} | ${m.incorrect} | ${m.abstained} | ${pct(m.evidence_hit_rate)} | ${pct(m.by_type.text?.accuracy ?? null)} | ${pct(m.by_type.table?.accuracy ?? null)} | ${m.brier.toFixed(3)} | ${m.ece.toFixed(3)} | ${Math.round(m.latency_ms.p50)} | ${Math.round(m.latency_ms.p95)} |`,
    );
  }
  const questions = questionResults(report);
  const { note } = chanceNote(questions);
  if (note) lines.push('', `${note[0]?.toUpperCase() ?? ''}${note.slice(1)}.`);
  lines.push(
    '',
    '## Selective answering',
    '',
    'Accuracy of the most confident share of questions (abstentions ranked with their best guess), and the area under the risk–coverage curve (lower is better).',
    '',
  );
  lines.push(
    '| mode | 25% | 50% | 75% | 100% | AURC | abstained | LLM stated confidence Brier / ECE |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const m of report.modes) {
    const stated = m.stated_calibration ? `${m.stated_calibration.brier.toFixed(3)} / ${m.stated_calibration.ece.toFixed(3)}` : '–';
    lines.push(
      `| ${m.mode} | ${m.selective_accuracy.map((s) => pct(s.accuracy)).join(' | ')} | ${m.aurc.toFixed(3)} | ${m.abstained} | ${stated} |`,
    );
  }
  if (report.comparisons.length > 0) {
    lines.push(
      '',
      '## Paired comparisons (McNemar exact)',
      '',
      '| A | B | both answered | only A right | only B right | p | verdict |',
      '| --- | --- | ---: | ---: | ---: | ---: | --- |',
    );
    for (const c of report.comparisons)
      lines.push(
        `| ${c.a} | ${c.b} | ${c.n} | ${c.a_only} | ${c.b_only} | ${c.p_value.toFixed(4)} | ${c.verdict === 'within noise' ? 'within noise' : `${c.verdict} better`} |`,
      );
  }
  if (report.skipped_modes.length > 0) {
    lines.push('', '## Modes not run', '');
    for (const s of report.skipped_modes) lines.push(`- **${s.mode}**: ${s.reason}`);
  }
  if (report.warnings.length > 0) {
    lines.push('', '## Warnings', '');
    for (const w of report.warnings) lines.push(`- \`${w.where}\`: ${w.message}`);
  }
  lines.push(...questionsMarkdown(report, questions));
  return lines.join('\n') + '\n';
}

const OUTCOME_MARK: Record<ModeOutcome, string> = { right: '✓', wrong: '✗', abstained: '∅' };

/** `B ✗ 0.42 low`, `— (guess C) ∅ 0.21 guess`: one mode's result on one question, compactly. */
function modeCell(r: RunRecord, outcome: ModeOutcome): string {
  const letter = r.predicted || (r.guess ? `— (guess ${r.guess})` : '—');
  return `${letter} ${OUTCOME_MARK[outcome]} ${r.confidence.toFixed(2)} ${recordConfidenceWords(r)}${r.fallback ? ` (${r.fallback})` : ''}`;
}

/**
 * The per-question part of the Markdown report: accuracy by chapter, one table row per question with every mode's result,
 * then each question wrong in some mode with its options (gold and picks marked) and its quotes.
 */
function questionsMarkdown(report: EvalReport, questions: readonly QuestionResult[]): string[] {
  const modes = report.modes.map((m) => m.mode);
  if (questions.length === 0) return [];
  const lines: string[] = [];
  lines.push(
    '',
    '## Accuracy by chapter',
    '',
    "A question's chapter is the gold evidence's chapter when the dataset gives one, else the chapter (第X章, else the outermost heading) of the top evidence's heading path (hybrid's, else the first mode with evidence).",
    '',
    `| chapter | questions | chapter from | ${modes.join(' | ')} |`,
    `| --- | ---: | --- | ${modes.map(() => '---:').join(' | ')} |`,
  );
  for (const r of chapterBreakdown(questions, modes)) {
    const from = [r.fromGold > 0 ? `gold ${r.fromGold}` : '', r.fromEvidence > 0 ? `evidence ${r.fromEvidence}` : '']
      .filter((x) => x)
      .join(', ');
    const cells = modes.map((m) => {
      const sc = r.byMode[m];
      return sc ? `${pct(sc.accuracy)} (${sc.correct}/${sc.total})` : '–';
    });
    lines.push(`| ${mdEscape(r.chapter)} | ${r.total} | ${from || '–'} | ${cells.join(' | ')} |`);
  }
  lines.push(
    '',
    `## Questions (${questions.length})`,
    '',
    'Each mode: the letter it answered (✓ right, ✗ wrong, ∅ abstained with its best guess), its confidence and the confidence in words.',
    '',
    `| id | chapter | gold | ${modes.join(' | ')} |`,
    `| --- | --- | --- | ${modes.map(() => '---').join(' | ')} |`,
  );
  for (const q of questions) {
    const cells = modes.map((m) => {
      const r = q.records[m];
      return r ? mdEscape(modeCell(r, q.outcomes[m] ?? 'wrong')) : '–';
    });
    lines.push(`| ${mdEscape(q.id)} | ${mdEscape(q.chapter)} | ${q.gold} | ${cells.join(' | ')} |`);
  }
  const wrong = questions.filter((q) => modes.some((m) => q.outcomes[m] !== undefined && q.outcomes[m] !== 'right'));
  if (wrong.length === 0) return lines;
  lines.push('', `## Wrong answers (${wrong.length} questions wrong in at least one mode)`);
  for (const q of wrong) {
    const present = modes.filter((m) => q.records[m] !== undefined);
    lines.push('', `### ${mdEscape(q.id)} · ${mdEscape(q.chapter)}`, '');
    const reading = [q.kind && q.kind !== 'single' ? q.kind : '', q.negated ? '读作：选错误的一项' : ''].filter((x) => x);
    lines.push(`${mdEscape(q.question)}${reading.length > 0 ? ` (${reading.join(', ')})` : ''}`, '');
    for (const o of q.options) {
      const picked = present.filter((m) => (q.records[m] as RunRecord).predicted.includes(o.letter));
      const guessed = present.filter((m) => {
        const r = q.records[m] as RunRecord;
        return r.predicted === '' && (r.guess ?? '').includes(o.letter);
      });
      const marks = [
        q.gold.includes(o.letter) ? '**✓ gold**' : '',
        picked.length > 0 ? `← ${picked.join(', ')}` : '',
        guessed.length > 0 ? `← guess of ${guessed.join(', ')}` : '',
      ].filter((x) => x);
      lines.push(`- ${o.letter}. ${mdEscape(o.text)}${marks.length > 0 ? ` ${marks.join(' ')}` : ''}`);
    }
    lines.push('', present.map((m) => `${m}: ${mdEscape(modeCell(q.records[m] as RunRecord, q.outcomes[m] ?? 'wrong'))}`).join(' · '));
    lines.push(...verdictsMarkdown(q, present));
    // Compact: each mode's top quote (once when modes share it); the HTML report has them all.
    const all = questionEvidence(q, present);
    const topOf = (m: AnswerMode): QuestionEvidence | undefined => {
      const r = q.records[m] as RunRecord;
      const ref = r.evidence[0] ?? r.retrieved[0];
      return all.find((e) => e.modes.includes(m) && e.ref.chunk_id === ref?.chunk_id && (!e.cited || e.ref.quote === ref.quote));
    };
    const tops = new Set(present.map(topOf));
    const top = all.filter((e) => tops.has(e));
    for (const e of top) {
      const where = `${mdEscape(formatEvidence(e.ref))} (${e.cited ? 'cited by' : 'closest passage for'} ${e.modes.join(', ')})`;
      lines.push('', e.cited && e.ref.quote ? `> “${markdownQuote(e.ref.quote, e.ref.highlights)}” — ${where}` : `> ${where}`);
    }
    if (all.length > top.length) lines.push('', `(${all.length - top.length} more passages in the HTML report)`);
  }
  return lines;
}

const VERDICT_MARK: Record<RecordVerdict['verdict'], string> = {
  supported: '✓ supported',
  contradicted: '✗ contradicted',
  not_found: '? not found',
};

/**
 * The per-option verdicts of the modes that did not get a question right (modes with the same verdicts listed once):
 * each option's verdict, the reason, the settling quote and its citation.
 */
function verdictsMarkdown(q: QuestionResult, present: readonly AnswerMode[]): string[] {
  const groups = new Map<string, { modes: AnswerMode[]; verdicts: RecordVerdict[] }>();
  for (const m of present) {
    const verdicts = q.records[m]?.verdicts;
    if (q.outcomes[m] === 'right' || !verdicts || verdicts.length === 0) continue;
    const key = JSON.stringify(verdicts);
    const group = groups.get(key) ?? { modes: [], verdicts };
    group.modes.push(m);
    groups.set(key, group);
  }
  const lines: string[] = [];
  for (const g of groups.values()) {
    lines.push('', `Per-option verdicts (${g.modes.join(', ')}):`, '');
    for (const v of g.verdicts) {
      const parts = [
        `${mdEscape(v.label)}${v.text ? ` ${mdEscape(v.text)}` : ''} ${VERDICT_MARK[v.verdict]}`,
        ...(v.reason ? [mdEscape(v.reason)] : []),
        ...(v.quote ? [`“${mdEscape(v.quote)}”${v.citation ? ` (${mdEscape(v.citation)})` : ''}`] : []),
      ];
      lines.push(`- ${parts.join(' — ')}`);
    }
  }
  return lines;
}

/** A quote with its matched terms in bold, the rest escaped for Markdown. */
function markdownQuote(quote: string, highlights: Array<[number, number]> | undefined): string {
  return quoteSegments(quote, highlights)
    .map((s) => (s.marked ? `**${mdEscape(s.text)}**` : mdEscape(s.text)))
    .join('');
}

function mdEscape(s: string): string {
  return s.replace(/([|*_`\\[\]<>])/g, '\\$1').replace(/\n/g, ' ');
}

function csvCell(v: string | number | boolean | null): string {
  // Numbers are written as numbers; only text can smuggle a formula in.
  const s = v === null ? '' : typeof v === 'string' ? spreadsheetText(v) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Predictions CSV (UTF-8 with BOM so Excel shows the Chinese): one row per question per mode. */
export function reportPredictionsCsv(report: EvalReport): string {
  const header = [
    'id',
    'mode',
    'answerer',
    'question',
    'gold',
    'predicted',
    'correct',
    'fallback',
    'confidence',
    'type',
    'evidence',
    'latency_ms',
    'prompt_tokens',
    'completion_tokens',
  ];
  const rows = [header.join(',')];
  for (const m of report.modes) {
    for (const r of report.records[m.mode] ?? []) {
      const ev = r.evidence.map(formatEvidence).join(' ; ');
      rows.push(
        [
          r.id,
          r.mode,
          r.answerer,
          r.question,
          r.gold,
          r.predicted,
          r.correct,
          r.fallback,
          r.confidence.toFixed(4),
          r.type,
          ev,
          Math.round(r.latency_ms),
          r.tokens?.prompt ?? null,
          r.tokens?.completion ?? null,
        ]
          .map(csvCell)
          .join(','),
      );
    }
  }
  return '\ufeff' + rows.join('\r\n') + '\r\n';
}

/** Writes every requested report (the JUnit file with the gate's checks when a gate ran); returns the paths written. */
export function writeReports(report: EvalReport, targets: ReportTargets, gate?: { checks: readonly GateCheck[] }): string[] {
  const written: string[] = [];
  const put = (file: string | undefined, render: () => string): void => {
    if (!file) return;
    // Atomic, so a CI job never reads a half-written report.
    writeFileAtomic(file, render());
    written.push(file);
  };
  put(targets.json, () => JSON.stringify(reportJson(report), null, 2) + '\n');
  put(targets.md, () => reportMarkdown(report));
  put(targets.junit, () => reportJunit(report, gate));
  put(targets.predictions, () => reportPredictionsCsv(report));
  put(targets.html, () => renderHtmlReport(report));
  return written;
}

import { createHash } from 'node:crypto';
import type { AnswerMode } from '../answer/answer-types.js';
import { quoteSegments } from '../answer/evidence.js';
import { formatCitation } from '../text/citation.js';
import type { EvalReport, ModeReport, ReliabilityBin, RunRecord } from './eval-types.js';
import {
  chanceNote,
  chapterBreakdown,
  questionEvidence,
  questionFilters,
  questionResults,
  recordConfidenceWords,
  type ChapterRow,
  type ModeOutcome,
  type QuestionFilter,
  type QuestionResult,
} from './question-results.js';

/** HTML-escapes text for element content and attribute values. */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const MODE_COLOURS: Record<string, string> = { baseline: '#8c8c8c', keyword: '#d9822b', vector: '#2b7bd9', hybrid: '#2ba66b' };

/**
 * Accuracy per mode as bars with 95% Wilson CI error bars, in inline SVG, with a dashed line at the chance level
 * (the accuracy of guessing at random, see `chanceOf`) when it is known.
 */
export function accuracyChartSvg(modes: readonly ModeReport[], chance: number | null = null): string {
  const w = 520;
  const h = 300;
  const left = 50;
  const bottom = 40;
  const top = 20;
  const plotH = h - top - bottom;
  const slot = (w - left - 10) / Math.max(1, modes.length);
  const y = (v: number): number => top + plotH * (1 - v);
  const parts: string[] = [];
  for (let t = 0; t <= 10; t += 2) {
    const v = t / 10;
    parts.push(
      `<line x1="${left}" x2="${w - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#e3e3e3"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${t * 10}%</text>`,
    );
  }
  modes.forEach((m, i) => {
    const cx = left + slot * i + slot / 2;
    const bw = Math.min(70, slot * 0.6);
    const colour = MODE_COLOURS[m.mode] ?? '#555';
    parts.push(
      `<rect x="${cx - bw / 2}" y="${y(m.accuracy)}" width="${bw}" height="${y(0) - y(m.accuracy)}" fill="${colour}"><title>${esc(`${m.mode}: ${pct(m.accuracy)} (95% CI ${pct(m.ci95[0])}–${pct(m.ci95[1])})`)}</title></rect>`,
    );
    const [lo, hi] = m.ci95;
    parts.push(
      `<g stroke="#222" stroke-width="1.5"><line x1="${cx}" x2="${cx}" y1="${y(lo)}" y2="${y(hi)}"/><line x1="${cx - 8}" x2="${cx + 8}" y1="${y(lo)}" y2="${y(lo)}"/><line x1="${cx - 8}" x2="${cx + 8}" y1="${y(hi)}" y2="${y(hi)}"/></g>`,
    );
    parts.push(`<text x="${cx}" y="${y(hi) - 6}" text-anchor="middle" font-size="12" font-weight="bold">${pct(m.accuracy)}</text>`);
    parts.push(`<text x="${cx}" y="${h - bottom + 18}" text-anchor="middle" font-size="13">${esc(m.mode)}</text>`);
  });
  parts.push(
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${y(0)}" stroke="#444"/><line x1="${left}" x2="${w - 10}" y1="${y(0)}" y2="${y(0)}" stroke="#444"/>`,
  );
  if (chance !== null) {
    // Drawn last so the bars do not hide it: a bar below this line does no better than guessing.
    parts.push(
      `<g class="chance" data-chance="${chance.toFixed(4)}"><line x1="${left}" x2="${w - 10}" y1="${y(chance).toFixed(1)}" y2="${y(chance).toFixed(1)}" stroke="#c9302c" stroke-width="1.5" stroke-dasharray="6 4"/><text x="${w - 12}" y="${(y(chance) - 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#c9302c">chance ${pct(chance)}</text><title>chance level: the accuracy of guessing at random</title></g>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="accuracy per mode with 95% confidence intervals">${parts.join('')}</svg>`;
}

/** Reliability diagram: accuracy per confidence bin against the diagonal, one polyline per mode, dot size by bin count. */
export function reliabilitySvg(modes: readonly ModeReport[]): string {
  const size = 300;
  const pad = 40;
  const inner = size - 2 * pad;
  const x = (v: number): number => pad + inner * v;
  const y = (v: number): number => size - pad - inner * v;
  const parts: string[] = [];
  for (let t = 0; t <= 10; t += 2) {
    const v = t / 10;
    parts.push(
      `<line x1="${x(v)}" x2="${x(v)}" y1="${y(0)}" y2="${y(1)}" stroke="#eee"/><line x1="${x(0)}" x2="${x(1)}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
    );
    parts.push(
      `<text x="${x(v)}" y="${y(0) + 14}" text-anchor="middle" font-size="10">${v.toFixed(1)}</text><text x="${x(0) - 6}" y="${y(v) + 3}" text-anchor="end" font-size="10">${v.toFixed(1)}</text>`,
    );
  }
  parts.push(`<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`);
  parts.push(
    `<text x="${size / 2}" y="${size - 6}" text-anchor="middle" font-size="11">confidence</text><text x="12" y="${size / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${size / 2})">accuracy</text>`,
  );
  for (const m of modes) {
    const colour = MODE_COLOURS[m.mode] ?? '#555';
    const pts = m.reliability.filter(
      (b): b is ReliabilityBin & { confidence: number; accuracy: number } => b.confidence !== null && b.accuracy !== null,
    );
    if (pts.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts.map((b) => `${x(b.confidence).toFixed(1)},${y(b.accuracy).toFixed(1)}`).join(' ')}"/>`,
      );
    const maxCount = Math.max(1, ...pts.map((b) => b.count));
    for (const b of pts) {
      parts.push(
        `<circle cx="${x(b.confidence).toFixed(1)}" cy="${y(b.accuracy).toFixed(1)}" r="${(2.5 + 4 * Math.sqrt(b.count / maxCount)).toFixed(1)}" fill="${colour}" fill-opacity="0.8"><title>${esc(`${m.mode}: ${b.count} answers with confidence ${b.lo.toFixed(1)}–${b.hi.toFixed(1)}, accuracy ${pct(b.accuracy)}`)}</title></circle>`,
      );
    }
  }
  modes.forEach((m, i) => {
    parts.push(
      `<rect x="${pad + 6}" y="${pad + i * 16 - 8}" width="10" height="10" fill="${MODE_COLOURS[m.mode] ?? '#555'}"/><text x="${pad + 20}" y="${pad + i * 16 + 1}" font-size="11">${esc(m.mode)} (ECE ${m.ece.toFixed(3)})</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="reliability diagram">${parts.join('')}</svg>`;
}

/** Risk–coverage plot: selective risk (share wrong) of the most confident answers against the share answered, per mode. */
function riskCoverageSvg(modes: readonly ModeReport[]): string {
  const size = 300;
  const pad = 40;
  const x = (c: number): number => pad + c * (size - pad - 10);
  const y = (r: number): number => size - pad - r * (size - pad - 10);
  const parts: string[] = [];
  parts.push(`<rect x="${pad}" y="10" width="${size - pad - 10}" height="${size - pad - 10}" fill="none" stroke="#ccc"/>`);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<text x="${x(t)}" y="${size - pad + 14}" text-anchor="middle" font-size="10">${t}</text><text x="${pad - 4}" y="${y(t) + 3}" text-anchor="end" font-size="10">${t}</text>`,
    );
  }
  parts.push(
    `<text x="${size / 2}" y="${size - 6}" text-anchor="middle" font-size="11">coverage (share answered, most confident first)</text><text x="12" y="${size / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${size / 2})">risk (share wrong)</text>`,
  );
  modes.forEach((m, i) => {
    const colour = MODE_COLOURS[m.mode] ?? '#555';
    if (m.risk_coverage.length > 0) {
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${m.risk_coverage.map((p) => `${x(p.coverage).toFixed(1)},${y(p.risk).toFixed(1)}`).join(' ')}"><title>${esc(`${m.mode}: AURC ${m.aurc.toFixed(3)}`)}</title></polyline>`,
      );
    }
    parts.push(
      `<text x="${size - 14}" y="${24 + i * 14}" text-anchor="end" font-size="11" fill="${colour}">${esc(m.mode)} AURC ${m.aurc.toFixed(3)}</text>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="risk–coverage curve per mode">${parts.join('')}</svg>`;
}

/** A quote with its matched terms in `<mark>`. */
function markedHtml(quote: string, highlights: Array<[number, number]> | undefined): string {
  return quoteSegments(quote, highlights)
    .map((s) => (s.marked ? `<mark>${esc(s.text)}</mark>` : esc(s.text)))
    .join('');
}

const OUTCOME_TEXT: Record<ModeOutcome, string> = { right: '✓ right', wrong: '✗ wrong', abstained: '∅ abstained' };

/**
 * The breakdown by chapter as an HTML table: questions, where the chapter came from, accuracy per mode. With `filterKeys`
 * (one per row) each chapter is a button that shows only its question cards.
 */
export function chapterTableHtml(rows: readonly ChapterRow[], modes: readonly AnswerMode[], filterKeys: readonly string[] = []): string {
  const head = `<tr><th>chapter</th><th>questions</th><th>chapter from</th>${modes.map((m) => `<th>${esc(m)}</th>`).join('')}</tr>`;
  const body = rows
    .map((r, i) => {
      const key = filterKeys[i];
      const label = key
        ? `<button type="button" data-filter="${esc(key)}" aria-pressed="false" title="show this chapter's questions">${esc(r.chapter)}</button>`
        : esc(r.chapter);
      const from = [r.fromGold > 0 ? `gold ${r.fromGold}` : '', r.fromEvidence > 0 ? `evidence ${r.fromEvidence}` : '']
        .filter((x) => x !== '')
        .join(', ');
      const cells = modes
        .map((m) => {
          const sc = r.byMode[m];
          return sc
            ? `<td class="n" data-mode="${esc(m)}">${pct(sc.accuracy)} <small>(${sc.correct}/${sc.total})</small></td>`
            : '<td class="n">–</td>';
        })
        .join('');
      return `<tr><td>${label}</td><td class="n">${r.total}</td><td>${esc(from || '–')}</td>${cells}</tr>`;
    })
    .join('\n');
  return `<table id="chapters">${head}\n${body}</table>`;
}

/** One mode's result on a card: the letter (or the best guess when it abstained), the outcome, the confidence in words. */
function modeResultRow(mode: AnswerMode, r: RunRecord, outcome: ModeOutcome): string {
  const letter = r.predicted || (r.guess ? `— (guess ${r.guess})` : '—');
  const fb = r.fallback ? ` <span class="fb" title="${esc(r.message ?? '')}">${esc(r.fallback)}</span>` : '';
  const confidence = `${r.confidence.toFixed(2)} ${esc(recordConfidenceWords(r))}`;
  return (
    `<tr class="${outcome}" data-mode="${esc(mode)}"><td>${esc(mode)}</td><td class="letter">${esc(letter)}</td>` +
    `<td class="outcome">${OUTCOME_TEXT[outcome]}${fb}</td><td class="n">${confidence}</td></tr>`
  );
}

/** One card per question: its result per mode, the stem, the options with gold and each mode's pick marked, the evidence. */
function questionCard(q: QuestionResult, modes: readonly AnswerMode[], filterKeys: readonly string[]): string {
  const present = modes.filter((m) => q.records[m] !== undefined);
  const results = present.map((m) => modeResultRow(m, q.records[m] as RunRecord, q.outcomes[m] ?? 'wrong')).join('');
  const picks = (letter: string): string =>
    present
      .map((m) => {
        const r = q.records[m] as RunRecord;
        if (r.predicted.includes(letter)) return `<span class="pick ${q.outcomes[m] ?? ''}" data-mode="${esc(m)}">${esc(m)}</span>`;
        if (r.predicted === '' && r.guess?.includes(letter))
          return `<span class="pick guess" data-mode="${esc(m)}" title="best guess; the answer abstained">${esc(m)}?</span>`;
        return '';
      })
      .join('');
  const options = q.options
    .map((o) => {
      const gold = q.gold.includes(o.letter);
      const tag = gold ? ' <span class="gold-tag">✓ gold</span>' : '';
      const letter = esc(o.letter);
      return `<li class="opt${gold ? ' gold' : ''}" data-letter="${letter}"><b>${letter}.</b> ${esc(o.text)}${tag}${picks(o.letter)}</li>`;
    })
    .join('');
  const evidence = questionEvidence(q, present)
    .map((e) => {
      const by = `<span class="by">${e.cited ? 'cited by' : 'closest passage for'} ${esc(e.modes.join(', '))}</span>`;
      const quote = e.cited && e.ref.quote ? `<div class="quote">“${markedHtml(e.ref.quote, e.ref.highlights)}”</div>` : '';
      return `<li class="${e.cited ? 'cited' : 'retrieved'}"><span class="loc">${esc(formatCitation(e.ref))}</span> ${by}${quote}</li>`;
    })
    .join('');
  const wrongSomewhere = present.some((m) => q.outcomes[m] !== 'right');
  const reading = [q.kind && q.kind !== 'single' ? q.kind : '', q.negated ? '读作：选错误的一项' : ''].filter((x) => x !== '');
  const from = { gold: 'the gold evidence', evidence: 'the top evidence', none: 'nowhere' }[q.chapterSource];
  const chapter = `<span class="chapter" title="chapter from ${from}">${esc(q.chapter)}</span>`;
  const readings = reading.map((x) => ` <span class="reading">${esc(x)}</span>`).join('');
  const evidenceBlock = evidence
    ? `<details class="ev"${wrongSomewhere ? ' open' : ''}><summary>evidence</summary><ul>${evidence}</ul></details>`
    : '<div class="ev none">no evidence</div>';
  const id = esc(q.id);
  return `<article class="card${wrongSomewhere ? ' has-wrong' : ''}" id="q-${id}" data-id="${id}" data-filters="${filterKeys.join(' ')}">
<div class="head"><span class="id">${id}</span> ${chapter}${readings}</div>
<table class="results">${results}</table><div class="q">${esc(q.question)}</div><ol class="opts">${options}</ol>${evidenceBlock}</article>`;
}

/** The filter buttons' behaviour: show the cards whose `data-filters` hold the chosen key (`#filter=key` picks one at load). */
const FILTER_SCRIPT = `(function () {
  var buttons = Array.prototype.slice.call(document.querySelectorAll('#filters button, #chapters button'));
  var cards = Array.prototype.slice.call(document.querySelectorAll('#cards .card'));
  var shown = document.getElementById('shown');
  function apply(key) {
    var n = 0;
    cards.forEach(function (c) {
      var on = (' ' + c.getAttribute('data-filters') + ' ').indexOf(' ' + key + ' ') >= 0;
      c.hidden = !on;
      if (on) n++;
    });
    buttons.forEach(function (b) { b.setAttribute('aria-pressed', b.getAttribute('data-filter') === key ? 'true' : 'false'); });
    shown.textContent = String(n);
  }
  buttons.forEach(function (b) {
    b.addEventListener('click', function () {
      apply(b.getAttribute('data-filter'));
      // A chapter picked in the table: its cards are further down.
      if (b.closest('#chapters')) document.getElementById('questions').scrollIntoView();
    });
  });
  var m = /^#filter=([a-z0-9-]+)$/.exec(location.hash);
  apply(m && buttons.some(function (b) { return b.getAttribute('data-filter') === m[1]; }) ? m[1] : 'all');
})();`;

/**
 * The per-question view: filter buttons with their counts, then one card per question (all shown without JavaScript).
 * `otherFilters` (the chapters) tag the cards too, but their buttons live elsewhere (the chapter table).
 */
export function questionSectionHtml(
  questions: readonly QuestionResult[],
  filters: readonly QuestionFilter[],
  modes: readonly AnswerMode[],
  otherFilters: readonly QuestionFilter[] = [],
): string {
  const keysById = new Map<string, string[]>();
  for (const f of [...filters, ...otherFilters]) for (const id of f.ids) keysById.set(id, [...(keysById.get(id) ?? []), f.key]);
  const buttons = filters
    .map(
      (f) =>
        `<button type="button" data-filter="${esc(f.key)}" aria-pressed="${f.key === 'all' ? 'true' : 'false'}">${esc(f.label)} <span class="count">${f.ids.length}</span></button>`,
    )
    .join('');
  const cards = questions.map((q) => questionCard(q, modes, keysById.get(q.id) ?? [])).join('\n');
  return `<div id="filters" role="toolbar" aria-label="filter questions">${buttons}</div>
<p class="legend">Showing <b id="shown">${questions.length}</b> of ${questions.length} questions. “Wrong” is any answer that is not right: a wrong letter, a fallback answer or an abstention. Options: <span class="gold-tag">✓ gold</span> is the right answer; a mode's name marks its pick (green right, red wrong, “?” a best guess when it abstained).</p>
<div id="cards">
${cards}
</div>`;
}

/**
 * A self-contained HTML report (inline CSS, SVG and one inline script; no network, works offline as one file): summary,
 * charts, comparisons, accuracy by chapter, and one card per question with its result in every mode and filters.
 */
export function renderHtmlReport(report: EvalReport): string {
  const modes = report.modes.map((m) => m.mode);
  const questions = questionResults(report);
  const filters = questionFilters(questions, modes);
  const { chance, note: chanceText } = chanceNote(questions);
  const chapters = chapterBreakdown(questions, modes);
  const chapterFilters: QuestionFilter[] = chapters.map((r, i) => ({
    key: `chapter-${i + 1}`,
    label: r.chapter,
    ids: questions.filter((q) => q.chapter === r.chapter).map((q) => q.id),
  }));
  // The page allows only its own inline script (by hash) and styles: a quote that slipped through escaping could not run.
  const scriptHash = createHash('sha256').update(FILTER_SCRIPT).digest('base64');
  const rows = report.modes
    .map(
      (m) =>
        `<tr><td><b>${esc(m.mode)}</b></td><td>${esc(m.answerer)}</td><td class="n">${pct(m.accuracy)}</td><td>${pct(m.ci95[0])}–${pct(m.ci95[1])}</td><td class="n">${m.correct}</td><td class="n">${m.incorrect}</td><td class="n">${m.abstained}</td><td class="n">${pct(m.evidence_hit_rate)}</td><td class="n">${pct(m.by_type.text?.accuracy ?? null)}</td><td class="n">${pct(m.by_type.table?.accuracy ?? null)}</td><td class="n">${m.brier.toFixed(3)}</td><td class="n">${m.ece.toFixed(3)}</td><td class="n">${Math.round(m.latency_ms.p50)} / ${Math.round(m.latency_ms.p95)}</td></tr>`,
    )
    .join('\n');
  const comparisons = report.comparisons
    .map(
      (c) =>
        `<tr><td>${esc(c.a)} vs ${esc(c.b)}</td><td class="n">${c.n}</td><td class="n">${c.a_only}</td><td class="n">${c.b_only}</td><td class="n">${c.p_value.toFixed(4)}</td><td>${c.verdict === 'within noise' ? 'within noise' : `<b>${esc(c.verdict)}</b> better`}</td></tr>`,
    )
    .join('\n');
  const selectiveRows = report.modes
    .map(
      (m) =>
        `<tr><td><b>${esc(m.mode)}</b></td>${m.selective_accuracy.map((s) => `<td class="n">${pct(s.accuracy)}</td>`).join('')}<td class="n">${m.aurc.toFixed(3)}</td><td class="n">${m.abstained}</td><td class="n">${m.stated_calibration ? `${m.stated_calibration.brier.toFixed(3)} / ${m.stated_calibration.ece.toFixed(3)}` : '–'}</td></tr>`,
    )
    .join('\n');
  const skipped = report.skipped_modes.map((s) => `<li><b>${esc(s.mode)}</b>: ${esc(s.reason)}</li>`).join('');
  const warnings =
    report.warnings.length > 0
      ? `<h2>Warnings (${report.warnings.length})</h2><ul>${report.warnings
          .slice(0, 200)
          .map((w) => `<li><code>${esc(w.where)}</code> ${esc(w.message)}</li>`)
          .join('')}</ul>`
      : '';
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:">
<title>exam-copilot eval: ${esc(report.dataset)}</title>
<style>
body{font-family:"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:24px;color:#222;max-width:1150px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;font-size:13px}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:4px 8px}th{background:#f5f5f5}
.n{text-align:right;font-variant-numeric:tabular-nums}.charts{display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start}
.charts figure{margin:0}.charts figcaption{font-size:12px;color:#555;text-align:center}
.q{color:#222;margin:4px 0;white-space:pre-wrap;font-size:14px}
.id{font-family:monospace;background:#eee;padding:0 4px}.fb{background:#fff3cd;padding:0 4px;font-size:12px}
#filters{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
#filters button{font:inherit;font-size:13px;padding:3px 10px;border:1px solid #bbb;border-radius:14px;background:#fff;cursor:pointer}
#filters button[aria-pressed=true]{background:#2b7bd9;border-color:#2b7bd9;color:#fff}.count{font-weight:bold}
.legend{font-size:12px;color:#555}
.card{border:1px solid #ddd;border-left:4px solid #2ba66b;border-radius:4px;padding:6px 12px;margin:10px 0;font-size:13px}
.card.has-wrong{border-left-color:#d9534f}
.head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}.chapter{color:#555}.reading{background:#e8f0fe;padding:0 4px;font-size:12px}
.results{margin:4px 0}.results td{padding:1px 8px}.results .right .outcome{color:#2b8a3e}.results .wrong .outcome{color:#c9302c}
.results .abstained .outcome{color:#8a6d3b}
.letter{font-weight:bold;font-family:monospace}.opts{margin:4px 0;padding-left:8px;list-style:none}.opt{padding:1px 4px;margin:1px 0}
.opt.gold{background:#e6f4ea;outline:1px solid #9fd3ae}.gold-tag{color:#2b8a3e;font-weight:bold;font-size:12px}
.pick{display:inline-block;margin-left:6px;padding:0 5px;border-radius:8px;font-size:11px;color:#fff;background:#c9302c}
.pick.right{background:#2b8a3e}.pick.guess{background:#999}
.ev{margin:2px 0;color:#555;font-size:12px}.ev ul{margin:2px 0;padding-left:18px}.ev li{margin:3px 0}.loc{color:#444}
.by{color:#888;font-size:11px}
#chapters button{font:inherit;border:0;background:none;color:#1f5fae;cursor:pointer;padding:0;text-align:left}
#chapters button[aria-pressed=true]{font-weight:bold;text-decoration:underline}
.quote{color:#333}mark{background:#ffe58f;padding:0 1px}.none{font-style:italic}summary{cursor:pointer;font-weight:bold;margin-top:4px}
</style></head><body>
<h1>Evaluation report</h1>
<div class="meta">${esc(report.dataset)} · ${report.total} questions · ${report.skipped} rows skipped · answerer ${esc(report.config.answerer)}${report.config.llm_model ? ` (${esc(report.config.llm_model)})` : ''} · embedder ${esc(report.config.embedder)} · top-K ${report.config.top_k} · ${(report.wall_ms / 1000).toFixed(1)} s</div>
<h2>Accuracy per mode</h2>
<table><tr><th>mode</th><th>answerer</th><th>accuracy</th><th>95% CI</th><th>correct</th><th>incorrect</th><th>abstained</th><th>evidence hit@${report.config.top_k}</th><th>text</th><th>table</th><th>Brier</th><th>ECE</th><th>p50 / p95 ms</th></tr>
${rows}</table>
${skipped ? `<p>Not run: </p><ul>${skipped}</ul>` : ''}
<div class="charts">
<figure>${accuracyChartSvg(report.modes, chance)}<figcaption>Accuracy with 95% Wilson confidence intervals${chance !== null ? '; dashed: chance level' : ''}</figcaption></figure>
<figure>${reliabilitySvg(report.modes)}<figcaption>Reliability diagram (15 confidence bins; diagonal = perfect calibration)</figcaption></figure>
<figure>${riskCoverageSvg(report.modes)}<figcaption>Risk–coverage: answering only the most confident questions</figcaption></figure>
</div>
${chanceText ? `<p class="meta" id="chance-note">${esc(chanceText)}.</p>` : ''}
<h2>Selective answering</h2>
<table><tr><th>mode</th><th>accuracy of the most confident 25%</th><th>50%</th><th>75%</th><th>100%</th><th>AURC</th><th>abstained</th><th>LLM stated confidence: Brier / ECE</th></tr>
${selectiveRows}</table>
${comparisons ? `<h2>Paired comparisons (McNemar exact test)</h2><table><tr><th>modes</th><th>both answered</th><th>only first right</th><th>only second right</th><th>p</th><th>verdict</th></tr>${comparisons}</table>` : ''}
<h2>Accuracy by chapter</h2>
<p class="meta">A question's chapter is the gold evidence's chapter when the dataset gives one, else the chapter (第X章, else the outermost heading) of the top evidence's heading path (hybrid's, else the first mode with evidence), so every mode is scored on the same questions per chapter. Click a chapter to see its questions.</p>
${chapterTableHtml(
  chapters,
  modes,
  chapterFilters.map((f) => f.key),
)}
<h2 id="questions">Questions (${questions.length}), each with its result per mode</h2>
${questionSectionHtml(questions, filters, modes, chapterFilters)}
${warnings}
<script>${FILTER_SCRIPT}</script>
</body></html>
`;
}

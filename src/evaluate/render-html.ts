import { quoteSegments } from '../answer/evidence.js';
import { formatCitation } from '../ingest/citation.js';
import type { EvalReport, ModeReport, ReliabilityBin } from './eval-types.js';

/** HTML-escapes text for element content and attribute values. */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const MODE_COLOURS: Record<string, string> = { baseline: '#8c8c8c', keyword: '#d9822b', vector: '#2b7bd9', hybrid: '#2ba66b' };

/** Accuracy per mode as bars with 95% Wilson CI error bars, in inline SVG. */
export function accuracyChartSvg(modes: readonly ModeReport[]): string {
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

/** A self-contained HTML report (inline CSS and SVG, no scripts or network): summary, charts, comparisons, wrong answers with evidence. */
export function renderHtmlReport(report: EvalReport): string {
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
  const wrongSections = report.modes
    .map((m, index) => {
      const wrong = (report.records[m.mode] ?? []).filter((r) => !r.correct);
      const items = wrong
        .map((r) => {
          const ev = (r.evidence.length > 0 ? r.evidence : r.retrieved.slice(0, 3))
            .map(
              (e) =>
                `<li>${esc(formatCitation(e))}${e.quote ? `<div class="quote">“${markedHtml(e.quote, e.highlights)}”</div>` : ''}</li>`,
            )
            .join('');
          return `<div class="wrong"><div><span class="id">${esc(r.id)}</span> predicted <b class="bad">${esc(r.predicted || (r.guess ? `— (guess ${r.guess})` : '—'))}</b>, gold <b class="good">${esc(r.gold)}</b>, confidence ${r.confidence.toFixed(2)}${r.fallback ? ` <span class="fb">${esc(r.fallback)}</span>` : ''}</div><div class="q">${esc(r.question)}</div>${ev ? `<ul class="ev">${ev}</ul>` : '<div class="ev none">no evidence</div>'}</div>`;
        })
        .join('\n');
      return `<details${index === 0 || wrong.length <= 30 ? ' open' : ''}><summary>${esc(m.mode)}: ${wrong.length} wrong or unanswered</summary>${items || '<p>none</p>'}</details>`;
    })
    .join('\n');
  const warnings =
    report.warnings.length > 0
      ? `<h2>Warnings (${report.warnings.length})</h2><ul>${report.warnings
          .slice(0, 200)
          .map((w) => `<li><code>${esc(w.where)}</code> ${esc(w.message)}</li>`)
          .join('')}</ul>`
      : '';
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>exam-copilot eval: ${esc(report.dataset)}</title>
<style>
body{font-family:"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:24px;color:#222;max-width:1150px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;font-size:13px}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:4px 8px}th{background:#f5f5f5}
.n{text-align:right;font-variant-numeric:tabular-nums}.charts{display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start}
.charts figure{margin:0}.charts figcaption{font-size:12px;color:#555;text-align:center}
.wrong{border-left:3px solid #d9534f;padding:4px 10px;margin:8px 0;font-size:13px}.q{color:#333;margin:2px 0;white-space:pre-wrap}
.id{font-family:monospace;background:#eee;padding:0 4px}.bad{color:#c9302c}.good{color:#2b8a3e}.fb{background:#fff3cd;padding:0 4px;font-size:12px}
.ev{margin:2px 0;color:#555;font-size:12px}.quote{color:#333}mark{background:#ffe58f;padding:0 1px}.none{font-style:italic}summary{cursor:pointer;font-weight:bold;margin-top:8px}
</style></head><body>
<h1>Evaluation report</h1>
<div class="meta">${esc(report.dataset)} · ${report.total} questions · ${report.skipped} rows skipped · answerer ${esc(report.config.answerer)}${report.config.llm_model ? ` (${esc(report.config.llm_model)})` : ''} · embedder ${esc(report.config.embedder)} · top-K ${report.config.top_k} · ${(report.wall_ms / 1000).toFixed(1)} s</div>
<h2>Accuracy per mode</h2>
<table><tr><th>mode</th><th>answerer</th><th>accuracy</th><th>95% CI</th><th>correct</th><th>incorrect</th><th>abstained</th><th>evidence hit@${report.config.top_k}</th><th>text</th><th>table</th><th>Brier</th><th>ECE</th><th>p50 / p95 ms</th></tr>
${rows}</table>
${skipped ? `<p>Not run: </p><ul>${skipped}</ul>` : ''}
<div class="charts">
<figure>${accuracyChartSvg(report.modes)}<figcaption>Accuracy with 95% Wilson confidence intervals</figcaption></figure>
<figure>${reliabilitySvg(report.modes)}<figcaption>Reliability diagram (15 confidence bins; diagonal = perfect calibration)</figcaption></figure>
<figure>${riskCoverageSvg(report.modes)}<figcaption>Risk–coverage: answering only the most confident questions</figcaption></figure>
</div>
<h2>Selective answering</h2>
<table><tr><th>mode</th><th>accuracy of the most confident 25%</th><th>50%</th><th>75%</th><th>100%</th><th>AURC</th><th>abstained</th><th>LLM stated confidence: Brier / ECE</th></tr>
${selectiveRows}</table>
${comparisons ? `<h2>Paired comparisons (McNemar exact test)</h2><table><tr><th>modes</th><th>both answered</th><th>only first right</th><th>only second right</th><th>p</th><th>verdict</th></tr>${comparisons}</table>` : ''}
<h2>Wrong answers with their evidence</h2>
${wrongSections}
${warnings}
</body></html>
`;
}

import type { ModeReport, ReliabilityBin } from './eval-types.js';

/** HTML-escapes text for element content and attribute values. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `73.2%`, or `–` when there is no value. */
export const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

/** One colour per mode, the same in every chart. */
export const MODE_COLOURS: Record<string, string> = {
  baseline: '#8c8c8c',
  keyword: '#d9822b',
  vector: '#2b7bd9',
  hybrid: '#2ba66b',
  agent: '#8e44ad',
};

/** Height of one legend line under a square plot. */
const LEGEND_LINE = 16;

/**
 * A legend in rows under a plot (`top` is its first row's top): never over the points, however the curves fall. Each
 * item is a colour swatch and its text.
 */
function legendRows(items: readonly { colour: string; text: string }[], left: number, top: number): string {
  return items
    .map(
      (item, i) =>
        `<g class="legend-item"><rect x="${left}" y="${top + i * LEGEND_LINE}" width="10" height="10" fill="${item.colour}"/><text x="${left + 16}" y="${top + i * LEGEND_LINE + 9}" font-size="11">${esc(item.text)}</text></g>`,
    )
    .join('');
}

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
      `<g class="chance" data-chance="${chance.toFixed(4)}"><line x1="${left}" x2="${w - 10}" y1="${y(chance).toFixed(1)}" y2="${y(chance).toFixed(1)}" stroke="#c9302c" stroke-width="1.5" stroke-dasharray="6 4"/><text x="${w - 12}" y="${(y(chance) - 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#c9302c">随机 chance ${pct(chance)}</text><title>随机猜测的准确率 chance level: the accuracy of guessing at random</title></g>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="accuracy per mode with 95% confidence intervals">${parts.join('')}</svg>`;
}

/**
 * Reliability diagram: accuracy per confidence bin against the diagonal, one polyline per mode, dot size by bin count.
 * The legend sits under the plot: the points of a well calibrated answerer run along the diagonal up to the top right,
 * and those of an under-confident one into the top left, so no corner of the plot is free of them.
 */
export function reliabilitySvg(modes: readonly ModeReport[]): string {
  const size = 300;
  const pad = 40;
  const inner = size - 2 * pad;
  const height = size + modes.length * LEGEND_LINE;
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
    `<text x="${size / 2}" y="${size - 10}" text-anchor="middle" font-size="11">置信度 confidence</text><text x="12" y="${size / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${size / 2})">准确率 accuracy</text>`,
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
  parts.push(
    legendRows(
      modes.map((m) => ({ colour: MODE_COLOURS[m.mode] ?? '#555', text: `${m.mode} (ECE ${m.ece.toFixed(3)})` })),
      pad,
      size - 2,
    ),
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${height}" viewBox="0 0 ${size} ${height}" role="img" aria-label="reliability diagram">${parts.join('')}</svg>`;
}

/** Risk–coverage plot: selective risk (share wrong) of the most confident answers against the share answered, per mode. */
export function riskCoverageSvg(modes: readonly ModeReport[]): string {
  const size = 300;
  const pad = 40;
  const height = size + modes.length * LEGEND_LINE;
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
    `<text x="${size / 2}" y="${size - 10}" text-anchor="middle" font-size="11">覆盖率 coverage (most confident first)</text><text x="12" y="${size / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${size / 2})">错误率 risk (share wrong)</text>`,
  );
  for (const m of modes) {
    if (m.risk_coverage.length === 0) continue;
    parts.push(
      `<polyline fill="none" stroke="${MODE_COLOURS[m.mode] ?? '#555'}" stroke-width="2" points="${m.risk_coverage.map((p) => `${x(p.coverage).toFixed(1)},${y(p.risk).toFixed(1)}`).join(' ')}"><title>${esc(`${m.mode}: AURC ${m.aurc.toFixed(3)}`)}</title></polyline>`,
    );
  }
  parts.push(
    legendRows(
      modes.map((m) => ({ colour: MODE_COLOURS[m.mode] ?? '#555', text: `${m.mode} AURC ${m.aurc.toFixed(3)}` })),
      pad,
      size - 2,
    ),
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${height}" viewBox="0 0 ${size} ${height}" role="img" aria-label="risk–coverage curve per mode">${parts.join('')}</svg>`;
}

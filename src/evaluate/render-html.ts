import { createHash } from 'node:crypto';
import type { EvalReport, ModeReport } from './eval-types.js';
import { chapterTableHtml, FILTER_SCRIPT, questionSectionHtml } from './question-cards-html.js';
import { chanceNote, chapterBreakdown, questionFilters, questionResults, type QuestionFilter } from './question-results.js';
import { accuracyChartSvg, esc, pct, reliabilitySvg, riskCoverageSvg } from './report-charts.js';

/** The teacher's table: per mode, how many questions it got right, wrong or left unanswered, and the accuracy with its CI. */
function accuracyTable(modes: readonly ModeReport[], chance: number | null): string {
  const rows = modes
    .map(
      (m) =>
        `<tr data-mode="${esc(m.mode)}"><td><b>${esc(m.mode)}</b></td><td>${esc(m.answerer)}</td><td class="n acc">${pct(m.accuracy)}</td><td>${pct(m.ci95[0])}–${pct(m.ci95[1])}</td><td class="n">${m.correct}</td><td class="n">${m.incorrect}</td><td class="n">${m.abstained}</td></tr>`,
    )
    .join('\n');
  const chanceLine = chance === null ? '' : ` 随机猜测 Guessing at random scores ${pct(chance)}.`;
  return `<table id="accuracy"><tr><th>模式 mode</th><th>作答 answerer</th><th>准确率 accuracy</th><th>95% 置信区间 CI</th><th>对 right</th><th>错 wrong</th><th>弃答 abstained</th></tr>
${rows}</table>
<p class="meta">弃答与兜底作答计为不对 Abstentions and fallback answers count as not right.${chanceLine} <a href="#statistics">统计与图表 Statistics and charts ↓</a></p>`;
}

/**
 * A self-contained HTML report (inline CSS, SVG and one inline script; no network, works offline as one file), in
 * Chinese and English. It leads with what a teacher acts on: accuracy per mode, then the wrong questions (each with
 * its options, every mode's pick, the per-option verdicts and the evidence), then accuracy by chapter; the statistics
 * (calibration, selective answering, paired tests, charts) come last. `serve` adds a link back to the app.
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
  const wrongCount = filters.find((f) => f.key === 'wrong-any')?.ids.length ?? 0;
  // The page allows only its own inline script (by hash) and styles: a quote that slipped through escaping could not run.
  const scriptHash = createHash('sha256').update(FILTER_SCRIPT).digest('base64');
  const rows = report.modes
    .map(
      (m) =>
        `<tr><td><b>${esc(m.mode)}</b></td><td>${esc(m.answerer)}</td><td class="n">${pct(m.accuracy)}</td><td class="n">${pct(m.ci95[0])}–${pct(m.ci95[1])}</td><td class="n">${m.correct}</td><td class="n">${m.incorrect}</td><td class="n">${m.abstained}</td><td class="n">${pct(m.evidence_hit_rate)}</td><td class="n">${pct(m.by_type.text?.accuracy ?? null)}</td><td class="n">${pct(m.by_type.table?.accuracy ?? null)}</td><td class="n">${m.brier.toFixed(3)}</td><td class="n">${m.ece.toFixed(3)}</td><td class="n">${Math.round(m.latency_ms.p50)} / ${Math.round(m.latency_ms.p95)}</td></tr>`,
    )
    .join('\n');
  const comparisons = report.comparisons
    .map(
      (c) =>
        `<tr><td>${esc(c.a)} vs ${esc(c.b)}</td><td class="n">${c.n}</td><td class="n">${c.a_only}</td><td class="n">${c.b_only}</td><td class="n">${c.p_value.toFixed(4)}</td><td>${c.verdict === 'within noise' ? '差异在噪声内 within noise' : `<b>${esc(c.verdict)}</b> 更好 better`}</td></tr>`,
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
      ? `<h2>警告 Warnings (${report.warnings.length})</h2><ul>${report.warnings
          .slice(0, 200)
          .map((w) => `<li><code>${esc(w.where)}</code> ${esc(w.message)}</li>`)
          .join('')}</ul>`
      : '';
  const questionsHeading =
    wrongCount > 0
      ? `错题 Wrong questions: ${wrongCount} / ${questions.length} 题在至少一个模式下不对 not right in some mode`
      : `题目 Questions (${questions.length}): 各模式全对 right in every mode`;
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${scriptHash}'; img-src data:">
<title>评估报告 exam-copilot eval: ${esc(report.dataset)}</title>
<style>
body{font-family:"Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;margin:16px 24px;color:#222;max-width:1150px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:18px 0 6px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;font-size:13px;margin:4px 0}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:4px 8px}th{background:#f5f5f5}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}#accuracy .acc{font-weight:bold;font-size:15px}
.charts{display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start}
.charts figure{margin:0}.charts figcaption{font-size:12px;color:#555;text-align:center;max-width:520px}
.q{color:#222;margin:4px 0;white-space:pre-wrap;font-size:14px}
.id{font-family:monospace;background:#eee;padding:0 4px}.fb{background:#fff3cd;padding:0 4px;font-size:12px}
#filters{display:none;flex-wrap:wrap;gap:6px;margin:8px 0}.js #filters{display:flex}.js .nojs-only{display:none}
body:not(.js) #cards.wrong-first .card:not(.has-wrong){display:none}body:not(.js) #all-questions:target ~ #cards .card{display:block}
#filters button{font:inherit;font-size:13px;padding:3px 10px;border:1px solid #bbb;border-radius:14px;background:#fff;cursor:pointer}
#filters button[aria-pressed=true]{background:#2b7bd9;border-color:#2b7bd9;color:#fff}.count{font-weight:bold}
.legend{font-size:12px;color:#555;margin:4px 0}
.card{border:1px solid #ddd;border-left:4px solid #2ba66b;border-radius:4px;padding:6px 12px;margin:10px 0;font-size:13px}
.card.has-wrong{border-left-color:#d9534f}
.head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}.chapter{color:#555}.reading{background:#e8f0fe;padding:0 4px;font-size:12px}
.results{margin:4px 0}.results td{padding:1px 8px}.results .right .outcome{color:#2b8a3e}.results .wrong .outcome{color:#c9302c}
.results .abstained .outcome{color:#8a6d3b}
.letter{font-weight:bold;font-family:monospace}.opts{margin:4px 0;padding-left:8px;list-style:none}.opt{padding:1px 4px;margin:1px 0}
.opt.gold{background:#e6f4ea;outline:1px solid #9fd3ae}.gold-tag{color:#2b8a3e;font-weight:bold;font-size:12px}
.pick{display:inline-block;margin-left:6px;padding:0 5px;border-radius:8px;font-size:11px;color:#fff;background:#c9302c}
.pick.right{background:#2b8a3e}.pick.guess{background:#999}
.verdicts{margin:6px 0}.vh{font-size:12px;color:#555;font-weight:bold}.verdicts table{font-size:12px;margin-top:2px}
.verdicts td{padding:2px 6px;vertical-align:top}.verdict{white-space:nowrap}.vt{font-weight:normal;font-family:inherit}
.v-supported .verdict{color:#2b8a3e}.v-contradicted .verdict{color:#c9302c}.v-not_found .verdict{color:#888}.reason{background:#fdf2e9;padding:0 3px}
.ev{margin:2px 0;color:#555;font-size:12px}.ev ul{margin:2px 0;padding-left:18px}.ev li{margin:3px 0}.loc{color:#444}
.by{color:#888;font-size:11px}
#chapters button{font:inherit;border:0;background:none;color:#1f5fae;cursor:pointer;padding:0;text-align:left}
#chapters button[aria-pressed=true]{font-weight:bold;text-decoration:underline}
.quote{color:#333}mark{background:#ffe58f;padding:0 1px}.none{font-style:italic}summary{cursor:pointer;font-weight:bold;margin-top:4px}
</style></head><body>
<h1>评估报告 Evaluation report</h1>
<div class="meta">${esc(report.dataset)} · ${report.total} 题 questions · ${report.skipped} 行跳过 rows skipped · 作答 answerer ${esc(report.config.answerer)}${report.config.llm_model ? ` (${esc(report.config.llm_model)})` : ''} · embedder ${esc(report.config.embedder)} · top-K ${report.config.top_k} · ${(report.wall_ms / 1000).toFixed(1)} s</div>
<h2>各模式准确率 Accuracy per mode</h2>
${accuracyTable(report.modes, chance)}
${skipped ? `<p class="meta">未运行 Not run:</p><ul class="meta">${skipped}</ul>` : ''}
<h2 id="questions">${questionsHeading}</h2>
${questionSectionHtml(questions, filters, modes, chapterFilters)}
<h2>分章准确率 Accuracy by chapter</h2>
<p class="meta">题目的章：数据集给出金标依据时取其章，否则取最靠前依据的标题路径中的章 (第X章，否则最外层标题)。A question's chapter is the gold evidence's chapter when the dataset gives one, else the chapter (第X章, else the outermost heading) of the top evidence's heading path (hybrid's, else the first mode with evidence), so every mode is scored on the same questions per chapter. 点击章名看其题目 Click a chapter to see its questions.</p>
${chapterTableHtml(
  chapters,
  modes,
  chapterFilters.map((f) => f.key),
)}
<h2 id="statistics">统计与图表 Statistics and charts</h2>
<table><tr><th>模式 mode</th><th>作答 answerer</th><th>准确率 accuracy</th><th>95% CI</th><th>对 correct</th><th>错 incorrect</th><th>弃答 abstained</th><th>依据命中 evidence hit@${report.config.top_k}</th><th>文字题 text</th><th>图表题 table</th><th>Brier</th><th>ECE</th><th>p50 / p95 ms</th></tr>
${rows}</table>
<div class="charts">
<figure>${accuracyChartSvg(report.modes, chance)}<figcaption>准确率与 95% Wilson 置信区间 Accuracy with 95% Wilson confidence intervals${chance !== null ? '; 虚线 dashed: 随机猜测 chance level' : ''}</figcaption></figure>
<figure>${reliabilitySvg(report.modes)}<figcaption>可靠性图 Reliability diagram (对角线 = 完美校准 diagonal = perfect calibration)</figcaption></figure>
<figure>${riskCoverageSvg(report.modes)}<figcaption>风险–覆盖 Risk–coverage: 只答最有把握的题 answering only the most confident questions</figcaption></figure>
</div>
${chanceText ? `<p class="meta" id="chance-note">${esc(chanceText)}.</p>` : ''}
<h3>选择性作答 Selective answering</h3>
<table><tr><th>模式 mode</th><th>最有把握的 25% 的准确率 accuracy of the most confident 25%</th><th>50%</th><th>75%</th><th>100%</th><th>AURC</th><th>弃答 abstained</th><th>LLM 自述置信度 stated confidence: Brier / ECE</th></tr>
${selectiveRows}</table>
${comparisons ? `<h3>成对比较 Paired comparisons (McNemar exact test)</h3><table><tr><th>模式 modes</th><th>都作答 both answered</th><th>仅前者对 only first right</th><th>仅后者对 only second right</th><th>p</th><th>结论 verdict</th></tr>${comparisons}</table>` : ''}
${warnings}
<script>${FILTER_SCRIPT}</script>
</body></html>
`;
}

import type { AnswerMode, VerdictKind } from '../answer/answer-types.js';
import { quoteSegments } from '../answer/evidence.js';
import { formatCitation } from '../text/citation.js';
import type { RecordVerdict, RunRecord } from './eval-types.js';
import {
  questionEvidence,
  recordConfidenceWords,
  type ChapterRow,
  type ModeOutcome,
  type QuestionFilter,
  type QuestionResult,
} from './question-results.js';
import { esc, pct } from './report-charts.js';

/** A quote with its matched terms in `<mark>`. */
function markedHtml(quote: string, highlights: Array<[number, number]> | undefined): string {
  return quoteSegments(quote, highlights)
    .map((s) => (s.marked ? `<mark>${esc(s.text)}</mark>` : esc(s.text)))
    .join('');
}

const OUTCOME_TEXT: Record<ModeOutcome, string> = { right: '✓ 对 right', wrong: '✗ 错 wrong', abstained: '∅ 弃答 abstained' };
const VERDICT_TEXT: Record<VerdictKind, string> = {
  supported: '✓ 有依据 supported',
  contradicted: '✗ 与教材矛盾 contradicted',
  not_found: '? 未找到 not found',
};

/** The bilingual label of a status filter (the chapter filters are labelled by their chapter). */
function filterLabel(f: QuestionFilter): string {
  if (f.key === 'all') return '全部 all';
  if (f.key === 'wrong-any') return '错题 wrong in any mode';
  if (f.key === 'wrong-all') return '各模式都错 all modes wrong';
  if (f.key === 'disagree') return '模式间不一致 modes disagree';
  if (f.key === 'abstained-any') return '有弃答 abstained in any mode';
  if (f.key === 'right-all') return `${f.label === 'right' ? '对' : '各模式都对'} ${f.label}`;
  if (f.key.startsWith('wrong-only-')) return `仅 ${f.key.slice('wrong-only-'.length)} 错 ${f.label}`;
  return f.label;
}

/**
 * The breakdown by chapter as an HTML table: questions, where the chapter came from, accuracy per mode. With `filterKeys`
 * (one per row) each chapter is a button that shows only its question cards.
 */
export function chapterTableHtml(rows: readonly ChapterRow[], modes: readonly AnswerMode[], filterKeys: readonly string[] = []): string {
  const head = `<tr><th>章 chapter</th><th>题数 questions</th><th>章节来源 chapter from</th>${modes.map((m) => `<th>${esc(m)}</th>`).join('')}</tr>`;
  const body = rows
    .map((r, i) => {
      const key = filterKeys[i];
      const label = key
        ? `<button type="button" data-filter="${esc(key)}" aria-pressed="false" title="只看本章的题 show this chapter's questions">${esc(r.chapter)}</button>`
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

/**
 * The verdicts behind the wrong answers of a question, per option: what the passages each wrong (or abstaining) mode
 * read say of it, with the settling quote and where it is printed. Modes with the same verdicts share one table.
 */
function verdictsHtml(q: QuestionResult, present: readonly AnswerMode[]): string {
  const groups: { modes: AnswerMode[]; verdicts: RecordVerdict[]; key: string }[] = [];
  for (const m of present) {
    const verdicts = q.records[m]?.verdicts;
    if (q.outcomes[m] === 'right' || !verdicts || verdicts.length === 0) continue;
    const key = JSON.stringify(verdicts);
    const same = groups.find((g) => g.key === key);
    if (same) same.modes.push(m);
    else groups.push({ modes: [m], verdicts, key });
  }
  return groups
    .map((g) => {
      const rows = g.verdicts
        .map((v) => {
          const text = v.text ? ` <span class="vt">${esc(v.text)}</span>` : '';
          const reason = v.reason ? `<span class="reason">${esc(v.reason)}</span> ` : '';
          const quote = v.quote ? `<span class="quote">“${esc(v.quote)}”</span>` : '';
          const where = v.citation ? ` <span class="loc">${esc(v.citation)}</span>` : '';
          return (
            `<tr class="v-${v.verdict}" data-label="${esc(v.label)}"><td class="letter">${esc(v.label)}${text}</td>` +
            `<td class="verdict">${VERDICT_TEXT[v.verdict]}</td><td>${reason}${quote}${where}</td></tr>`
          );
        })
        .join('');
      return `<div class="verdicts" data-modes="${esc(g.modes.join(' '))}"><div class="vh">逐项判定 Per-option verdicts · ${esc(g.modes.join(', '))}</div><table>${rows}</table></div>`;
    })
    .join('');
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
          return `<span class="pick guess" data-mode="${esc(m)}" title="弃答时的最佳猜测 best guess; the answer abstained">${esc(m)}?</span>`;
        return '';
      })
      .join('');
  const options = q.options
    .map((o) => {
      const gold = q.gold.includes(o.letter);
      const tag = gold ? ' <span class="gold-tag">✓ 答案 gold</span>' : '';
      const letter = esc(o.letter);
      return `<li class="opt${gold ? ' gold' : ''}" data-letter="${letter}"><b>${letter}.</b> ${esc(o.text)}${tag}${picks(o.letter)}</li>`;
    })
    .join('');
  const evidence = questionEvidence(q, present)
    .map((e) => {
      const by = `<span class="by">${e.cited ? '引用 cited by' : '最接近的段落 closest passage for'} ${esc(e.modes.join(', '))}</span>`;
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
    ? `<details class="ev"${wrongSomewhere ? ' open' : ''}><summary>依据 evidence</summary><ul>${evidence}</ul></details>`
    : '<div class="ev none">无依据 no evidence</div>';
  const id = esc(q.id);
  return `<article class="card${wrongSomewhere ? ' has-wrong' : ''}" id="q-${id}" data-id="${id}" data-filters="${filterKeys.join(' ')}">
<div class="head"><span class="id">${id}</span> ${chapter}${readings}</div>
<table class="results">${results}</table><div class="q">${esc(q.question)}</div><ol class="opts">${options}</ol>${verdictsHtml(q, present)}${evidenceBlock}</article>`;
}

/**
 * The filter buttons' behaviour: show the cards whose `data-filters` hold the chosen key. `#filter=key` picks one at
 * load; otherwise the wrong questions (what a teacher acts on), or all when none is wrong. Without scripts (as `serve`
 * shows reports) the stylesheet does the same with a link to show all, and hides the buttons, which could do nothing.
 */
export const FILTER_SCRIPT = `(function () {
  document.body.classList.add('js');
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
  var known = function (key) { return buttons.some(function (b) { return b.getAttribute('data-filter') === key; }); };
  apply(m && known(m[1]) ? m[1] : document.getElementById('filters').getAttribute('data-default'));
})();`;

/**
 * The per-question view: filter buttons with their counts, then one card per question (all shown without JavaScript).
 * `otherFilters` (the chapters) tag the cards too, but their buttons live elsewhere (the chapter table). The wrong
 * questions are shown first when there are any.
 */
export function questionSectionHtml(
  questions: readonly QuestionResult[],
  filters: readonly QuestionFilter[],
  modes: readonly AnswerMode[],
  otherFilters: readonly QuestionFilter[] = [],
): string {
  const keysById = new Map<string, string[]>();
  for (const f of [...filters, ...otherFilters]) for (const id of f.ids) keysById.set(id, [...(keysById.get(id) ?? []), f.key]);
  const wrong = filters.find((f) => f.key === 'wrong-any');
  const initial = wrong && wrong.ids.length > 0 ? 'wrong-any' : 'all';
  const buttons = filters
    .map(
      (f) =>
        `<button type="button" data-filter="${esc(f.key)}" aria-pressed="${f.key === initial ? 'true' : 'false'}">${esc(filterLabel(f))} <span class="count">${f.ids.length}</span></button>`,
    )
    .join('');
  const cards = questions.map((q) => questionCard(q, modes, keysById.get(q.id) ?? [])).join('\n');
  const shown = filters.find((f) => f.key === initial)?.ids.length ?? questions.length;
  // Without scripts (as served) the wrong questions show first too; a link to the #all-questions target shows the rest.
  const noScript =
    initial === 'wrong-any'
      ? `<p class="nojs-only legend"><a href="#all-questions">显示全部 Show all ${questions.length} questions</a> · <a href="#questions">只看错题 Only the wrong ones</a></p>`
      : '';
  return `<div id="filters" role="toolbar" aria-label="filter questions" data-default="${initial}">${buttons}</div>${noScript}
<p class="legend">显示 Showing <b id="shown">${shown}</b> / ${questions.length} 题 questions. 错 “Wrong” 指任何不对的作答：选错、兜底作答或弃答 (a wrong letter, a fallback answer or an abstention). 选项 Options: <span class="gold-tag">✓ 答案 gold</span> 为正确答案 is the right answer; 模式名标出其选择 a mode's name marks its pick (绿 green right, 红 red wrong, “?” 弃答时的最佳猜测 a best guess when it abstained).</p>
<span id="all-questions"></span><div id="cards"${initial === 'wrong-any' ? ' class="wrong-first"' : ''}>
${cards}
</div>`;
}

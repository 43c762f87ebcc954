import { quoteSegments } from '../answer/evidence.js';
import type { AnswerMode, Fallback, QuestionOption, Statement, VerdictKind } from '../answer/answer-types.js';
import type { OutlineEntry } from '../types.js';
import type { ServedReport } from './served-files.js';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A query string from fields, leaving out empty ones. */
export function query(fields: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

const WORDS_ZH: Readonly<Record<string, string>> = {
  high: '高 (high)',
  medium: '中 (medium)',
  low: '低 (low)',
  guess: '猜测 (guess)',
  unsupported: '无依据 (unsupported)',
};

/** The confidence words (`high`, `medium`, `low`, `guess`, from the answer JSON) as the page shows them. */
export function confidenceLabel(words: string, answered: boolean): string {
  if (!answered && words !== 'guess') return '未作答';
  return WORDS_ZH[words] ?? words;
}

/** One page: a header with navigation, the body, no external resources (works offline and without JavaScript). */
export function layout(title: string, body: string, options: { script?: string } = {}): string {
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · exam-copilot</title>
<link rel="stylesheet" href="/assets/style.css">
</head>
<body>
<header class="top"><a class="brand" href="/">exam-copilot</a>
<nav><a href="/">提问 Ask</a><a href="/search">检索 Search</a><a href="/toc">目录 TOC</a><a href="/reports">报告 Reports</a></nav></header>
<main>
${body}
</main>
${options.script ? `<script type="module" src="${escapeHtml(options.script)}"></script>` : ''}
</body>
</html>
`;
}

const MODES: readonly AnswerMode[] = ['hybrid', 'keyword', 'vector'];

/** The mode and answerer choices of the question form. */
function choices(mode: string, answerer: string, llmAvailable: boolean): string {
  const modeOptions = MODES.map((m) => `<option value="${m}"${m === mode ? ' selected' : ''}>${m}</option>`).join('');
  const answerers = ['offline', ...(llmAvailable ? ['llm', 'agent'] : [])];
  const answererOptions = answerers.map((a) => `<option value="${a}"${a === answerer ? ' selected' : ''}>${a}</option>`).join('');
  return `<label>检索 mode <select name="mode">${modeOptions}</select></label>
<label>作答 answerer <select name="answerer">${answererOptions}</select></label>`;
}

/** `/`: the question box. A multi-line paste (stem, then options A–D on their own lines) is one question. */
export function homePage(options: { llmAvailable: boolean; q?: string; mode?: string; answerer?: string; error?: string }): string {
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : '';
  return layout(
    '提问',
    `<h1>提问 Ask a question</h1>
${error}
<form method="get" action="/ask" class="ask-form">
<label for="q">题目与选项（可多行粘贴）</label>
<textarea id="q" name="q" rows="7" required maxlength="4000" placeholder="基金财产由（ ）负责保管。&#10;A.基金托管人&#10;B.基金管理人&#10;C.基金销售机构&#10;D.基金份额登记机构">${escapeHtml(options.q ?? '')}</textarea>
<div class="row">${choices(options.mode ?? 'hybrid', options.answerer ?? 'offline', options.llmAvailable)}
<button type="submit">回答 Answer</button></div>
</form>`,
  );
}

/** An evidence card as the page shows it. */
export interface EvidenceCard {
  /** The citation as the CLI prints it (`book | heading path | 表2-1 | 第X条`), without the pages. */
  citation: string;
  /** The quote's pages (`p.7`), or empty. */
  pages: string;
  quote: string;
  /** Character ranges of the option's words inside the quote, marked on the page. */
  highlights?: Array<[number, number]>;
  /** Link to the source at the quote's page, or null when the source cannot be shown. */
  href: string | null;
  /** Why the passage reads like an instruction to the model rather than textbook text (shown as a warning). */
  suspicious?: string;
}

/** One option (or Ⅰ/Ⅱ statement) with what the books say of it, as the page shows it. */
export interface VerdictCard {
  label: string;
  text: string;
  verdict: VerdictKind;
  reason?: string;
  /** The clause that settles it; null when nothing was found. */
  evidence: EvidenceCard | null;
}

/** Everything the answer page shows of one answer. */
export interface AnswerView {
  /** The stem without the options, or the whole question when no options were read. */
  stem: string;
  options: QuestionOption[];
  /** The Ⅰ/Ⅱ/Ⅲ statements a combination question lists in its stem. */
  statements: Statement[];
  /** Letters in order (`B`, `ABD`), or empty when no answer is given. */
  answer: string;
  confidence: number;
  /** `high` / `medium` / `low` / `guess`, as in the answer JSON. */
  words: string;
  /** The stem asks for the incorrect option. */
  negated: boolean;
  /** The best letter when the answerer abstained and a guess was asked for. */
  guess?: string;
  fallback: Fallback;
  message?: string;
  evidence: EvidenceCard[];
  verdicts: VerdictCard[];
}

/** Why an answer is not a normal evidence-backed one, in the page's words (Chinese first), never the internal label. */
const FALLBACK_WORDS: Readonly<Record<Exclude<Fallback, null>, string>> = {
  no_evidence: '未在教材中找到明确依据 No clear basis found in your books',
  off_topic: '与本知识库内容不符，无法回答 The question is outside your books',
  conflict: '教材中的依据相互矛盾 The passages found disagree',
  llm_failed: '大模型调用失败，显示离线答案 The LLM failed; the offline answer is shown',
  unsupported: '大模型的答案未引用教材依据 The LLM’s answer cites none of your books',
  agent_failed: '智能体未给出可用答案，改用一次作答 The agent gave no usable answer; a one-shot answer is shown',
};

const VERDICT_WORDS: Readonly<Record<VerdictKind, string>> = {
  supported: '✓ 支持 supported',
  contradicted: '✗ 矛盾 contradicted',
  not_found: '? 未找到 not found',
};

/** `B 基金管理人`; letters without a known option stay as they are. */
function lettersWithText(letters: string, options: readonly QuestionOption[]): string {
  return [...letters]
    .map((l) => {
      const text = options.find((o) => o.letter === l)?.text;
      return text ? `<span class="letter">${escapeHtml(l)}</span> ${escapeHtml(text)}` : `<span class="letter">${escapeHtml(l)}</span>`;
    })
    .join('；');
}

/** A quote with its highlighted words. */
function quoteHtml(e: Pick<EvidenceCard, 'quote' | 'highlights'>): string {
  return quoteSegments(e.quote, e.highlights)
    .map((q) => (q.marked ? `<mark>${escapeHtml(q.text)}</mark>` : escapeHtml(q.text)))
    .join('');
}

/** The citation line and the link to the page (or the bare pages when the source cannot be shown). */
function sourceLine(e: EvidenceCard, prefix = ''): string {
  const link = e.href
    ? `<a class="open" href="${escapeHtml(e.href)}">查看原文${e.pages ? ` ${escapeHtml(e.pages)}` : ''}</a>`
    : `<span class="pages">${escapeHtml(e.pages)}</span>`;
  const warning = e.suspicious
    ? `<p class="suspicious">⚠ 此段读起来像给模型的指令，而非教材原文 (reads like an instruction, not textbook text): ${escapeHtml(e.suspicious)}</p>`
    : '';
  return `<div class="where">${prefix}<span class="citation">${escapeHtml(e.citation)}</span> ${link}</div>${warning}`;
}

function verdictItem(v: VerdictCard): string {
  const e = v.evidence;
  // The quote itself opens the cited page, highlighted: it is what a student wants to check.
  const quote = e
    ? `<blockquote class="verdict-quote">${e.href ? `<a class="quote-link" href="${escapeHtml(e.href)}">${quoteHtml(e)}</a>` : quoteHtml(e)}</blockquote>${sourceLine(e)}`
    : '';
  const reason = v.reason ? `<p class="reason">${escapeHtml(v.reason)}</p>` : '';
  return `<li class="verdict ${v.verdict}"><div class="verdict-head"><span class="letter">${escapeHtml(v.label)}</span> <span class="option-text">${escapeHtml(v.text)}</span> <span class="verdict-word">${VERDICT_WORDS[v.verdict]}</span></div>${reason}${quote}</li>`;
}

/** `/ask`: the question with its options, the answer with its option's text, each option's verdict and the evidence cards. */
export function answerPage(options: { q: string; mode: string; answerer: string; llmAvailable: boolean } & AnswerView): string {
  const answered = options.answer !== '';
  const chosen = new Set(options.answer);
  const statements =
    options.statements.length > 0
      ? `<ul class="statements">${options.statements.map((st) => `<li><span class="letter">${escapeHtml(st.label)}</span> ${escapeHtml(st.text)}</li>`).join('')}</ul>`
      : '';
  const question =
    options.options.length > 0
      ? `<div class="question"><p class="stem">${escapeHtml(options.stem)}</p>${statements}
<ol class="options">${options.options
          .map(
            (o) =>
              `<li${chosen.has(o.letter) ? ' class="chosen"' : ''}><span class="letter">${escapeHtml(o.letter)}</span> ${escapeHtml(o.text)}</li>`,
          )
          .join('')}</ol></div>`
      : `<pre class="question">${escapeHtml(options.q)}</pre>`;
  const cards = options.evidence
    .map((e, i) => `<li class="evidence">${sourceLine(e, `[${i + 1}] `)}<blockquote>${quoteHtml(e)}</blockquote></li>`)
    .join('\n');
  const verdicts =
    options.verdicts.length > 0
      ? `<h2>逐项判断 Option by option</h2>\n<ol class="verdicts">${options.verdicts.map(verdictItem).join('\n')}</ol>\n`
      : '';
  const fallbackWords = options.fallback ? FALLBACK_WORDS[options.fallback] : '';
  const fallback = fallbackWords ? `<p class="fallback">${escapeHtml(fallbackWords)}</p>` : '';
  // The message often repeats the fallback's words (未在教材中找到明确依据); it is shown when it says more.
  const note = options.message && !fallbackWords.includes(options.message) ? `<p class="note">${escapeHtml(options.message)}</p>` : '';
  // One letter: its option's text; several: each letter with its text.
  const single = options.options.find((o) => o.letter === options.answer);
  const answerText = single ? escapeHtml(single.text) : lettersWithText(options.answer, options.options);
  const answer = answered
    ? `<strong id="answer">${escapeHtml(options.answer)}</strong> <span class="answer-text">${answerText}</span>`
    : '<strong id="answer">（无）</strong>';
  const guess = options.guess
    ? `<p class="guess">猜测 Guess: ${lettersWithText(options.guess, options.options)}（非教材依据 not backed by your books）</p>`
    : '';
  return layout(
    '回答',
    `<h1>回答 Answer</h1>
${question}
<section class="result">
<p class="answer">答案 Answer: ${answer}</p>
${guess}${options.negated ? '<p class="reading">读作：选错误的一项 (asks for the incorrect option)</p>\n' : ''}<p class="confidence">置信度 Confidence: <span id="confidence">${options.confidence.toFixed(2)}</span> · <span class="label">${escapeHtml(confidenceLabel(options.words, answered))}</span></p>
${fallback}${note}
</section>
${verdicts}<h2>依据 Evidence</h2>
<ol class="evidence-list">${cards || '<li>（无）</li>'}</ol>
<p class="how">检索 ${escapeHtml(options.mode)} · 作答 ${escapeHtml(options.answerer)}</p>
<details><summary>再问一题 Ask again</summary>
<form method="get" action="/ask" class="ask-form"><textarea name="q" rows="5" maxlength="4000">${escapeHtml(options.q)}</textarea>
<div class="row">${choices(options.mode, options.answerer, options.llmAvailable)}<button type="submit">回答 Answer</button></div></form></details>`,
  );
}

/** One search result row. */
export interface SearchRow {
  rank: number;
  score: number;
  where: string;
  pages: string;
  text: string;
  href: string | null;
}

/** `/search`: the query form with the CLI's filters, and ranked passages. */
export function searchPage(options: {
  q: string;
  mode: string;
  k: number;
  filters: { book: string; chapter: string; pages: string; type: string };
  books: string[];
  rows: SearchRow[] | null;
  error?: string;
}): string {
  const f = options.filters;
  const bookOptions = ['', ...options.books]
    .map((b) => `<option value="${escapeHtml(b)}"${b === f.book ? ' selected' : ''}>${b === '' ? '全部 all' : escapeHtml(b)}</option>`)
    .join('');
  const modeOptions = MODES.map((m) => `<option value="${m}"${m === options.mode ? ' selected' : ''}>${m}</option>`).join('');
  const rows =
    options.rows === null
      ? ''
      : options.rows.length === 0
        ? '<p class="empty">没有找到 No passages found.</p>'
        : `<ol class="hits">${options.rows
            .map(
              (r) =>
                `<li class="hit"><div class="where">${escapeHtml(r.where)} · ${r.href ? `<a href="${escapeHtml(r.href)}">${escapeHtml(r.pages)}</a>` : escapeHtml(r.pages)} <span class="score">${r.score.toFixed(3)}</span></div><p>${escapeHtml(r.text)}</p></li>`,
            )
            .join('\n')}</ol>`;
  return layout(
    '检索',
    `<h1>检索 Search</h1>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="get" action="/search" class="search-form">
<input type="search" name="q" value="${escapeHtml(options.q)}" maxlength="1000" placeholder="基金托管人的职责" required>
<label>mode <select name="mode">${modeOptions}</select></label>
<label>k <input type="number" name="k" min="1" max="50" value="${options.k}"></label>
<label>书 book <select name="book">${bookOptions}</select></label>
<label>章 chapter <input name="chapter" value="${escapeHtml(f.chapter)}"></label>
<label>页 pages <input name="pages" value="${escapeHtml(f.pages)}" placeholder="12-30"></label>
<label>type <select name="type"><option value="">all</option>${['text', 'manual_table_rewrite', 'note'].map((t) => `<option value="${t}"${t === f.type ? ' selected' : ''}>${t}</option>`).join('')}</select></label>
<button type="submit">检索 Search</button>
</form>
${rows}`,
  );
}

/** `/toc`: the outline of every book, linked to the page where each entry starts. */
export function tocPage(options: { entries: { entry: OutlineEntry; href: string | null }[]; books: string[] }): string {
  const byBook = options.books
    .map((book) => {
      const items = options.entries
        .filter((e) => e.entry.book === book)
        .map(({ entry, href }) => {
          const page = entry.page ? `p.${entry.page}` : '';
          const title = href ? `<a href="${escapeHtml(href)}">${escapeHtml(entry.title)}</a>` : escapeHtml(entry.title);
          return `<li class="level-${Math.min(entry.level, 4)}">${title} <span class="pages">${escapeHtml(page)}</span></li>`;
        })
        .join('\n');
      return `<section class="book"><h2>${escapeHtml(book)}</h2><ul class="toc">${items}</ul></section>`;
    })
    .join('\n');
  return layout(
    '目录',
    `<h1>目录 Table of contents</h1>\n${byBook || '<p class="empty">No outline yet: run <code>exam-copilot ingest</code>.</p>'}`,
  );
}

/** `/reports`: the eval reports found in the root's report folder. */
export function reportsPage(reports: readonly ServedReport[], folder: string): string {
  const items = reports
    .map((r) => `<li><a href="/reports/${encodeURIComponent(r.name)}">${escapeHtml(r.name)}</a> <span class="type">${r.type}</span></li>`)
    .join('\n');
  return layout(
    '报告',
    `<h1>报告 Reports</h1>
${items ? `<ul class="reports">${items}</ul>` : `<p class="empty">No reports in <code>${escapeHtml(folder)}</code> yet. Write one with <code>exam-copilot eval rawdoc/validation.csv --report-html ${escapeHtml(folder)}/eval.html</code>.</p>`}`,
  );
}

/** A plain error page with the status's meaning and what to do. */
export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>\n<p><a href="/">返回 Back</a></p>`,
  );
}

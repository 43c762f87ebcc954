import { quoteSegments } from '../answer/evidence.js';
import type { AnswerMode } from '../answer/answer-types.js';
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

const WORDS_ZH: Readonly<Record<string, string>> = { high: '高 (high)', medium: '中 (medium)', low: '低 (low)', guess: '猜测 (guess)' };

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
  book: string;
  headings: string[];
  figureRef: string;
  pages: string;
  quote: string;
  /** Character ranges of the option's words inside the quote, marked on the page. */
  highlights?: Array<[number, number]>;
  /** Link to the source at the cited page, or null when the source cannot be shown. */
  href: string | null;
}

/** `/ask`: the answer, the confidence with words, and evidence cards linking to the page of the source. */
export function answerPage(options: {
  q: string;
  mode: string;
  answerer: string;
  llmAvailable: boolean;
  answer: string;
  confidence: number;
  /** `high` / `medium` / `low` / `guess`, as in the answer JSON. */
  words: string;
  /** The stem asks for the incorrect option. */
  negated: boolean;
  /** The best letter when the answerer abstained and a guess was asked for. */
  guess?: string;
  fallback: string | null;
  message?: string;
  evidence: EvidenceCard[];
}): string {
  const answered = options.answer !== '';
  const cards = options.evidence
    .map((e, i) => {
      const where = [e.book, ...e.headings, e.figureRef]
        .filter((x) => x !== '')
        .map(escapeHtml)
        .join(' › ');
      const link = e.href
        ? `<a class="open" href="${escapeHtml(e.href)}">查看原文 ${escapeHtml(e.pages)}</a>`
        : `<span class="pages">${escapeHtml(e.pages)}</span>`;
      const quote = quoteSegments(e.quote, e.highlights)
        .map((q) => (q.marked ? `<mark>${escapeHtml(q.text)}</mark>` : escapeHtml(q.text)))
        .join('');
      return `<li class="evidence"><div class="where">[${i + 1}] ${where}</div><blockquote>${quote}</blockquote>${link}</li>`;
    })
    .join('\n');
  const note = options.message ? `<p class="note">${escapeHtml(options.message)}</p>` : '';
  const fallback = options.fallback ? `<p class="fallback">fallback: ${escapeHtml(options.fallback)}</p>` : '';
  return layout(
    '回答',
    `<h1>回答 Answer</h1>
<pre class="question">${escapeHtml(options.q)}</pre>
<section class="result">
<p class="answer">答案 Answer: <strong id="answer">${escapeHtml(answered ? options.answer : '（无）')}</strong>${options.guess ? ` <span class="guess">最可能 best guess: ${escapeHtml(options.guess)}（猜测，非教材依据）</span>` : ''}</p>
${options.negated ? '<p class="reading">读作：选错误的一项 (asks for the incorrect option)</p>\n' : ''}<p class="confidence">置信度 Confidence: <span id="confidence">${options.confidence.toFixed(2)}</span> · <span class="label">${escapeHtml(confidenceLabel(options.words, answered))}</span></p>
${fallback}${note}
</section>
<h2>依据 Evidence</h2>
<ol class="evidence-list">${cards || '<li>（无）</li>'}</ol>
<p class="how">mode: ${escapeHtml(options.mode)} · answerer: ${escapeHtml(options.answerer)}</p>
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

/** `/view` for a PDF: pdf.js renders the physical page and highlights the quote; without JavaScript, the passage text stays readable. */
export function pdfViewPage(options: {
  title: string;
  fileUrl: string;
  pdfPage: number;
  quote: string;
  passage: string;
  where: string;
}): string {
  return layout(
    options.title,
    `<h1>${escapeHtml(options.title)}</h1>
<p class="where">${escapeHtml(options.where)} · 第 ${options.pdfPage} 页 (PDF page)</p>
<div id="viewer" class="viewer" data-url="${escapeHtml(options.fileUrl)}" data-page="${options.pdfPage}" data-quote="${escapeHtml(options.quote)}">
<div class="page-box"><canvas id="page-canvas"></canvas><div id="highlights" class="highlights"></div></div>
<p id="viewer-status" class="status">正在加载 Loading the page…</p>
</div>
<section class="passage"><h2>原文 Passage</h2><p>${markQuote(options.passage, options.quote)}</p>
<p><a href="${escapeHtml(options.fileUrl)}#page=${options.pdfPage}">打开 PDF Open the PDF</a></p></section>`,
    { script: '/assets/viewer.js' },
  );
}

/** `/view` for Markdown and text notes: the file's text with the passage marked, scrolled to by its anchor. */
export function textViewPage(options: { title: string; text: string; quote: string }): string {
  return layout(
    options.title,
    `<h1>${escapeHtml(options.title)}</h1>\n<pre class="note-text">${markQuote(options.text, options.quote, 'hl')}</pre>`,
  );
}

/** Escapes `text` and wraps the first occurrence of `quote` (compared without whitespace) in `<mark>`. */
export function markQuote(text: string, quote: string, id?: string): string {
  const needle = quote.replace(/^…|…$/gu, '').replace(/\s+/gu, '');
  if (needle === '') return escapeHtml(text);
  // Map positions of the whitespace-free text back to the original, so the mark spans the right characters.
  const positions: number[] = [];
  let flat = '';
  for (let i = 0; i < text.length; i++) {
    if (!/\s/u.test(text[i] ?? '')) {
      positions.push(i);
      flat += text[i];
    }
  }
  const at = flat.indexOf(needle);
  if (at < 0) return escapeHtml(text);
  const start = positions[at] ?? 0;
  const end = (positions[at + needle.length - 1] ?? start) + 1;
  const idAttr = id ? ` id="${id}"` : '';
  return `${escapeHtml(text.slice(0, start))}<mark${idAttr}>${escapeHtml(text.slice(start, end))}</mark>${escapeHtml(text.slice(end))}`;
}

/** A plain error page with the status's meaning and what to do. */
export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>\n<p><a href="/">返回 Back</a></p>`,
  );
}

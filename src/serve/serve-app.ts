import { readFile } from 'node:fs/promises';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { answerJson } from '../answer/answer-json.js';
import type { AnswerMode } from '../answer/answer-types.js';
import { NotReadyError, UserError, errorMessage } from '../errors.js';
import { formatPages } from '../text/citation.js';
import { chunkFilter } from '../retrieve/parse-chunk-filter.js';
import type { RetrievalMode } from '../retrieve/retriever.js';
import { searchHitJson } from '../retrieve/run-search.js';
import { runToc, type TocResult } from '../retrieve/run-toc.js';
import type { Chunk, ChunkFilter, Hit } from '../types.js';
import { answerView } from './answer-view.js';
import { answerPage, errorPage, homePage, query, reportsPage, searchPage, tocPage } from './html-pages.js';
import { pdfjsFile, REPORTS_FOLDER, servedReports, servedSources, webAsset } from './served-files.js';
import { chunkViewPage, docViewPage, viewHref } from './view-pages.js';
import type { ServeContext, WebAnswerer } from './serve-context.js';

/** Largest request body accepted (a question with options is a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Longest question accepted, in characters (a long case-study stem with options fits comfortably). */
export const MAX_QUESTION_CHARS = 4000;
/** Longest search query accepted, in characters. */
export const MAX_QUERY_CHARS = 1000;
/** Most passages one search may return. */
export const MAX_K = 50;

/** Pages load only their own scripts, styles and the PDF; nothing from elsewhere (the page works offline). */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self' data: blob:; connect-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** Eval reports are self-contained HTML with inline styles and SVG; they may not load or run anything. */
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'";

const RETRIEVAL_MODES: readonly RetrievalMode[] = ['hybrid', 'keyword', 'vector'];

const askBody = z
  .object({
    question: z
      .string()
      .trim()
      .min(1, 'question is empty')
      .max(MAX_QUESTION_CHARS, `question is longer than ${MAX_QUESTION_CHARS} characters`),
    options: z.record(z.string(), z.string().max(MAX_QUESTION_CHARS)).optional(),
    mode: z.enum(['baseline', 'keyword', 'vector', 'hybrid']).optional(),
    answerer: z.enum(['offline', 'llm', 'agent']).optional(),
  })
  .strict();

/** Links back to the app, put at the top of a served HTML report (styled inline: the report allows no stylesheet). */
const REPORT_APP_LINKS =
  '<nav class="app-links" style="font-size:13px;margin:0 0 8px"><a href="/">← exam-copilot 提问 Ask</a> · <a href="/reports">报告 Reports</a></nav>';

/** A report's HTML with the app links right after its `<body>` tag (unchanged when it has none). */
export function withAppLinks(html: string): string {
  return html.replace(/<body[^>]*>/i, (tag) => `${tag}\n${REPORT_APP_LINKS}`);
}

/** A request the server refuses with a status and a message the caller can act on. */
class RequestError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 413 | 503,
    message: string,
  ) {
    super(message);
  }
}

/** Options of the web application. */
export interface ServeAppOptions {
  context: ServeContext;
  /** Host names a request's Host header may carry; others are refused (DNS-rebinding guard). Empty: any. */
  allowedHosts: readonly string[];
}

function firstZodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request';
  const where = issue.path.join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** Picks the answer mode and answerer from request fields, refusing what cannot run here. */
function answerChoice(
  context: ServeContext,
  mode: string | undefined,
  answerer: string | undefined,
): { mode: AnswerMode; answerer: WebAnswerer } {
  const a: WebAnswerer = answerer === 'llm' || answerer === 'agent' ? answerer : 'offline';
  if (answerer !== undefined && answerer !== 'llm' && answerer !== 'offline' && answerer !== 'agent')
    throw new RequestError(400, `answerer must be offline, llm or agent, got "${answerer}"`);
  if (a !== 'offline' && !context.llmAvailable)
    throw new RequestError(400, `answerer ${a} needs an LLM endpoint configured for this server; use offline`);
  const m = (mode ?? 'hybrid') as AnswerMode;
  if (!['baseline', ...RETRIEVAL_MODES].includes(m))
    throw new RequestError(400, `mode must be one of hybrid, keyword, vector, baseline; got "${mode}"`);
  if (m === 'baseline' && a !== 'llm') throw new RequestError(400, 'mode baseline is the LLM alone and needs answerer llm');
  return { mode: m, answerer: a };
}

function retrievalMode(mode: string | undefined): RetrievalMode {
  const m = (mode === undefined || mode === '' ? 'hybrid' : mode) as RetrievalMode;
  if (!RETRIEVAL_MODES.includes(m)) throw new RequestError(400, `mode must be one of ${RETRIEVAL_MODES.join(', ')}, got "${mode}"`);
  return m;
}

function searchK(k: string | undefined): number {
  if (k === undefined || k === '') return 10;
  const n = Number(k);
  if (!Number.isInteger(n) || n < 1 || n > MAX_K) throw new RequestError(400, `k must be a whole number from 1 to ${MAX_K}, got "${k}"`);
  return n;
}

function webFilter(raw: { book?: string; chapter?: string; pages?: string; type?: string }): ChunkFilter {
  try {
    return chunkFilter(raw, { prefix: '' });
  } catch (error) {
    throw new RequestError(400, errorMessage(error));
  }
}

function headingsOf(c: Pick<Chunk, 'chapter' | 'section' | 'subsection'>): string[] {
  return [c.chapter, c.section, c.subsection].filter((h) => h !== '');
}

/**
 * The web application: server-rendered pages that work without JavaScript, a JSON API, and the allow-listed
 * source and report files. Every handler validates its input; no path from a URL reaches the file system.
 */
export function createServeApp(options: ServeAppOptions): Hono {
  const { context } = options;
  const app = new Hono();
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));

  app.use('*', async (c, next) => {
    if (allowed.size > 0) {
      const host = (c.req.header('host') ?? '').toLowerCase().replace(/:\d+$/, '');
      if (!allowed.has(host)) {
        return c.text(`host "${host}" is not served here; open the address the server printed`, 403);
      }
    }
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', PAGE_CSP);
  });

  const isApi = (c: Context): boolean => c.req.path.startsWith('/api/');
  app.onError((error, c) => {
    let status: 400 | 403 | 404 | 413 | 500 | 503 = 500;
    let message = 'internal error; the server log has the details';
    if (error instanceof RequestError) [status, message] = [error.status, error.message];
    else if (error instanceof NotReadyError) [status, message] = [503, error.message];
    else if (error instanceof UserError) [status, message] = [400, error.message];
    else process.stderr.write(`exam-copilot serve: ${error.stack ?? error.message}\n`);
    if (isApi(c)) return c.json({ error: message }, status);
    return c.html(
      errorPage(status === 503 ? '尚未就绪 Not ready' : status === 500 ? '出错了 Error' : '请求有误 Bad request', message),
      status,
    );
  });
  app.notFound((c) =>
    isApi(c)
      ? c.json({ error: `no such endpoint: ${c.req.method} ${c.req.path}` }, 404)
      : c.html(errorPage('未找到 Not found', `nothing at ${c.req.path}`), 404),
  );

  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json({ error: `request body is larger than ${MAX_BODY_BYTES} bytes` }, 413),
  });

  // --- pages ---------------------------------------------------------------------------------------------
  app.get('/', (c) => c.html(homePage({ llmAvailable: context.llmAvailable })));
  // Browsers ask for an icon on every page; an empty answer keeps their consoles clean.
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/ask', async (c) => {
    const q = c.req.query('q') ?? '';
    const mode = c.req.query('mode');
    const answererRaw = c.req.query('answerer');
    const form = { llmAvailable: context.llmAvailable, q, ...(mode ? { mode } : {}), ...(answererRaw ? { answerer: answererRaw } : {}) };
    if (q.trim() === '') return c.html(homePage({ ...form, error: '请输入题目 Type a question with its options.' }), 400);
    if (q.length > MAX_QUESTION_CHARS)
      return c.html(homePage({ ...form, q: '', error: `The question is longer than ${MAX_QUESTION_CHARS} characters.` }), 400);
    const choice = answerChoice(context, mode, answererRaw);
    const out = await context.ask(q, choice);
    const view = await answerView(out.result, { chunk: (id) => context.chunk(id), sources: servedSources(context.root) });
    return c.html(answerPage({ q, mode: choice.mode, answerer: choice.answerer, llmAvailable: context.llmAvailable, ...view }));
  });

  app.get('/search', async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    const raw = {
      book: c.req.query('book') ?? '',
      chapter: c.req.query('chapter') ?? '',
      pages: c.req.query('pages') ?? '',
      type: c.req.query('type') ?? '',
    };
    const books = safeToc(context.root)?.books ?? [];
    const page = (rows: Parameters<typeof searchPage>[0]['rows'], extra: { error?: string; mode?: string; k?: number } = {}): string =>
      searchPage({
        q,
        mode: extra.mode ?? c.req.query('mode') ?? 'hybrid',
        k: extra.k ?? 10,
        filters: raw,
        books,
        rows,
        ...(extra.error ? { error: extra.error } : {}),
      });
    if (q === '') return c.html(page(null));
    let mode: RetrievalMode;
    let k: number;
    let filter: ChunkFilter;
    try {
      if (q.length > MAX_QUERY_CHARS) throw new RequestError(400, `the query is longer than ${MAX_QUERY_CHARS} characters`);
      mode = retrievalMode(c.req.query('mode'));
      k = searchK(c.req.query('k'));
      filter = webFilter({ ...raw, pages: raw.pages || undefined, type: raw.type || undefined });
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      return c.html(page(null, { error: error.message }), 400);
    }
    const hits = await context.search(q, { mode, k, filter });
    const sources = servedSources(context.root);
    const rows = hits.map((h, i) => ({
      rank: i + 1,
      score: h.score,
      where: [h.chunk.book, ...headingsOf(h.chunk), h.chunk.figure_ref].filter((x) => x !== '').join(' › '),
      pages: formatPages(h.chunk.page_start, h.chunk.page_end) || '(no page)',
      text: h.chunk.text.replace(/\s+/gu, ' ').slice(0, 300),
      href: viewHref(h.chunk, sources, h.chunk.text.slice(0, 40)),
    }));
    return c.html(page(rows, { mode, k }));
  });

  app.get('/toc', (c) => {
    const book = c.req.query('book');
    const toc = runToc({ root: context.root, ...(book ? { book } : {}) });
    const sources = servedSources(context.root);
    const entries = toc.entries.map((entry) => {
      const doc = sources.find((s) => s.source === entry.source);
      const href = doc && doc.kind === 'pdf' && entry.pdf_page !== null ? `/view${query({ doc: doc.id, page: entry.pdf_page })}` : null;
      return { entry, href };
    });
    return c.html(tocPage({ entries, books: toc.books }));
  });

  app.get('/reports', (c) => c.html(reportsPage(servedReports(context.root), REPORTS_FOLDER)));

  app.get('/reports/:name', async (c) => {
    const name = c.req.param('name');
    const report = servedReports(context.root).find((r) => r.name === name);
    if (!report) throw new RequestError(404, `no report named "${name}" in ${REPORTS_FOLDER}/`);
    const file = await readFile(report.file);
    // An HTML report is one file that also works opened from disk; served here it gets a way back to the app.
    const body = report.type === 'html' ? withAppLinks(file.toString('utf8')) : file;
    const type =
      report.type === 'html'
        ? 'text/html; charset=utf-8'
        : report.type === 'json'
          ? 'application/json; charset=utf-8'
          : 'text/plain; charset=utf-8';
    return c.body(body, 200, { 'Content-Type': type, 'Content-Security-Policy': REPORT_CSP });
  });

  app.get('/view', async (c) => {
    const sources = servedSources(context.root);
    const chunkId = c.req.query('chunk');
    const quote = c.req.query('quote') ?? '';
    if (chunkId) {
      const chunk = await context.chunk(chunkId);
      if (!chunk) throw new RequestError(404, `no passage ${chunkId} in the current index (it may have been re-ingested); search again`);
      const doc = sources.find((s) => s.source === chunk.source);
      if (!doc) throw new RequestError(404, `the source of this passage (${chunk.source}) is not available to show`);
      return c.html(await chunkViewPage(chunk, doc, quote));
    }
    const docId = c.req.query('doc') ?? '';
    const doc = sources.find((s) => s.id === docId);
    if (!doc) throw new RequestError(404, `no document "${docId}"; open one from the table of contents`);
    const page = Number(c.req.query('page') ?? '1');
    if (!Number.isInteger(page) || page < 1)
      throw new RequestError(400, `page must be a whole number from 1, got "${c.req.query('page')}"`);
    return c.html(await docViewPage(doc, page, quote));
  });

  // --- files -------------------------------------------------------------------------------------------------
  app.get('/files/:id', async (c) => {
    const doc = servedSources(context.root).find((s) => s.id === c.req.param('id'));
    if (!doc) throw new RequestError(404, 'no such document');
    const type = doc.kind === 'pdf' ? 'application/pdf' : 'text/plain; charset=utf-8';
    return c.body(await readFile(doc.file), 200, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
  });

  app.get('/vendor/pdfjs/*', async (c) => {
    const file = pdfjsFile(c.req.path.slice('/vendor/pdfjs/'.length));
    if (!file) throw new RequestError(404, 'no such file');
    const type = file.endsWith('.mjs') ? 'text/javascript; charset=utf-8' : 'application/octet-stream';
    return c.body(await readFile(file), 200, { 'Content-Type': type, 'Cache-Control': 'max-age=3600' });
  });

  app.get('/assets/:name', async (c) => {
    const asset = webAsset(c.req.param('name'));
    if (!asset) throw new RequestError(404, 'no such asset');
    return c.body(await readFile(asset.file), 200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
  });

  // --- JSON API ----------------------------------------------------------------------------------------------
  app.post('/api/ask', limit, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new RequestError(400, 'the body is not valid JSON; send {"question": "…", "options": {"A": "…"}}');
    }
    const parsed = askBody.safeParse(body);
    if (!parsed.success) throw new RequestError(400, firstZodMessage(parsed.error));
    const choice = answerChoice(context, parsed.data.mode, parsed.data.answerer);
    const out = await context.ask(parsed.data.question, {
      ...choice,
      ...(parsed.data.options ? { givenOptions: parsed.data.options } : {}),
    });
    // The agent adds the steps it took, as `ask --agent --json` does.
    // The agent's result carries its steps, which answerJson prints as `ask --agent --json` does.
    return c.json(answerJson(out));
  });

  app.get('/api/search', async (c) => {
    const q = (c.req.query('q') ?? '').trim();
    if (q === '') throw new RequestError(400, 'q is empty; search with /api/search?q=基金托管人的职责');
    if (q.length > MAX_QUERY_CHARS) throw new RequestError(400, `q is longer than ${MAX_QUERY_CHARS} characters`);
    const mode = retrievalMode(c.req.query('mode'));
    const k = searchK(c.req.query('k'));
    const filter = webFilter({
      book: c.req.query('book'),
      chapter: c.req.query('chapter'),
      pages: c.req.query('pages'),
      type: c.req.query('type'),
    });
    const hits: Hit[] = await context.search(q, { mode, k, filter });
    return c.json({
      query: q,
      mode,
      // The same hit shape as `search --json`, plus the physical page the viewer opens.
      hits: hits.map((hit) => ({ ...searchHitJson(hit), pdf_page_start: hit.chunk.pdf_page_start })),
    });
  });

  app.get('/api/toc', (c) => {
    const book = c.req.query('book');
    return c.json(runToc({ root: context.root, ...(book ? { book } : {}) }));
  });

  return app;
}

/** The outline, or null before the first ingest (the search form then offers no book list). */
function safeToc(root: string): TocResult | null {
  try {
    return runToc({ root });
  } catch {
    return null;
  }
}

import type { Hono } from 'hono';
import type { RetrievalMode } from '../../retrieve/retriever.js';
import { runToc, type TocResult } from '../../retrieve/run-toc.js';
import { formatPages } from '../../text/citation.js';
import type { ChunkFilter } from '../../types.js';
import { RequestError, refuseCrossSite, sameOriginNavigation } from '../guards.js';
import { answerView } from '../answer-view.js';
import { answerPage, homePage, query, reportsPage, searchPage, tocPage } from '../html-pages.js';
import { chunkViewPage, docViewPage, viewHref } from '../view-pages.js';
import { answerChoice, headingsOf, MAX_QUERY_CHARS, MAX_QUESTION_CHARS, retrievalMode, searchK, webFilter } from '../request-params.js';
import { REPORTS_FOLDER, servedReports, servedSources } from '../served-files.js';
import type { ServeContext } from '../serve-context.js';

/** The note shown when a GET /ask that asked for the LLM is answered offline instead. */
export const LLM_NEEDS_PAGE_NOTE =
  'answered offline: the LLM and the agent run only for a question asked from this page (a browser that sends Sec-Fetch-Site); scripts use POST /api/ask';

/** The outline, or null before the first ingest (the search form then offers no book list). */
function safeToc(root: string): TocResult | null {
  try {
    return runToc({ root });
  } catch {
    return null;
  }
}

/** Server-rendered pages that work without JavaScript: home, answer, search, TOC, reports, the viewer. */
export function register(app: Hono, context: ServeContext): void {
  app.get('/', (c) => c.html(homePage({ llmAvailable: context.llmAvailable })));
  // Browsers ask for an icon on every page; an empty answer keeps their consoles clean.
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/ask', refuseCrossSite, async (c) => {
    const q = c.req.query('q') ?? '';
    const mode = c.req.query('mode');
    const answererRaw = c.req.query('answerer');
    const form = { llmAvailable: context.llmAvailable, q, ...(mode ? { mode } : {}), ...(answererRaw ? { answerer: answererRaw } : {}) };
    if (q.trim() === '') return c.html(homePage({ ...form, error: '请输入题目 Type a question with its options.' }), 400);
    if (q.length > MAX_QUESTION_CHARS)
      return c.html(homePage({ ...form, q: '', error: `The question is longer than ${MAX_QUESTION_CHARS} characters.` }), 400);
    let choice = answerChoice(context.llmAvailable, mode, answererRaw);
    // A link can be followed without the user asking anything: the LLM (which costs money) runs only for a question
    // asked on this server's page or typed in the address bar. Cross-site requests were refused above; a client that
    // does not say where it comes from (a script, an old browser) gets the offline answer and a note saying why.
    let note: string | null = null;
    if (choice.answerer !== 'offline' && !sameOriginNavigation(c)) {
      note = LLM_NEEDS_PAGE_NOTE;
      choice = { mode: choice.mode === 'baseline' ? 'hybrid' : choice.mode, answerer: 'offline' };
    }
    const sources = servedSources(context.root);
    // The answer and its evidence's chunks come from one index generation, even if an ingest swaps it meanwhile.
    const view = await context.withIndex(async (index) => {
      const answered = await index.ask(q, choice);
      return answerView(answered.result, { chunk: (id) => index.chunk(id), sources });
    });
    const message = [note, view.message].filter((m): m is string => Boolean(m)).join(' · ');
    const { message: _own, ...shown } = view;
    return c.html(
      answerPage({
        q,
        mode: choice.mode,
        answerer: choice.answerer,
        llmAvailable: context.llmAvailable,
        ...shown,
        ...(message ? { message } : {}),
      }),
    );
  });

  app.get('/search', refuseCrossSite, async (c) => {
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
}

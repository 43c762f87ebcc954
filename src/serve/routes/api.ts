import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { answerJson } from '../../answer/answer-json.js';
import { searchHitJson } from '../../retrieve/run-search.js';
import { runToc } from '../../retrieve/run-toc.js';
import { RequestError, refuseCrossSite } from '../guards.js';
import {
  answerChoice,
  askBody,
  firstZodMessage,
  MAX_BODY_BYTES,
  MAX_QUERY_CHARS,
  retrievalMode,
  searchK,
  webFilter,
} from '../request-params.js';
import type { ServeContext } from '../serve-context.js';

/** The JSON API: `POST /api/ask` (the object `ask --json` prints), `GET /api/search`, `GET /api/toc`. */
export function register(app: Hono, context: ServeContext): void {
  // Every API route answers from the books or spends the LLM budget: none answers another site's page.
  app.use('/api/*', refuseCrossSite);
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json({ error: `request body is larger than ${MAX_BODY_BYTES} bytes` }, 413),
  });

  app.post('/api/ask', limit, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new RequestError(400, 'the body is not valid JSON; send {"question": "…", "options": {"A": "…"}}');
    }
    const parsed = askBody.safeParse(body);
    if (!parsed.success) throw new RequestError(400, firstZodMessage(parsed.error));
    const choice = answerChoice(context.llmAvailable, parsed.data.mode, parsed.data.answerer);
    const out = await context.ask(parsed.data.question, {
      ...choice,
      ...(parsed.data.options ? { givenOptions: parsed.data.options } : {}),
    });
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
    const hits = await context.search(q, { mode, k, filter });
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
}

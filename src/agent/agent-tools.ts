import { z } from 'zod';
import type { OpenedRetriever } from '../retrieve/open-retriever.js';
import type { Chunk, ChunkFilter, OutlineEntry } from '../types.js';

/**
 * The tools the agent reads the book with, over the existing retriever and the outline recovered at ingest:
 * `toc` (the 目录), `search` (one-shot retrieval with filters), and `read` (chunks with their neighbours, or a
 * printed page range). Each tool validates its arguments with zod and answers with a message the model can act on
 * when they are wrong, instead of throwing.
 */

/** A tool as described to the model: name, purpose, JSON-schema parameters. */
export interface ToolSpec {
  name: AgentToolName;
  description: string;
  parameters: Record<string, unknown>;
}

export type AgentToolName = 'toc' | 'search' | 'read';

/** One passage in a tool result: enough to cite (id, book, headings, printed pages) and to read (text). */
export interface ToolPassage {
  chunk_id: string;
  book: string;
  headings: string[];
  pages: string;
  text: string;
}

/** What a tool call produced: the text shown to the model, and the chunk ids it may now cite. */
export interface ToolOutcome {
  /** JSON text given back to the model as the tool result. */
  content: string;
  chunkIds: string[];
  /** Characters of passage text returned (counted against the read budget). */
  chars: number;
  /** Set when the call was refused (bad arguments, unknown tool): the model sees the message and can retry. */
  error?: string;
}

/** What the tools read from: the opened index and the outline. */
export interface ToolContext {
  /** Passages are read by key and by SQL range, never by loading the whole chunk table. */
  retriever: Pick<OpenedRetriever, 'search' | 'chunk' | 'chunksBySeq' | 'chunksOnPages'>;
  outline: readonly OutlineEntry[];
  /** Most characters of passage text one call returns. */
  maxCharsPerCall: number;
}

const pagesSchema = z
  .string()
  .regex(/^\s*\d+\s*(?:[-~–]\s*\d+\s*)?$/, 'pages is a printed page or range such as "12" or "12-15"')
  .transform((s) => {
    const [a, b] = s.split(/[-~–]/).map((x) => Number(x.trim()));
    return { from: a ?? 0, to: b ?? a ?? 0 };
  })
  .refine((p) => p.to >= p.from, 'the page range ends before it starts');

const argSchemas = {
  toc: z.object({ book: z.string().optional() }).strict(),
  search: z
    .object({
      query: z.string().trim().min(1, 'query is empty'),
      mode: z.enum(['keyword', 'vector', 'hybrid']).optional(),
      book: z.string().optional(),
      chapter: z.string().optional(),
      pages: pagesSchema.optional(),
      k: z.number().int().min(1).max(10).optional(),
    })
    .strict(),
  read: z
    .object({
      chunk_ids: z.array(z.string()).min(1).max(5).optional(),
      before: z.number().int().min(0).max(3).optional(),
      after: z.number().int().min(0).max(3).optional(),
      book: z.string().optional(),
      pages: pagesSchema.optional(),
    })
    .strict()
    .refine((a) => (a.chunk_ids !== undefined) !== (a.pages !== undefined), 'give either chunk_ids, or book and pages'),
} as const;

/** The tool specs sent to the model (OpenAI function-calling shape, also rendered into the simulated prompt). */
export const AGENT_TOOLS: readonly ToolSpec[] = [
  {
    name: 'toc',
    description:
      'The table of contents (目录) of the indexed books: each heading with its level and printed page. Start here to find the chapter a question belongs to.',
    parameters: { type: 'object', properties: { book: { type: 'string', description: 'only this book' } }, additionalProperties: false },
  },
  {
    name: 'search',
    description:
      'Ranked passages for a query (keyword BM25, vector, or hybrid), optionally limited to a book, a chapter or heading (any level), or printed pages.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        mode: { type: 'string', enum: ['keyword', 'vector', 'hybrid'] },
        book: { type: 'string' },
        chapter: { type: 'string', description: 'substring of a chapter or section heading' },
        pages: { type: 'string', description: 'printed page or range, e.g. "12-15"' },
        k: { type: 'integer', minimum: 1, maximum: 10 },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'read',
    description:
      'Read passages in full: chunk_ids (from toc/search/read results) with up to 3 neighbouring passages before/after in the same section, or a book and a printed page range.',
    parameters: {
      type: 'object',
      properties: {
        chunk_ids: { type: 'array', items: { type: 'string' }, maxItems: 5 },
        before: { type: 'integer', minimum: 0, maximum: 3 },
        after: { type: 'integer', minimum: 0, maximum: 3 },
        book: { type: 'string' },
        pages: { type: 'string', description: 'printed page or range, e.g. "12-15"' },
      },
      additionalProperties: false,
    },
  },
];

function headingsOf(c: Chunk): string[] {
  return [c.chapter, c.section, c.subsection].filter((h) => h !== '');
}

function pagesOf(c: Chunk): string {
  if (!c.page_start) return '';
  return c.page_end && c.page_end !== c.page_start ? `${c.page_start}-${c.page_end}` : c.page_start;
}

/** Passages cut to the character budget of one call; the last one is shortened rather than dropped. */
function toPassages(chunks: readonly Chunk[], maxChars: number): { passages: ToolPassage[]; chars: number; truncated: boolean } {
  const passages: ToolPassage[] = [];
  let chars = 0;
  let truncated = false;
  for (const c of chunks) {
    const room = maxChars - chars;
    if (room <= 40) {
      truncated = true;
      break;
    }
    const text = c.text.length > room ? `${c.text.slice(0, room)}…` : c.text;
    if (text.length < c.text.length) truncated = true;
    passages.push({ chunk_id: c.chunk_id, book: c.book, headings: headingsOf(c), pages: pagesOf(c), text });
    chars += text.length;
  }
  return { passages, chars, truncated };
}

function refused(message: string): ToolOutcome {
  return { content: JSON.stringify({ error: message }), chunkIds: [], chars: 0, error: message };
}

/**
 * Most chunks one `read` by pages fetches: a call returns at most `maxCharsPerCall` characters (4,000 by default),
 * which this many chunks exceed at any chunk size ingest makes.
 */
const READ_PAGES_LIMIT = 64;

/**
 * Runs one tool call. Arguments arrive as the model wrote them (a JSON string or an object); anything wrong
 * becomes a refusal the model reads (`{"error": "…"}`), never an exception.
 */
export async function runTool(name: string, rawArguments: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  if (!(name in argSchemas)) return refused(`unknown tool "${name}"; the tools are ${AGENT_TOOLS.map((t) => t.name).join(', ')}`);
  let value: unknown = rawArguments ?? {};
  if (typeof value === 'string') {
    const text = value;
    try {
      value = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      return refused(`the arguments of ${name} are not valid JSON: ${text.slice(0, 120)}`);
    }
  }
  const tool = name as AgentToolName;
  const parsed = argSchemas[tool].safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refused(`bad arguments for ${name}: ${issue ? `${issue.path.join('.') || 'arguments'}: ${issue.message}` : 'invalid'}`);
  }
  if (tool === 'toc') {
    const args = parsed.data;
    const entries = ctx.outline.filter((e) => !args.book || e.book === args.book);
    if (args.book && entries.length === 0)
      return refused(`no book "${args.book}"; books: ${[...new Set(ctx.outline.map((e) => e.book))].join(', ')}`);
    const lines = entries.map((e) => `${'  '.repeat(Math.max(0, e.level - 1))}${e.title}${e.page ? ` (p.${e.page})` : ''} [${e.book}]`);
    let content = lines.join('\n');
    if (content.length > ctx.maxCharsPerCall) content = `${content.slice(0, ctx.maxCharsPerCall)}\n… (cut; ask toc with a book)`;
    return { content: JSON.stringify({ toc: content }), chunkIds: [], chars: content.length };
  }
  if (tool === 'search') {
    const args = parsed.data as z.infer<typeof argSchemas.search>;
    const filter: ChunkFilter = {
      ...(args.book ? { book: args.book } : {}),
      ...(args.chapter ? { chapter: args.chapter } : {}),
      ...(args.pages ? { pages: args.pages } : {}),
    };
    const hits = await ctx.retriever.search(args.query, { mode: args.mode ?? 'hybrid', k: args.k ?? 5, filter });
    const { passages, chars, truncated } = toPassages(
      hits.map((h) => h.chunk),
      ctx.maxCharsPerCall,
    );
    return {
      content: JSON.stringify({ passages, ...(truncated ? { note: 'cut to the read budget; use read for more' } : {}) }),
      chunkIds: passages.map((p) => p.chunk_id),
      chars,
    };
  }
  const args = parsed.data as z.infer<typeof argSchemas.read>;
  let chunks: Chunk[];
  if (args.chunk_ids) {
    const unknown = args.chunk_ids.filter((id) => !ctx.retriever.chunk(id));
    if (unknown.length > 0) return refused(`unknown chunk_ids: ${unknown.join(', ')}; use ids from toc/search/read results`);
    const wanted = new Map<string, Chunk>();
    for (const id of args.chunk_ids) {
      const center = ctx.retriever.chunk(id);
      if (!center) continue;
      const around = ctx.retriever.chunksBySeq(center.source, center.seq - (args.before ?? 0), center.seq + (args.after ?? 0));
      for (const c of around) if (c.section === center.section && c.chapter === center.chapter) wanted.set(c.chunk_id, c);
    }
    // Index order: ingest writes sources in this order, each in seq order.
    chunks = [...wanted.values()].sort((a, b) => a.source.localeCompare(b.source) || a.seq - b.seq);
  } else {
    const pages = args.pages ?? { from: 0, to: 0 };
    chunks = ctx.retriever.chunksOnPages(args.book ?? null, pages.from, pages.to, READ_PAGES_LIMIT);
    if (chunks.length === 0) return refused(`nothing on printed pages ${pages.from}-${pages.to}${args.book ? ` of ${args.book}` : ''}`);
  }
  const { passages, chars, truncated } = toPassages(chunks, ctx.maxCharsPerCall);
  return {
    content: JSON.stringify({ passages, ...(truncated ? { note: 'cut to the read budget; read fewer passages at a time' } : {}) }),
    chunkIds: passages.map((p) => p.chunk_id),
    chars,
  };
}

import type { ExamCopilotConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import type { ChunkFilter, Hit, ChunkLocation, ChunkType, Warning } from '../types.js';
import { openRetriever } from './open-retriever.js';
import type { RetrievalMode } from './retriever.js';

export interface RunSearchOptions {
  root: string;
  config: ExamCopilotConfig;
  query: string;
  mode: RetrievalMode;
  topK: number;
  filter?: ChunkFilter;
  /** Neighbour expansion; defaults to `config.retrieval.neighbours`. */
  neighbours?: number;
}

/** One ranked chunk, in the shape `search --json` prints. */
export interface SearchHit extends ChunkLocation {
  score: number;
  chunk_type: ChunkType;
  text: string;
}

export interface SearchResult {
  query: string;
  mode: RetrievalMode;
  hits: SearchHit[];
  embedderId: string;
  vectorBackend: string;
  latencyMs: number;
  warnings: Warning[];
}

/** `exam-copilot search`: ranked chunks for a query, with scores and printed pages. */
export async function runSearch(options: RunSearchOptions): Promise<SearchResult> {
  const query = options.query.trim();
  if (query === '') throw new UsageError('search needs a non-empty query, e.g. exam-copilot search "基金托管人的职责"');
  const retriever = await openRetriever({ root: options.root, config: options.config });
  try {
    const t0 = performance.now();
    const hits = await retriever.search(query, {
      mode: options.mode,
      k: options.topK,
      ...(options.filter ? { filter: options.filter } : {}),
      ...(options.neighbours !== undefined ? { neighbours: options.neighbours } : {}),
    });
    const latencyMs = performance.now() - t0;
    return {
      query,
      mode: options.mode,
      embedderId: retriever.embedderId,
      vectorBackend: retriever.vectorBackend,
      latencyMs,
      warnings: [...retriever.warnings],
      hits: hits.map(searchHitJson),
    };
  } finally {
    retriever.close();
  }
}

/** One ranked chunk as `search --json` (and the web API) shows it. */
export function searchHitJson({ chunk: c, score }: Hit): SearchHit {
  return {
    chunk_id: c.chunk_id,
    score,
    book: c.book,
    headings: c.headings,
    chapter: c.chapter,
    section: c.section,
    articles: c.articles,
    figure_ref: c.figure_ref,
    page_start: c.page_start,
    page_end: c.page_end,
    chunk_type: c.chunk_type,
    text: c.text,
  };
}

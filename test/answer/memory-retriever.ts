import type { Retriever, RetrieveOptions } from '../../src/retrieve/retriever.js';
import type { Analyzer } from '../../src/text/analyzer.js';
import type { Chunk, Hit } from '../../src/types.js';

/** A chunk for solver tests: body text on a page of 上册 unless told otherwise. */
export function fixtureChunk(id: string, text: string, extra: Partial<Chunk> = {}): Chunk {
  return {
    chunk_id: id,
    book: '上册',
    chapter: '第一章 证券投资基金概述',
    section: '第一节 证券投资基金的概念',
    subsection: '',
    figure_ref: '',
    page_start: '1',
    page_end: '1',
    pdf_page_start: 1,
    pdf_page_end: 1,
    chunk_type: 'text',
    exam_priority: 1,
    source: 'rawdoc/x.pdf',
    char_start: 0,
    char_end: text.length,
    seq: 0,
    text,
    articles: [],
    page_breaks: [],
    headings: [extra.chapter ?? '第一章 证券投资基金概述', extra.section ?? '第一节 证券投资基金的概念'].filter((h) => h !== ''),
    ...extra,
  };
}

/**
 * An in-memory Retriever for unit tests of the solver logic: token-overlap scoring with the real analyzer
 * (every mode behaves alike). Integration tests use the real pipeline instead.
 */
export function memoryRetriever(chunks: Chunk[], analyzer: Analyzer): Retriever & { queries: string[] } {
  const tokenised = chunks.map((c) => ({ chunk: c, tokens: new Set(analyzer.tokens(`${c.section} ${c.text}`)) }));
  const queries: string[] = [];
  return {
    queries,
    chunks,
    embedderId: 'memory',
    vectorBackend: 'js',
    size: chunks.length,
    chunk: (id) => chunks.find((c) => c.chunk_id === id),
    search(query: string, options: RetrieveOptions): Promise<Hit[]> {
      queries.push(query);
      const q = new Set(analyzer.tokens(query));
      const hits = tokenised
        .map(({ chunk, tokens }) => ({ chunk, score: [...q].filter((t) => tokens.has(t)).length }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, options.k);
      return Promise.resolve(hits);
    },
    close: () => undefined,
  };
}

import type { Chunk } from '../../src/types.js';

/** A body-text chunk with defaults, for unit tests of ranking and post-processing. */
export function chunk(id: string, over: Partial<Chunk> = {}): Chunk {
  return {
    chunk_id: id,
    book: '上册',
    headings: [],
    chapter: '',
    section: '',
    subsection: '',
    articles: [],
    page_breaks: [],
    figure_ref: '',
    page_start: '1',
    page_end: '1',
    pdf_page_start: 1,
    pdf_page_end: 1,
    chunk_type: 'text',
    exam_priority: 1,
    source: 'a.pdf',
    char_start: 0,
    char_end: 10,
    seq: 0,
    text: id,
    ...over,
  };
}

/**
 * Shared data shapes that cross pipeline stages. Everything else stays local to its stage.
 */

/** What a chunk was made from. Table transcriptions are kept apart from body text. */
export type ChunkType = 'text' | 'manual_table_rewrite' | 'note';

/** One retrievable unit, as written to `data/chunks.jsonl` (one JSON object per line). */
export interface Chunk {
  /** Stable id: the same source file and the same position give the same id on re-ingest. */
  chunk_id: string;
  /** Book name, e.g. `上册`; derived from the file name unless the config overrides it. */
  book: string;
  /**
   * The whole heading path, outermost first, as printed and normalised: `["第五编 婚姻家庭编", "第二章 结婚"]`.
   * `chapter`, `section` and `subsection` are derived from it for compatibility.
   */
  headings: string[];
  /** Outermost heading, e.g. `第二章 基金的分类` (`headings[0]`); empty when unknown. */
  chapter: string;
  /** Second heading of the path, e.g. `第一节 开放式基金` (`headings[1]`); empty when unknown. */
  section: string;
  /** Innermost heading when the path is deeper than two (`一、…`, `第一节 …` under 编 > 章), else empty. */
  subsection: string;
  /** Article headings (`第三十二条`) whose text the chunk holds, in order; empty for text without articles. */
  articles: string[];
  /** Figure or table reference such as `表2-1` or `图3-1`; empty for body text. */
  figure_ref: string;
  /** Printed page label of the first page (what a reader cites), or empty when unknown. */
  page_start: string;
  /** Printed page label of the last page, or empty when unknown. */
  page_end: string;
  /** 1-based physical page index of the first page in the PDF; null for non-PDF sources. */
  pdf_page_start: number | null;
  /** 1-based physical page index of the last page in the PDF; null for non-PDF sources. */
  pdf_page_end: number | null;
  chunk_type: ChunkType;
  /** Ranking prior: 1 for body text, higher for material exams lean on (table transcriptions: 3). */
  exam_priority: number;
  /** Source file, relative to the root (POSIX separators). */
  source: string;
  /** Character offsets into the source's extracted body text (for CSV rows: into the row's content). */
  char_start: number;
  char_end: number;
  /** Where a new physical page starts inside `text`, with its printed label; empty when the chunk is on one page. */
  page_breaks: PageBreak[];
  /** Order of the chunk within its source; neighbours share a section and differ by one. */
  seq: number;
  /** The chunk's own text, with no contextual prefix. */
  text: string;
  /** Present (true) when some of the text was read by OCR from a scanned page: quotes may hold recognition errors. */
  ocr?: true;
}

/** A page break inside a chunk's text: the character at `offset` is the first one of physical page `pdf_page`. */
export interface PageBreak {
  offset: number;
  /** Printed label of that page (empty when unknown). */
  page: string;
  pdf_page: number;
}

/**
 * Where a chunk stands, as cited to users (`book | heading path | 第X条 | p.N`, see `formatCitation`) and stored in
 * reports. `headings` and `articles` are absent in reports written before they existed.
 */
export type ChunkLocation = Pick<Chunk, 'chunk_id' | 'book' | 'chapter' | 'section' | 'figure_ref' | 'page_start' | 'page_end'> &
  Partial<Pick<Chunk, 'headings' | 'articles'>>;

/** One line of `data/docs_for_index.jsonl`: the text both indexes see. */
export interface IndexDoc {
  chunk_id: string;
  /** `book | chapter | section` (plus ` | figure_ref` when set) on the first line, then the chunk text. */
  text: string;
}

/** One entry of a book's recovered table of contents (`data/outline.json`). */
export interface OutlineEntry {
  book: string;
  source: string;
  title: string;
  /** 1 = chapter, 2 = section, 3 = subsection. */
  level: number;
  /** Printed page label, when the TOC or the heading's page tells it. */
  page: string | null;
  /** 1-based physical page where the heading was found, when it was. */
  pdf_page: number | null;
}

/** Restricts retrieval to part of the corpus. All fields are optional and combine with AND. */
export interface ChunkFilter {
  book?: string;
  /** Substring match against any heading of the chunk's path (编, 章, 节, …). */
  chapter?: string;
  /** Inclusive printed page range; chunks whose printed pages are not numeric are excluded when set. */
  pages?: { from: number; to: number };
  chunkType?: ChunkType;
}

/** A retrieved chunk with the score of the retriever that produced it (higher is better). */
export interface Hit {
  chunk: Chunk;
  score: number;
}

/** The swap point between retrieval back ends (pyserini-style). */
export interface Searcher {
  readonly name: string;
  search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]>;
  /**
   * `search` for several queries at once, the hits of each in query order, where doing them together saves work
   * (one pass over the vectors); absent: the caller searches one by one.
   */
  searchMany?(queries: readonly string[], k: number, filter?: ChunkFilter): Promise<Hit[][]>;
}

/** The swap point between embedding models. Vectors are L2-normalised by the embedder. */
export interface Embedder {
  /** Identifies the model and its fitted state; an index built with one id cannot be queried with another. */
  readonly id: string;
  readonly dimension: number;
  embedDocuments(texts: readonly string[]): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  /** Releases files or handles the embedder keeps open, when it has any. */
  close?(): void;
}

/** Problems met while validating input; collected and reported together rather than thrown one by one. */
export interface Warning {
  /** File (and line, when known) the warning is about, e.g. `rawdoc/table_explain.csv:7`. */
  where: string;
  message: string;
}

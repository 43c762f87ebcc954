import type { Chunk, ChunkFilter, Hit } from '../types.js';

/** How candidates are recalled: BM25 over FTS5, nearest neighbours over FAISS, or both fused with RRF. */
export type RetrievalMode = 'keyword' | 'vector' | 'hybrid';
export const RETRIEVAL_MODES: readonly RetrievalMode[] = ['keyword', 'vector', 'hybrid'];

export interface RetrieveOptions {
  mode: RetrievalMode;
  k: number;
  filter?: ChunkFilter;
  /** Expand each hit with this many chunks before/after it in the same section (parent-child style). */
  neighbours?: number;
  /**
   * Count a unit of statute text (a chunk of article text) shorter than this many characters as its share of one
   * hit, so k hits of small units (one article each) hold about as much text as k windows (`takeEvidence`; at most
   * `BUDGET_MAX_HITS` hits). Unset or 0: every hit counts one.
   */
  unitChars?: number;
}

/** The most hits `unitChars` may take. */
export const BUDGET_MAX_HITS = 100;

/** An opened index: what `ask`, `search` and `eval` query. Built by `openRetriever({ root, config })`. */
export interface Retriever {
  search(query: string, options: RetrieveOptions): Promise<Hit[]>;
  /**
   * `search` for several queries with the same options, the hits of each in query order: the vector searches of a
   * hybrid or vector retrieval run together (one pass over a flat FAISS index). The offline answerer retrieves its
   * stem and each option this way. Absent: call `search` per query.
   */
  searchMany?(queries: readonly string[], options: RetrieveOptions): Promise<Hit[][]>;
  /** Looks a chunk up by id. */
  chunk(id: string): Chunk | undefined;
  /**
   * Tokens ingest segmented for the texts of this passage (`segmentPassage`: its window pieces and its headings),
   * keyed by text, from the stored chunks it is made of (one, or several for a hit merged or expanded from
   * neighbours). Empty for an index that stores none. The answerer cuts only the texts missing here.
   */
  passageTokens?(chunk: Chunk): ReadonlyMap<string, readonly string[]>;
  /** Every chunk in index order (read from the index on first use). */
  readonly chunks: readonly Chunk[];
  /** How many chunks the index holds, without loading them. */
  readonly size: number;
  /** The embedder the vector index was built with. */
  readonly embedderId: string;
  /** 'faiss' or 'js' (exact flat inner-product fallback). */
  readonly vectorBackend: string;
  close(): void;
}

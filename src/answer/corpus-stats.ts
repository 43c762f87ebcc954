import type { Analyzer } from '../text/analyzer.js';
import type { Chunk } from '../types.js';

/**
 * Document frequencies over the indexed chunks, for idf weights in the offline answerer and for the
 * off-topic test (how much of a question's vocabulary the corpus has ever seen).
 */
export interface CorpusStats {
  /** Number of chunks. */
  readonly n: number;
  /** Chunks containing the token. */
  df(token: string): number;
  /** BM25-style idf, always positive; unseen tokens get the highest weight. */
  idf(token: string): number;
}

/** Counts document frequencies of the analyzer's tokens over the chunks (headings included). */
export function buildCorpusStats(chunks: readonly Chunk[], analyzer: Analyzer): CorpusStats {
  const df = new Map<string, number>();
  for (const chunk of chunks) {
    const seen = new Set(analyzer.tokens(`${chunk.chapter} ${chunk.section} ${chunk.subsection} ${chunk.figure_ref} ${chunk.text}`));
    for (const t of seen) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const n = chunks.length;
  return {
    n,
    df: (t) => df.get(t) ?? 0,
    idf: (t) => {
      const d = df.get(t) ?? 0;
      return Math.log((n - d + 0.5) / (d + 0.5) + 1);
    },
  };
}

import { countDocumentFrequencies } from '../text/document-frequencies.js';
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

/** Statistics over `n` chunks from a document-frequency lookup (a token no chunk holds has 0). */
export function corpusStatsFrom(n: number, frequency: (token: string) => number): CorpusStats {
  return {
    n,
    df: frequency,
    idf: (t) => {
      const d = frequency(t);
      return Math.log((n - d + 0.5) / (d + 0.5) + 1);
    },
  };
}

/**
 * Counts document frequencies of the analyzer's tokens over the chunks (headings included). Tokenises the whole
 * corpus: the answerer uses it only for an index written without stored counts (`corpusStatsFromIndex`).
 */
export function buildCorpusStats(chunks: readonly Chunk[], analyzer: Analyzer): CorpusStats {
  const df = new Map<string, number>();
  for (const chunk of chunks) countDocumentFrequencies(df, chunk, analyzer);
  return corpusStatsFrom(chunks.length, (t) => df.get(t) ?? 0);
}

/**
 * Statistics from the counts the index stores (read per token when first needed, then kept), so opening an answerer
 * reads nothing but the tokens its questions use. The same numbers as `buildCorpusStats` over the index's chunks.
 */
export function corpusStatsFromIndex(n: number, storedFrequency: (token: string) => number): CorpusStats {
  const known = new Map<string, number>();
  return corpusStatsFrom(n, (t) => {
    let d = known.get(t);
    if (d === undefined) {
      d = storedFrequency(t);
      known.set(t, d);
    }
    return d;
  });
}

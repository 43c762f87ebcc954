import type { Chunk } from '../types.js';
import type { Analyzer } from './analyzer.js';

/**
 * The text of a chunk whose tokens the offline answerer's corpus statistics count: its headings, figure label and body.
 * One definition for the index writer, which stores the counts, and the answerer, which counts itself for an index
 * written without them.
 */
export function documentFrequencyText(chunk: Pick<Chunk, 'chapter' | 'section' | 'subsection' | 'figure_ref' | 'text'>): string {
  return `${chunk.chapter} ${chunk.section} ${chunk.subsection} ${chunk.figure_ref} ${chunk.text}`;
}

/** Adds one chunk's distinct tokens to document-frequency counts. */
export function countDocumentFrequencies(
  counts: Map<string, number>,
  chunk: Parameters<typeof documentFrequencyText>[0],
  analyzer: Analyzer,
): void {
  for (const t of new Set(analyzer.tokens(documentFrequencyText(chunk)))) counts.set(t, (counts.get(t) ?? 0) + 1);
}

/**
 * Adds one chunk's distinct tokens to document-frequency counts, from the tokens of its parts cut one by one (chapter,
 * section, subsection, figure label, body). The same tokens as `documentFrequencyText` cut whole: the parts are joined
 * by spaces, and neither jieba nor the numeral and width normalisation joins anything across a space.
 */
export function countDistinctTokens(counts: Map<string, number>, parts: readonly (readonly string[])[]): void {
  const seen = new Set<string>();
  for (const tokens of parts) for (const t of tokens) seen.add(t);
  for (const t of seen) counts.set(t, (counts.get(t) ?? 0) + 1);
}

import { normalizeText } from './analyzer.js';

/** A run of two or more Han characters (after `normalizeText`, which has turned Chinese numerals into digits). */
const HAN_RUN = /\p{Script=Han}{2,}/gu;

/**
 * Overlapping character bigrams of every run of Han characters (民法典 → 民法, 法典), on the analyzer's normal form.
 * Bigrams are the classic unit of Chinese retrieval (Lucene's CJK analyzer): they do not depend on where a word
 * segmenter cuts, so a compound that the dictionary lacks, or cuts differently in a lay question than in the statute,
 * still matches on its characters. Words and bigrams complement each other in one BM25.
 */
export function hanBigrams(text: string): string[] {
  const out: string[] = [];
  for (const run of normalizeText(text).match(HAN_RUN) ?? []) {
    const chars = [...run];
    for (let i = 1; i < chars.length; i++) out.push(`${chars[i - 1] ?? ''}${chars[i] ?? ''}`);
  }
  return out;
}

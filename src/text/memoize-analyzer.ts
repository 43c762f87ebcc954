import type { Analyzer } from './analyzer.js';

/**
 * Caches tokens by text. The offline answerer cuts every retrieved chunk into windows and tokenises them for
 * each question and each mode, and the same stem is tokenised in every mode; jieba is a quarter of eval's time.
 * Bounded, dropping the oldest entries, so a long run does not grow without limit.
 */
export function memoizeAnalyzer(analyzer: Analyzer, maxEntries = 200_000): Analyzer {
  const cache = new Map<string, readonly string[]>();
  return {
    fingerprint: analyzer.fingerprint,
    tokens(text: string): string[] {
      let tokens = cache.get(text);
      if (!tokens) {
        tokens = analyzer.tokens(text);
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(text, tokens);
      }
      // A copy: callers own the array they get, as with the plain analyzer.
      return [...tokens];
    },
  };
}

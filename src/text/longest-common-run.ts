import { normalizeText } from './analyzer.js';

/** Text reduced to what a verbatim comparison should see: width, case and numerals normalised (the analyzer's `normalizeText`), without punctuation or spaces. */
export function plainChars(text: string): string {
  return normalizeText(text).replace(/[\p{P}\p{S}\p{Z}\s]/gu, '');
}

/** Length of the longest common substring of two strings (dynamic programming, two rows over `b`). */
export function longestCommonRun(a: string, b: string): number {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Uint16Array(b.length + 1);
  let cur = new Uint16Array(b.length + 1);
  let best = 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      if (a.charCodeAt(i - 1) === b.charCodeAt(j - 1)) {
        const v = (prev[j - 1] ?? 0) + 1;
        cur[j] = v;
        if (v > best) best = v;
      } else cur[j] = 0;
    }
    [prev, cur] = [cur, prev];
  }
  return best;
}

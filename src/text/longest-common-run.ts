import { normalizeText } from './analyzer.js';

/** Text reduced to what a verbatim comparison should see: width, case and numerals normalised (the analyzer's `normalizeText`), without punctuation or spaces. */
export function plainChars(text: string): string {
  return normalizeText(text).replace(/[\p{P}\p{S}\p{Z}\s]/gu, '');
}

/**
 * A claim prepared for `longestRun`: for each of its characters, the positions where it occurs, last first, and
 * scratch arrays for the run lengths. The window side is then scanned once, touching only characters the claim
 * has, instead of filling a claim × window table for every window.
 */
export interface RunPattern {
  readonly positions: ReadonlyMap<number, readonly number[]>;
  /** One bit per UTF-16 code unit the claim holds: most window characters are not in a short claim. */
  readonly present: Uint32Array;
  /** Per claim position: the window position where the run ending there last ended, and its length. */
  readonly endedAt: Int32Array;
  readonly runLength: Int32Array;
}

/** Length of the longest common substring of `a` and `b`, in UTF-16 code units (the verbatim run of a claim in a window). */
export function longestCommonRun(a: string, b: string): number {
  return longestRun(runPattern(a), b);
}

/** Prepares a claim for `longestRun` (once per claim, then one scan per window). */
export function runPattern(claim: string): RunPattern {
  const positions = new Map<number, number[]>();
  const present = new Uint32Array(0x10000 >>> 5);
  for (let i = claim.length - 1; i >= 0; i--) {
    const code = claim.charCodeAt(i);
    present[code >>> 5] = (present[code >>> 5] as number) | (1 << (code & 31));
    const list = positions.get(code);
    if (list) list.push(i);
    else positions.set(code, [i]);
  }
  return { positions, present, endedAt: new Int32Array(claim.length), runLength: new Int32Array(claim.length) };
}

/**
 * Length of the longest common substring (UTF-16 code units) of the pattern's claim and `text`. A run ending at claim
 * position i and text position j extends the run that ended at i - 1 and j - 1; positions are visited last first, so
 * i - 1 still holds its value for j - 1.
 */
export function longestRun(pattern: RunPattern, text: string): number {
  const { positions, present, endedAt, runLength } = pattern;
  endedAt.fill(-2);
  let best = 0;
  for (let j = 0; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (((present[code >>> 5] as number) & (1 << (code & 31))) === 0) continue;
    const list = positions.get(code);
    if (!list) continue;
    for (const i of list) {
      const v = i > 0 && endedAt[i - 1] === j - 1 ? (runLength[i - 1] ?? 0) + 1 : 1;
      endedAt[i] = j;
      runLength[i] = v;
      if (v > best) best = v;
    }
  }
  return best;
}

/** Chunk sizes in characters (config.chunking). */
export interface ChunkingOptions {
  minChars: number;
  maxChars: number;
  overlap: number;
  /** Cut statute-like text at every article heading (`第X条`), one small unit per article. */
  articleUnits?: boolean;
}

/** A chunk's range inside the text it was cut from (end exclusive). */
export interface TextSpan {
  start: number;
  end: number;
}

const CUT_AFTER = /[。！？；!?;\n]/u;

/** Offsets just after each sentence end (。！？；!?;) or line end. */
export function cutPoints(text: string): number[] {
  const cuts: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (CUT_AFTER.test(text[i] ?? '')) {
      // Closing quotes/brackets belong to the sentence they end.
      let j = i + 1;
      while (j < text.length && /[”’」』）)】》"]/u.test(text[j] ?? '')) j++;
      cuts.push(j);
      i = j - 1;
    }
  }
  return cuts;
}

/** Moves `start` past leading whitespace and `end` before trailing whitespace. */
function trimSpan(text: string, start: number, end: number): TextSpan {
  let s = start;
  let e = end;
  while (s < e && /\s/u.test(text[s] ?? '')) s++;
  while (e > s && /\s/u.test(text[e - 1] ?? '')) e--;
  return { start: s, end: e };
}

/**
 * Cuts one segment into spans of minChars..maxChars characters at sentence or line ends, each span after the
 * first starting `overlap` characters (snapped to a nearby sentence end when one is within ±20%) before the
 * previous span's end. A text no longer than maxChars is one span. Only when no sentence end falls inside the
 * window is a span cut mid-sentence, at maxChars.
 */
export function chunkText(text: string, options: ChunkingOptions): TextSpan[] {
  const { minChars, maxChars, overlap } = options;
  const whole = trimSpan(text, 0, text.length);
  if (whole.end - whole.start === 0) return [];
  if (whole.end - whole.start <= maxChars) return [whole];
  const cuts = cutPoints(text);
  const spans: TextSpan[] = [];
  let start = whole.start;
  const len = whole.end;
  for (;;) {
    if (len - start <= maxChars) {
      spans.push(trimSpan(text, start, len));
      break;
    }
    const window = cuts.filter((c) => c >= start + minChars && c <= start + maxChars);
    // Prefer an end that leaves a tail long enough to be a proper chunk.
    const good = window.filter((c) => len - (c - overlap) >= minChars || c >= len);
    const end = good[good.length - 1] ?? window[window.length - 1] ?? start + maxChars;
    spans.push(trimSpan(text, start, end));
    let next = end - overlap;
    const near = cuts.filter((c) => c >= end - overlap * 1.2 && c <= end - overlap * 0.8);
    if (near.length > 0) next = near.reduce((a, b) => (Math.abs(b - (end - overlap)) < Math.abs(a - (end - overlap)) ? b : a));
    if (next <= start) next = end;
    start = next;
  }
  return spans.filter((s) => s.end > s.start);
}

/**
 * Markdown as a reader sees it, for quoting a note: emphasis and code marks, container fences (`::: warning 注意`, title included), table
 * pipes and rule rows, heading hashes, block-quote and bullet marks and link syntax are dropped; every other character
 * stays, in order. `map[i]` is the offset in the Markdown of character `i` of the plain text, so a span found in one is
 * a span in the other.
 */
export interface PlainText {
  text: string;
  map: number[];
}

/** `::: warning 标题` / `:::`: a container fence (markdown-it-container), dropped with its title (a box's label, not text). */
const FENCE = /^\s*:{3,}/u;
/** A table's rule row: `|---|:--:|` (a line of dashes alone is a thematic break). */
export const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/u;
/** Marks at the start of a line: heading hashes, block-quote `>`, a bullet. */
const LINE_MARKS = /^(\s{0,3}#{1,6}\s+|(\s*>\s?)+|\s*[-*+]\s+)/u;
/** Paired inline marks removed wherever they stand: strong, strike-through, code. */
const PAIRED = /\*\*|__|~~|`+/gu;
/** Single-star emphasis: `*词*` with no space inside the stars. */
const SINGLE_STAR = /(?<![*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?!\*)/gu;
/** Links and images: `[text](url)`, `![alt](url)`; the text stays. */
const LINK = /!?\[([^\]\n]*)\]\([^)\n]*\)/gu;
/** A backslash escaping punctuation: the punctuation stays. */
const ESCAPE = /\\(?=[!-/:-@[-`{-~])/gu;

/** The reader's text of Markdown `source`, with each plain character's offset in the source. */
export function markdownPlain(source: string): PlainText {
  const drop = new Uint8Array(source.length);
  const swap = new Map<number, string>();
  const dropRange = (from: number, to: number): void => {
    drop.fill(1, from, to);
  };
  let lineStart = 0;
  for (const line of source.split('\n')) {
    const at = lineStart;
    lineStart += line.length + 1;
    if (FENCE.test(line)) {
      dropRange(at, at + line.length);
      continue;
    }
    if (TABLE_RULE.test(line) && line.includes('-') && (line.includes('|') || /^\s*:?-{3,}/u.test(line))) {
      dropRange(at, at + line.length);
      continue;
    }
    const lead = LINE_MARKS.exec(line);
    if (lead) dropRange(at, at + lead[0].length);
    if (/^\s*\|/u.test(line)) {
      // A table row: the outer pipes go, inner ones separate the cells as a space (unless escaped).
      for (let i = 0; i < line.length; i++) {
        if (line[i] !== '|' || line[i - 1] === '\\') continue;
        const outer = line.slice(0, i).trim() === '' || line.slice(i + 1).trim() === '';
        if (outer) drop[at + i] = 1;
        else swap.set(at + i, ' ');
      }
    }
    for (const m of line.matchAll(LINK)) {
      const textStart = at + m.index + (m[0].startsWith('!') ? 2 : 1);
      dropRange(at + m.index, textStart);
      dropRange(textStart + (m[1] ?? '').length, at + m.index + m[0].length);
    }
    for (const m of line.matchAll(PAIRED)) dropRange(at + m.index, at + m.index + m[0].length);
    // Single stars are read after the doubled ones are gone, so `***词***` leaves no star behind.
    const rest = line
      .split('')
      .map((ch, i) => (drop[at + i] ? '\u0000' : ch))
      .join('');
    for (const m of rest.matchAll(SINGLE_STAR)) {
      drop[at + m.index] = 1;
      drop[at + m.index + m[0].length - 1] = 1;
    }
    for (const m of line.matchAll(ESCAPE)) drop[at + m.index] = 1;
  }
  let text = '';
  const map: number[] = [];
  for (let i = 0; i < source.length; i++) {
    if (drop[i]) continue;
    text += swap.get(i) ?? source[i];
    map.push(i);
  }
  return { text, map };
}

/** The plain-text span `[start, end)` covering source span `[from, to)`. */
export function plainSpan(plain: PlainText, from: number, to: number): [number, number] {
  let start = plain.map.findIndex((o) => o >= from);
  if (start === -1) start = plain.map.length;
  let end = start;
  while (end < plain.map.length && (plain.map[end] ?? Infinity) < to) end++;
  return [start, end];
}

/** True for a chunk read from a Markdown note (`.md`, `.markdown`), whose text carries the note's markup. */
export function isMarkdownSource(source: string): boolean {
  return /\.(md|markdown)$/iu.test(source);
}

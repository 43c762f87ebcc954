import { longestRun, plainChars, runPattern } from '../text/longest-common-run.js';
import type { Chunk, Hit } from '../types.js';
import { promoteHits } from './post-process.js';

/** Shortest verbatim run, in plain characters, that makes a query a quotation of a passage. */
export const MIN_QUOTED_RUN = 12;
/** …and the share of the query's plain characters that run must cover. */
export const MIN_QUOTED_SHARE = 0.4;

/** Plain text per chunk object: an open index hands out the same chunk objects, and a deep ranking sees them often. */
const plainCache = new WeakMap<Chunk, string>();

function plainOf(chunk: Chunk): string {
  let plain = plainCache.get(chunk);
  if (plain === undefined) plainCache.set(chunk, (plain = plainChars(chunk.text)));
  return plain;
}

/**
 * The quotation rule, applied after retrieval in every mode: when the query repeats a passage word for word
 * (a run of at least `MIN_QUOTED_RUN` characters and `MIN_QUOTED_SHARE` of the query, punctuation aside), the
 * passages holding the longest such run go first, longest first (scores lifted to stay falling: `promoteHits`); the
 * rest keep the retriever's order and scores. A reader looking up a remembered phrase, or a stem that quotes its
 * article, wants that passage, while a ranking of small units can put a neighbour with the same words above it. Lay
 * questions never quote that much, so they are left alone.
 */
export function applyQuotePriority(query: string, hits: readonly Hit[]): Hit[] {
  const q = plainChars(query);
  const needed = Math.max(MIN_QUOTED_RUN, Math.ceil(MIN_QUOTED_SHARE * q.length));
  if (q.length < needed || hits.length < 2) return [...hits];
  const pattern = runPattern(q);
  // A common run of `needed` characters covers one of the query's aligned blocks of half that length whole
  // (pigeonhole), so a passage holding none of them cannot qualify: a substring search rules most hits out.
  const half = Math.ceil(needed / 2);
  const blocks: string[] = [];
  for (let at = 0; at + half <= q.length; at += half) blocks.push(q.slice(at, at + half));
  const scored = hits.map((hit, i) => {
    const plain = plainOf(hit.chunk);
    const run = blocks.some((b) => plain.includes(b)) ? longestRun(pattern, plain) : 0;
    return { hit, run: run >= needed ? run : 0, i };
  });
  if (scored.every((s) => s.run === 0)) return [...hits];
  const quoted = scored.filter((s) => s.run > 0).sort((a, b) => b.run - a.run || a.i - b.i);
  return promoteHits(
    quoted.map((s) => s.hit),
    scored.filter((s) => s.run === 0).map((s) => s.hit),
  );
}

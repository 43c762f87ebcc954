import { pageAtOffset } from '../text/citation.js';
import type { Chunk, Hit, PageBreak } from '../types.js';

/** Chunks whose character offsets refer to one shared body text (PDF/Markdown sources); CSV rows each have their own offsets. */
function sharesOffsets(chunk: Chunk): boolean {
  return chunk.chunk_type !== 'manual_table_rewrite';
}

/** Characters of `b`'s range that `a` also covers (0 for other sources or table rows, whose offsets are per row). */
function sharedChars(a: Chunk, b: Chunk): number {
  if (a.source !== b.source || !sharesOffsets(a) || !sharesOffsets(b)) return 0;
  return Math.max(0, Math.min(a.char_end, b.char_end) - Math.max(a.char_start, b.char_start));
}

/** Text without whitespace, as a key apart from ids, per chunk object: an open index hands out the same objects. */
const textKeys = new WeakMap<Chunk, string>();

function textKey(chunk: Chunk): string {
  let key = textKeys.get(chunk);
  if (key === undefined) textKeys.set(chunk, (key = `text:${chunk.text.replace(/\s+/g, '')}`));
  return key;
}

/**
 * Folds hits that repeat evidence into the better-ranked one: the same chunk or identical text is dropped, and a
 * chunk of the same source whose character range overlaps a better-ranked hit is merged into it (the union of
 * both texts, the better hit's id, score and rank). Sliding-window chunking makes neighbours share 80–120
 * characters, and the sentence a question needs is often the one cut at that boundary: dropping the lower
 * neighbour lost it, keeping both repeats the overlap; the union has it once, whole. The input order decides.
 */
export function dedupeHits(hits: readonly Hit[]): Hit[] {
  const kept: Hit[] = [];
  const seen = new Set<string>();
  // Kept hits per source, in rank order: only hits of one source can overlap (a deep ranking of small units has many).
  const bySource = new Map<string, number[]>();
  for (const hit of hits) {
    const c = hit.chunk;
    const text = textKey(c);
    if (seen.has(c.chunk_id) || seen.has(text)) continue;
    seen.add(c.chunk_id).add(text);
    const same = bySource.get(c.source);
    const at = same?.find((i) => sharedChars(kept[i]!.chunk, c) > 0) ?? -1;
    if (at < 0) {
      if (same) same.push(kept.length);
      else bySource.set(c.source, [kept.length]);
      kept.push(hit);
      continue;
    }
    const into = kept[at]!.chunk;
    kept[at] = {
      chunk: mergeChunks(
        into,
        [into, c].sort((x, y) => x.char_start - y.char_start || x.char_end - y.char_end),
      ),
      score: kept[at]!.score,
    };
  }
  return kept;
}

/**
 * Parent-child expansion: each hit is replaced by a chunk that spans it and up to `n` chunks before and
 * after it in the same source and section (by `seq`), so the answerer sees the surrounding paragraph.
 * The hit keeps its chunk_id, score and type; its text, character range and pages grow. Text shared by
 * overlapping neighbours is written once; contiguous ones are joined directly, others with a newline. Table transcriptions are self-contained and are not expanded.
 */
export function expandNeighbours(hits: readonly Hit[], chunks: readonly Chunk[], n: number): Hit[] {
  if (n <= 0) return [...hits];
  const bySource = new Map<string, Chunk[]>();
  for (const c of chunks) {
    let list = bySource.get(c.source);
    if (!list) bySource.set(c.source, (list = []));
    list.push(c);
  }
  for (const list of bySource.values()) list.sort((a, b) => a.seq - b.seq);
  return hits.map((hit) => {
    const c = hit.chunk;
    if (c.chunk_type === 'manual_table_rewrite') return hit;
    const list = bySource.get(c.source) ?? [];
    const group = list.filter(
      (o) =>
        o.section === c.section &&
        o.chapter === c.chapter &&
        o.book === c.book &&
        Math.abs(o.seq - c.seq) <= n &&
        o.chunk_type === c.chunk_type,
    );
    if (group.length <= 1) return hit;
    return { chunk: mergeChunks(c, group), score: hit.score };
  });
}

/**
 * Joins chunks in seq order, skipping the characters a chunk shares with the previous one when offsets allow. The
 * merged chunk keeps the center's id and type; its pages run from the first chunk's to the last's, and its page
 * breaks and articles are those of every part, at their offsets in the joined text, so a quote from any part cites
 * its own page (a quote from the second chunk of a page-3/page-4 pair says p.4, not the first chunk's p.3).
 */
function mergeChunks(center: Chunk, group: readonly Chunk[]): Chunk {
  let text = '';
  let end = -1;
  const breaks: PageBreak[] = [];
  let page: { page: string; pdf_page: number | null } | null = null;
  for (const g of group) {
    const consistent = g.char_end - g.char_start === g.text.length;
    let skip = 0;
    if (end >= 0 && consistent && g.char_start <= end) {
      skip = Math.min(end - g.char_start, g.text.length);
    } else if (text) {
      text += '\n';
    }
    const base = text.length;
    text += g.text.slice(skip);
    // The page at the part's first kept character, then the part's own breaks after it.
    const at = pageAtOffset(g, skip);
    if (page !== null && (at.page !== page.page || at.pdf_page !== page.pdf_page) && at.pdf_page !== null) {
      breaks.push({ offset: base, page: at.page, pdf_page: at.pdf_page });
    }
    for (const b of g.page_breaks ?? []) if (b.offset > skip) breaks.push({ ...b, offset: base + b.offset - skip });
    page = pageAtOffset(g, g.text.length);
    end = Math.max(end, g.char_end);
  }
  const first = group[0]!;
  const last = group.reduce((x, y) => (y.char_end > x.char_end ? y : x));
  return {
    ...center,
    text,
    char_start: Math.min(...group.map((g) => g.char_start)),
    char_end: Math.max(...group.map((g) => g.char_end)),
    page_start: first.page_start || center.page_start,
    page_end: last.page_end || center.page_end,
    pdf_page_start: first.pdf_page_start ?? center.pdf_page_start,
    pdf_page_end: last.pdf_page_end ?? center.pdf_page_end,
    page_breaks: breaks,
    articles: [...new Set(group.flatMap((g) => g.articles))],
  };
}

/**
 * The first hits of a ranking worth k hits, never more than `maxHits`: a chunk of article text shorter than
 * `unitChars` counts as its share (length / unitChars) of a hit, every other hit as one. A ranking of one-article
 * units thus gives the answerer about as much text as k windows, while windows (textbooks) are cut at k as before.
 */
export function takeEvidence<T extends Hit>(hits: readonly T[], k: number, unitChars: number, maxHits: number): T[] {
  const out: T[] = [];
  let worth = 0;
  for (const hit of hits) {
    if (worth >= k - 1e-9 || out.length >= Math.max(k, maxHits)) break;
    out.push(hit);
    const c = hit.chunk;
    worth += unitChars > 0 && c.articles.length > 0 ? Math.min(1, c.text.length / unitChars) : 1;
  }
  return out;
}

/** The least step between the score of a promoted hit and the one below it: run files print six decimals. */
export const PROMOTION_STEP = 1e-6;

/**
 * A rule that puts some hits first (a quoted passage, a named figure) keeps the order it chose and the scores
 * falling with rank: each promoted hit scores at least a step above the one after it. Run files are read by score
 * (trec_eval orders a query's lines by score, not by the rank column), and a score that rises down a list reads as
 * a bug. The hits that were not promoted keep their scores.
 */
export function promoteHits(first: readonly Hit[], rest: readonly Hit[]): Hit[] {
  let floor = rest.reduce((m, h) => Math.max(m, h.score), Number.NEGATIVE_INFINITY);
  const lifted: Hit[] = [];
  for (let i = first.length - 1; i >= 0; i--) {
    const hit = first[i]!;
    const score = Number.isFinite(floor) ? Math.max(hit.score, floor + PROMOTION_STEP) : hit.score;
    lifted.push(score === hit.score ? hit : { chunk: hit.chunk, score });
    floor = Math.max(floor, score);
  }
  return [...lifted.reverse(), ...rest];
}

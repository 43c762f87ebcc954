import type { Chunk, Hit } from '../types.js';

/** Chunks whose character offsets refer to one shared body text (PDF/Markdown sources); CSV rows each have their own offsets. */
function sharesOffsets(chunk: Chunk): boolean {
  return chunk.chunk_type !== 'manual_table_rewrite';
}

/**
 * Share of `later`'s character range that `earlier` already covers (0 for other sources or table rows).
 * Sliding-window neighbours share only the configured overlap (80–120 of 300–800 characters).
 */
function coveredShare(earlier: Chunk, later: Chunk): number {
  if (earlier.source !== later.source || !sharesOffsets(earlier) || !sharesOffsets(later)) return 0;
  const shared = Math.min(earlier.char_end, later.char_end) - Math.max(earlier.char_start, later.char_start);
  const length = later.char_end - later.char_start;
  return shared <= 0 || length <= 0 ? 0 : shared / length;
}

function sameText(a: Chunk, b: Chunk): boolean {
  return a.text.replace(/\s+/g, '') === b.text.replace(/\s+/g, '');
}

/** A lower-ranked hit is a repeat when at least this share of its text is already in a higher-ranked hit. */
export const REPEAT_SHARE = 0.5;

/**
 * Drops hits that repeat evidence already ranked higher: the same chunk, identical text, or a chunk of the
 * same source at least half covered by a higher-ranked one (a neighbour expanded over it). A sliding-window
 * neighbour that merely shares the chunking overlap is kept: it holds mostly new text, and the sentence the
 * question needs is often the one cut at the boundary, whole only in the lower-ranked neighbour.
 * The best-ranked one is kept, so the input order decides.
 */
export function dedupeHits(hits: readonly Hit[]): Hit[] {
  const kept: Hit[] = [];
  for (const hit of hits) {
    const c = hit.chunk;
    if (kept.some((k) => k.chunk.chunk_id === c.chunk_id || coveredShare(k.chunk, c) >= REPEAT_SHARE || sameText(k.chunk, c))) continue;
    kept.push(hit);
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
    const group = list.filter((o) => o.section === c.section && o.chapter === c.chapter && o.book === c.book && Math.abs(o.seq - c.seq) <= n && o.chunk_type === c.chunk_type);
    if (group.length <= 1) return hit;
    return { chunk: mergeChunks(c, group), score: hit.score };
  });
}

/** Joins chunks in seq order, skipping the characters a chunk shares with the previous one when offsets allow. */
function mergeChunks(center: Chunk, group: readonly Chunk[]): Chunk {
  let text = '';
  let end = -1;
  for (const g of group) {
    const consistent = g.char_end - g.char_start === g.text.length;
    if (end >= 0 && consistent && g.char_start <= end) {
      text += g.text.slice(Math.min(end - g.char_start, g.text.length));
    } else {
      text += (text ? '\n' : '') + g.text;
    }
    end = Math.max(end, g.char_end);
  }
  const first = group[0]!;
  const last = group[group.length - 1]!;
  return {
    ...center,
    text,
    char_start: Math.min(...group.map((g) => g.char_start)),
    char_end: Math.max(...group.map((g) => g.char_end)),
    page_start: first.page_start || center.page_start,
    page_end: last.page_end || center.page_end,
    pdf_page_start: first.pdf_page_start ?? center.pdf_page_start,
    pdf_page_end: last.pdf_page_end ?? center.pdf_page_end,
  };
}

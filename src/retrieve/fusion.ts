import type { Chunk, Hit } from '../types.js';

/** One ranked list to fuse, with its weight. */
export interface FusionRun {
  name: string;
  hits: readonly Hit[];
  weight: number;
}

/**
 * What a hit at 1-based `rank` of a run weighing `weight` adds to a fused score under reciprocal rank fusion:
 * weight / (k + rank). The hybrid's phrase re-scoring and budget-ordered tail start from the same prior. One division,
 * not weight × 1 / (k + rank): integer weights then give exactly equal sums where ranks balance (3/4 + 1/10 and
 * 3/5 + 1/4), and such ties keep the order of first appearance.
 */
export function rankPrior(rank: number, k: number, weight = 1): number {
  return weight / (k + rank);
}

/**
 * Scores for hits placed after rank `after` of a ranking whose score there is `last`, so the scores a user (or
 * trec_eval, which orders a run file's lines by score) reads keep falling after a head was re-scored or a tail
 * re-ordered. The first scores last × (k + after) / (k + after + 1), what the next rank would under the prior, and
 * the others keep their value's ratio to the first's. `tail`: in the order placed, each with its worth on a scale of
 * its own (a fused score, a value per character), falling and positive.
 */
export function continueScores(last: number, after: number, k: number, tail: readonly { chunk: Chunk; value: number }[]): Hit[] {
  const first = (last * rankPrior(after + 1, k)) / rankPrior(after, k);
  const top = tail[0]?.value ?? 0;
  return tail.map((t) => ({ chunk: t.chunk, score: top > 0 ? (first * t.value) / top : first }));
}

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and
 * individual Rank Learning Methods", SIGIR 2009): score(d) = Σ_i w_i / (k + rank_i(d)), ranks 1-based,
 * summed over the runs that retrieved d. It uses ranks only, so BM25 and cosine scales never need
 * calibrating against each other; k (60 in the paper) damps the influence of the very top ranks.
 * Ties keep the order of first appearance (earlier run, then better rank) so the output is deterministic.
 */
export function reciprocalRankFusion(runs: readonly FusionRun[], options: { k?: number } = {}): Hit[] {
  const k = options.k ?? 60;
  const fused = new Map<string, { hit: Hit; score: number; order: number }>();
  let order = 0;
  for (const run of runs) {
    if (run.weight <= 0) continue;
    const seen = new Set<string>();
    run.hits.forEach((hit, i) => {
      const id = hit.chunk.chunk_id;
      // A run that lists a chunk twice counts it once, at its best rank.
      if (seen.has(id)) return;
      seen.add(id);
      const add = rankPrior(i + 1, k, run.weight);
      const entry = fused.get(id);
      if (entry) entry.score += add;
      else fused.set(id, { hit, score: add, order: order++ });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.order - b.order).map((e) => ({ chunk: e.hit.chunk, score: e.score }));
}

import type { Hit } from '../types.js';
import { continueScores, rankPrior } from './fusion.js';

/**
 * Past its head, a ranking is read for its evidence within a budget of characters (an LLM's context; `takeEvidence`
 * counting small units by their size; R@4k). There, a hit's worth is its chance of holding the answer against the
 * characters it spends: two units of 100 characters cost what one of 200 does. The head stays in relevance order,
 * and the tail is ordered as a greedy knapsack orders items, by value per cost: the rank prior 1 / (rrfK + rank)
 * per character of text. Nothing is fitted: the prior is the fusion's own, and the cost is the length.
 */

/**
 * The hits past `head` re-ordered by 1 / (rrfK + rank) / characters (ties keep the ranking's order); the first `head`
 * hits are returned as they are. The tail's scores continue the head's (`continueScores`, by value per character),
 * so the scores a user reads keep descending down the list.
 */
export function orderTailByBudget(hits: readonly Hit[], head: number, rrfK: number): Hit[] {
  if (head < 1 || hits.length <= head + 1) return [...hits];
  const tail = hits.slice(head).map((hit, i) => ({ hit, i, value: rankPrior(head + i + 1, rrfK) / Math.max(1, hit.chunk.text.length) }));
  tail.sort((x, y) => y.value - x.value || x.i - y.i);
  const scored = continueScores(
    hits[head - 1]!.score,
    head,
    rrfK,
    tail.map((t) => ({ chunk: t.hit.chunk, value: t.value })),
  );
  return [...hits.slice(0, head), ...scored];
}

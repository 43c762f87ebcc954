import { holds, type ClaimPart } from './claim-reading.js';

/** Two words of a claim that its book writes the other way round, and the reason shown for it. */
export interface SwappedParts {
  /** The words exchanged: the first part's, then the second's. */
  words: [string, string];
  reason: string;
}

/**
 * Two parts of a claim whose own words the clauses of one sentence hold the other way round: the book writes each part
 * with the other's word (由基金托管人计算，由基金管理人复核 against 基金份额净值由基金管理人负责计算，由基金托管人进行复核).
 * A word `a` of one part and `b` of the other are exchanged when one clause holds the first part's other words with `b`
 * and without `a`, and another clause holds the second part's other words with `a` and without `b`; each part must keep
 * a word of its own, so that the clauses are about what it says. Either exchange (the parties or the acts) reads the
 * same; the first found is reported.
 */
export function swappedParts(clauses: readonly string[], parts: readonly ClaimPart[]): SwappedParts | null {
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const p = parts[i] as ClaimPart;
      const q = parts[j] as ClaimPart;
      for (const a of p.words.filter((w) => !q.words.includes(w))) {
        for (const b of q.words.filter((w) => !p.words.includes(w))) {
          const pRest = p.words.filter((w) => w !== a);
          const qRest = q.words.filter((w) => w !== b);
          if (pRest.length === 0 || qRest.length === 0) continue;
          const pClause = clauses.findIndex((c) => pRest.every((w) => holds(c, w)) && holds(c, b) && !holds(c, a));
          const qClause = clauses.findIndex((c) => qRest.every((w) => holds(c, w)) && holds(c, a) && !holds(c, b));
          if (pClause >= 0 && qClause >= 0 && pClause !== qClause) return { words: [a, b], reason: `二者互换：${a} ↔ ${b}` };
        }
      }
    }
  }
  return null;
}

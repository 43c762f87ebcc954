import {
  characterIdf,
  DEFAULT_CHARACTER_RESCORE,
  hanCharacters,
  okapiBm25,
  type CharacterStatistics,
  type WeightedTerm,
} from '../indexing/character-rescorer.js';
import type { Hit } from '../types.js';
import { continueScores, rankPrior } from './fusion.js';

/**
 * Phrase evidence for a fused ranking. Both runs the hybrid fuses see a question as a bag: of jieba words (and, in
 * the keyword run's re-scoring, of single characters), or of LSA features. Two passages holding the same words rank
 * alike whether or not the words stand together as the question writes them. The characters that stand side by side
 * in the question (its Han bigrams, the classic unit of Chinese retrieval: Kwok, "Comparing representations in
 * Chinese information retrieval", SIGIR 1997) tell them apart: 抛掷物品 and 建筑物 against 抛 … 物 … 品 scattered.
 * So the head of the fused ranking is fused once more, by rank, with their phrase score.
 */

/** How a fused ranking is re-scored by the question's adjacent characters. */
export interface PhraseRescoreOptions {
  /** Fused hits re-scored at most (ranks 1..depth); the rest keep their order after them. */
  depth: number;
  /**
   * Characters of text the head spans: it ends with the hit that reaches this many (counted from rank 1), or at
   * `depth`, whichever comes first. Absent: `depth` hits, whatever their size.
   */
  characters?: number;
  /** The phrase score's weight, as a share of a rank-1 fused hit's (0 turns the re-scoring off). */
  weight: number;
  /** The rank constant of the prior, as RRF's k: a hit at fused rank r starts from 1 / (rrfK + r). */
  rrfK: number;
}

const HAN_RUN = /\p{Script=Han}{2,}/gu;

/** The distinct Han bigrams of a text (NFKC first, as the character statistics were counted). */
export function hanBigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const run of text.normalize('NFKC').match(HAN_RUN) ?? []) {
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  }
  return out;
}

/**
 * The head (the first `options.depth` hits, cut at `options.characters` of text) re-ranked by 1 / (rrfK + rank) +
 * weight × (phrase / best phrase) / (rrfK + 1), where a hit's phrase score is an Okapi BM25 of the question's distinct
 * Han bigrams over its text: each bigram weighs the mean inverse document frequency of its two characters (FTS5's
 * idf, floored as the character re-scoring floors it: bigram frequencies are not stored, and a bigram of common
 * characters is a common phrase), its occurrences saturate and the text's Han characters against the corpus mean
 * normalise its length, with the character re-scoring's k1 and b (a long window holds more of a question's bigrams
 * by chance than an article does). Ties keep the fused order. The hits after the head keep their order, their scores
 * scaled to continue the head's (`continueScores`), so scores keep falling down the ranking (`applyExamPriority`
 * orders by score). Returns the input when the question has no Han bigram or no hit holds one.
 */
export function rescoreByPhrases(query: string, hits: readonly Hit[], stats: CharacterStatistics, options: PhraseRescoreOptions): Hit[] {
  const depth = headSize(hits, options);
  if (options.weight <= 0 || depth <= 1 || hits.length < 2) return [...hits];
  // Each character's frequency is looked up through the index's own cache (fts-index.ts).
  const weighted: WeightedTerm<string>[] = [...hanBigrams(query)]
    .map((bigram) => {
      const [a, b] = [...bigram] as [string, string];
      return { key: bigram, weight: (characterIdf(stats, a) + characterIdf(stats, b)) / 2 };
    })
    .filter((w) => w.weight > 0);
  if (weighted.length === 0) return [...hits];
  const head = hits.slice(0, depth);
  const phrase = head.map((hit) => {
    // Line breaks and spaces of extracted text may fall inside a phrase.
    const text = hit.chunk.text.normalize('NFKC').replace(/\s+/g, '');
    const occurrences = (bigram: string): number => {
      let f = 0;
      for (let at = text.indexOf(bigram); at >= 0; at = text.indexOf(bigram, at + 1)) f++;
      return f;
    };
    return okapiBm25(weighted, occurrences, hanCharacters(text).length, stats.averageLength, DEFAULT_CHARACTER_RESCORE);
  });
  const best = Math.max(...phrase);
  if (best <= 0) return [...hits];
  const scored = head.map((hit, i) => ({
    hit,
    i,
    score: rankPrior(i + 1, options.rrfK) + rankPrior(1, options.rrfK, options.weight * (phrase[i]! / best)),
  }));
  scored.sort((x, y) => y.score - x.score || x.i - y.i);
  const rest = hits.slice(depth).map((hit) => ({ chunk: hit.chunk, value: hit.score }));
  return [
    ...scored.map((s) => ({ chunk: s.hit.chunk, score: s.score })),
    ...continueScores(scored[scored.length - 1]!.score, depth, options.rrfK, rest),
  ];
}

/** The head's length: hits up to `depth`, ending with the one whose text reaches `characters` (counted from rank 1). */
function headSize(hits: readonly Hit[], options: Pick<PhraseRescoreOptions, 'depth' | 'characters'>): number {
  const most = Math.min(options.depth, hits.length);
  if (options.characters === undefined) return most;
  let spanned = 0;
  let n = 0;
  while (n < most && spanned < options.characters) spanned += hits[n++]!.chunk.text.length;
  return n;
}

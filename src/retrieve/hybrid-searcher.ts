import type { CharacterStatistics } from '../indexing/character-rescorer.js';
import type { ChunkFilter, Hit, Searcher } from '../types.js';
import { orderTailByBudget } from './budget-tail.js';
import { reciprocalRankFusion } from './fusion.js';
import { rescoreByPhrases } from './phrase-rescorer.js';

/**
 * Ranks of the fused ranking kept in relevance order: re-scored by phrases (`phrase-rescorer.ts`), while the ranks
 * after them are ordered for a character budget (`budget-tail.ts`). Measured on 344 lay legal questions over 1,261
 * article units (STARD dev, `node scripts/bench/stard.mjs`), phrase weight 0.5 (`retrieval.phraseWeight`):
 * - phrases over the first 20 lift the hybrid's R@1 from .436 to .439, R@10 from .735 to .747 and MRR@10 from .527 to
 *   .531; over the first 50 they lowered R@4k (the evidence an answer reads reaches about 40 units deep, and
 *   re-ordering that far moved other evidence out of it); weights of 1 and more lowered R@1. Counting a bigram's
 *   presence, without BM25's saturation and length normalisation, scored the same on the articles and lower on the
 *   windows and on the whole law library;
 * - the head re-scored is also cut at `PHRASE_HEAD_CHARACTERS` of text, within the 4,000 an answer reads, so its depth
 *   follows the units' size: 20 articles average 1,700 characters, 20 of the same book's 195 windows
 *   (`chunking.articleUnits: false`) 12,000, and phrases that deep lifted long windows with scattered matches into the
 *   top 10. Over the windows, hybrid R@10 is .890 without phrases, .878 with 20 re-scored, and .890 with the cut at
 *   3,000 (MRR@10 .759; R@10 the same from 1,000 on, both halves of the set gaining; at 4,000 R@4k fell below the
 *   vector run's). The articles are unchanged; on the sample's 300–800-character chunks a cut at 2,000 moved the
 *   offline answerer's confidences (ECE .106 → .116), at 3,000 not;
 * - the budget-ordered tail past 20 lifts R@4k from .878 to .887 (both halves of the set gain), R@1/5/10 unchanged by
 *   construction; past 10 it measured the same.
 */
export const RELEVANCE_HEAD = 20;
/** Characters of ranked text the phrase re-scoring reaches at most (see `RELEVANCE_HEAD`). */
export const PHRASE_HEAD_CHARACTERS = 3_000;

export interface HybridOptions {
  /** RRF constant (60 in Cormack et al. for deep TREC runs; 2 by default here, fitted on lay questions: two short candidate lists). */
  rrfK: number;
  weights: { keyword: number; vector: number };
  /** Vector candidates taken before fusion (at least k). */
  depth: number;
  /**
   * Keyword candidates fused: BM25's top ranks are precise, but past them a hit often matches one rare query word
   * and nothing else, while embedding similarity degrades gradually; so the keyword run adds its top ranks and
   * the vector run fills the depth (measured on lay questions: evidence within the first 4,000 characters).
   */
  keywordDepth: number;
  /**
   * The fused ranking's first `depth` hits, cut at `characters` of text, re-scored by the question's adjacent
   * characters (`phrase-rescorer.ts`), with the index's character statistics; absent (an index without them) or
   * weight 0: the fused order stands.
   */
  phrases?: { stats: CharacterStatistics; depth: number; characters?: number; weight: number };
  /**
   * Ranks after which the fused ranking is ordered by its rank prior per character (`budget-tail.ts`): the evidence
   * read within a character budget; absent: the fused order throughout.
   */
  budgetHead?: number;
  /**
   * The vector searcher posts its queries to a thread (`ThreadedVectors`): its searches are started first and the
   * keyword ranking, here, runs once they have posted, so the two overlap. Absent: the keyword search is started
   * first (a threaded keyword ranking posts before returning, and the vector scan then runs here).
   */
  vectorsOnThread?: boolean;
}

/**
 * Lets a search that was just started run up to its first wait for another thread: an embedding is a few microtasks,
 * and the post that follows happens before the next turn of the event loop.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Keyword and vector candidates fused by weighted reciprocal rank fusion (pyserini's HybridSearcher shape), the head
 * of the fused ranking then re-scored by phrases, and its tail ordered for a character budget.
 */
export class HybridSearcher implements Searcher {
  readonly name = 'hybrid';
  constructor(
    private readonly keyword: Searcher,
    private readonly vector: Searcher,
    private readonly options: HybridOptions,
  ) {}

  async search(query: string, k: number, filter?: ChunkFilter): Promise<Hit[]> {
    const depth = Math.max(k, this.options.depth);
    const [kw, vec] = await this.both(
      () => this.keyword.search(query, Math.min(depth, this.options.keywordDepth), filter),
      () => this.vector.search(query, depth, filter),
    );
    return this.fuse(query, kw, vec, k);
  }

  /**
   * `search` for each query: every keyword query is started first (posted to the thread, or ranked here), then the
   * vector searches run together (`Searcher.searchMany`: one pass over a flat FAISS index), then each is fused.
   */
  async searchMany(queries: readonly string[], k: number, filter?: ChunkFilter): Promise<Hit[][]> {
    const depth = Math.max(k, this.options.depth);
    const keywords = (): Promise<Hit[][]> =>
      Promise.all(queries.map((q) => this.keyword.search(q, Math.min(depth, this.options.keywordDepth), filter)));
    const vectors = (): Promise<Hit[][]> =>
      this.vector.searchMany
        ? this.vector.searchMany(queries, depth, filter)
        : Promise.all(queries.map((q) => this.vector.search(q, depth, filter)));
    const [kw, vec] = await this.both(keywords, vectors);
    return queries.map((q, i) => this.fuse(q, kw[i]!, vec[i]!, k));
  }

  /**
   * The keyword and the vector searches, started in the order that lets them overlap: the keyword search first (a
   * threaded keyword ranking, on large indexes without the postings file, posts its query before returning, and the
   * vector scan then runs here), or, with `vectorsOnThread`, the vector search first, the keyword ranking here once
   * the vector queries are posted.
   */
  private async both<T>(keyword: () => Promise<T>, vector: () => Promise<T>): Promise<[T, T]> {
    if (!this.options.vectorsOnThread) return Promise.all([keyword(), vector()]);
    const vectors = vector();
    // Awaited below; a rejection meanwhile is not an unhandled one.
    vectors.catch(() => undefined);
    await nextTurn();
    const keywords = await keyword();
    return [keywords, await vectors];
  }

  private fuse(query: string, kw: Hit[], vec: Hit[], k: number): Hit[] {
    const fused = reciprocalRankFusion(
      [
        { name: this.keyword.name, hits: kw, weight: this.options.weights.keyword },
        { name: this.vector.name, hits: vec, weight: this.options.weights.vector },
      ],
      { k: this.options.rrfK },
    );
    const { phrases, budgetHead, rrfK } = this.options;
    const headed = phrases ? rescoreByPhrases(query, fused, phrases.stats, { ...phrases, rrfK }) : fused;
    return (budgetHead === undefined ? headed : orderTailByBudget(headed, budgetHead, rrfK)).slice(0, k);
  }
}

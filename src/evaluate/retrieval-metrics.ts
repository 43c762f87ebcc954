/**
 * Judged retrieval metrics for batch search: the answer-string judgment of open-domain QA (a retrieved text
 * is relevant when its normalised form contains a gold string; Karpukhin et al., "Dense Passage Retrieval",
 * EMNLP 2020, top-k accuracy), Recall@k, MRR@10, nDCG@10 and recall at an equal evidence budget.
 */
import { CJK_RADICALS_SUPPLEMENT } from '../text/normalize-text.js';

/**
 * The judge's normal form: NFKC (which also folds the Kangxi radicals U+2F00–U+2FDF), CJK Radicals Supplement
 * characters mapped to their standard ideograph with the index's own table (NFKC leaves them alone, and PDF text
 * extraction yields them for ordinary characters: ⺠ for 民), then every character that is not a letter or a digit removed.
 */
export function normalizeForJudge(text: string): string {
  return text
    .replace(/[\u2E80-\u2EFF]/g, (ch) => CJK_RADICALS_SUPPLEMENT[ch] ?? ch)
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/** Characters of ranked evidence the budget metric reads (R@4k): equal text for every run, whatever its unit size. */
export const EVIDENCE_BUDGET_CHARS = 4000;

/** The judgment of one query's ranking. */
export interface JudgedQuery {
  /** 1-based rank of the first relevant text, or null when none of the ranked texts is relevant. */
  firstRelevant: number | null;
  /** Relevance per rank: the gold strings (indexes) first found at that rank. */
  newGold: number[][];
  /** Whether the first `EVIDENCE_BUDGET_CHARS` characters of the ranked texts, concatenated, hold a gold string. */
  budgetHit: boolean;
  /** Number of distinct gold strings. */
  goldCount: number;
}

/**
 * Judges ranked texts against gold strings (already in the judge's normal form, as the dataset gives them;
 * they are normalised again so hand-made files with punctuation work too).
 */
export function judgeRanking(rankedTexts: readonly string[], gold: readonly string[], budgetChars = EVIDENCE_BUDGET_CHARS): JudgedQuery {
  const golds = [...new Set(gold.map(normalizeForJudge).filter((g) => g !== ''))];
  const found = new Set<number>();
  const newGold: number[][] = [];
  let firstRelevant: number | null = null;
  rankedTexts.forEach((text, i) => {
    const n = normalizeForJudge(text);
    const here = golds.flatMap((g, gi) => (n.includes(g) ? [gi] : []));
    if (here.length > 0 && firstRelevant === null) firstRelevant = i + 1;
    newGold.push(here.filter((gi) => !found.has(gi)));
    for (const gi of here) found.add(gi);
  });
  let budget = '';
  for (const text of rankedTexts) {
    if (budget.length >= budgetChars) break;
    budget += text;
  }
  const inBudget = normalizeForJudge(budget.slice(0, budgetChars));
  return { firstRelevant, newGold, budgetHit: golds.some((g) => inBudget.includes(g)), goldCount: golds.length };
}

/** Recall@k, MRR@10, nDCG@10 and R@4k over judged queries (each in [0, 1]). */
export interface RetrievalScores {
  queries: number;
  recall: { '1': number; '5': number; '10': number };
  mrr10: number;
  ndcg10: number;
  /** Share of queries whose first `EVIDENCE_BUDGET_CHARS` characters of ranked text hold a gold string. */
  recallBudget: number;
}

/**
 * nDCG@10 with binary gains where a rank earns gain 1 only when it holds a gold string no higher rank held
 * (so two overlapping chunks with the same article count once), against the ideal of one new gold string
 * per rank for min(10, gold strings) ranks. Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR
 * techniques", TOIS 2002, with the log2(rank + 1) discount.
 */
export function ndcgAt10(judged: JudgedQuery): number {
  let dcg = 0;
  judged.newGold.slice(0, 10).forEach((g, i) => {
    if (g.length > 0) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(10, judged.goldCount); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** Averages the per-query judgments. Recall@k here is top-k accuracy: at least one relevant text in the first k. */
export function retrievalScores(judged: readonly JudgedQuery[]): RetrievalScores {
  const n = judged.length;
  const mean = (f: (j: JudgedQuery) => number): number => (n === 0 ? 0 : judged.reduce((s, j) => s + f(j), 0) / n);
  const within =
    (k: number) =>
    (j: JudgedQuery): number =>
      j.firstRelevant !== null && j.firstRelevant <= k ? 1 : 0;
  return {
    queries: n,
    recall: { '1': mean(within(1)), '5': mean(within(5)), '10': mean(within(10)) },
    mrr10: mean((j) => (j.firstRelevant !== null && j.firstRelevant <= 10 ? 1 / j.firstRelevant : 0)),
    ndcg10: mean(ndcgAt10),
    recallBudget: mean((j) => (j.budgetHit ? 1 : 0)),
  };
}

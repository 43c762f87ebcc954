import type { Analyzer } from '../text/analyzer.js';

/**
 * Most distinct query terms sent to FTS5. Exam stems have a few dozen content words; a pasted page
 * would otherwise become thousands of OR branches for no gain in ranking.
 */
export const MAX_QUERY_TERMS = 96;

/** Document-frequency pruning for `buildFtsQuery` (see `DEFAULT_TERM_SELECTION` in fts-index.ts). */
export interface TermPruning {
  /** Chunks holding the term (0 when unknown). */
  docFrequency(term: string): number;
  /** Chunks in the index. */
  documents: number;
  maxDocShare: number;
  maxTerms: number;
  /** Repeat a term as often as the question does (query term frequency), up to this many times; 1 = distinct terms. */
  maxRepeat?: number;
}

/**
 * Turns free text into a safe FTS5 MATCH expression: the analyzer's tokens, each written as an FTS5
 * string (double-quoted, inner quotes doubled) and joined with OR. Because every token is a quoted
 * string, FTS5 operators in the question (AND, OR, NOT, NEAR, `*`, `^`, `-`, `:`, parentheses) are
 * plain text and can never raise a syntax error. Returns null when nothing searchable is left
 * (a question of only punctuation), so callers return no hits instead of querying.
 *
 * With `pruning`, terms are weighed by IDF rather than by count: terms no chunk holds are dropped (they add
 * nothing but a lookup), terms in more than `maxDocShare` of the chunks are dropped unless nothing else is
 * left (their BM25 IDF is about zero while their postings are the longest), and the `maxTerms` rarest are kept.
 */
export function buildFtsQuery(analyzer: Analyzer, text: string, pruning?: TermPruning): string | null {
  return matchExpression(selectQueryTerms(analyzer, text, pruning));
}

/** A query term as sent to FTS5: the analyzer token, its document frequency (0 without pruning) and its repeats. */
export interface QueryTerm {
  term: string;
  df: number;
  /** How many times the phrase is written in the MATCH expression (query term frequency). */
  repeat: number;
}

/** The terms of `buildFtsQuery`, in query order; empty when nothing searchable is left. */
export function selectQueryTerms(analyzer: Analyzer, text: string, pruning?: TermPruning): QueryTerm[] {
  const terms: string[] = [];
  const counts = new Map<string, number>();
  for (const token of analyzer.tokens(text)) {
    // unicode61 would drop a token made only of separators anyway; an empty phrase `""` matches nothing useful.
    if (!/[\p{L}\p{N}]/u.test(token)) continue;
    const n = counts.get(token) ?? 0;
    counts.set(token, n + 1);
    if (n > 0) continue;
    terms.push(token);
    if (!pruning && terms.length >= MAX_QUERY_TERMS) break;
  }
  if (!pruning) return terms.map((term) => ({ term, df: 0, repeat: 1 }));
  if (terms.length === 0) return [];
  const withDf = terms.map((t, i) => ({ t, i, df: pruning.docFrequency(t) })).filter((x) => x.df > 0);
  if (withDf.length === 0) return [];
  const limit = pruning.maxDocShare * pruning.documents;
  const rare = withDf.filter((x) => x.df <= limit);
  // A question made only of very common words still searches, with its rarest words.
  const kept = (rare.length > 0 ? rare : withDf).sort((a, b) => a.df - b.df || a.i - b.i).slice(0, pruning.maxTerms);
  // FTS5's bm25() sums over the phrases of the query, so a phrase written twice counts twice: query term frequency.
  const repeat = Math.max(1, pruning.maxRepeat ?? 1);
  return kept.sort((a, b) => a.i - b.i).map((x) => ({ term: x.t, df: x.df, repeat: Math.min(repeat, counts.get(x.t) ?? 1) }));
}

/** The FTS5 MATCH expression for terms: each a quoted string (inner quotes doubled), repeats written out, joined with OR. */
export function matchExpression(terms: readonly QueryTerm[]): string | null {
  const phrases = terms.flatMap((t) => Array.from({ length: t.repeat }, () => `"${t.term.replace(/"/g, '""')}"`));
  return phrases.length === 0 ? null : phrases.join(' OR ');
}

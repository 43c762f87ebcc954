import type { Analyzer } from '../text/analyzer.js';

/**
 * Most distinct query terms sent to FTS5. Exam stems have a few dozen content words; a pasted page
 * would otherwise become thousands of OR branches for no gain in ranking.
 */
export const MAX_QUERY_TERMS = 96;

/**
 * Turns free text into a safe FTS5 MATCH expression: the analyzer's tokens, each written as an FTS5
 * string (double-quoted, inner quotes doubled) and joined with OR. Because every token is a quoted
 * string, FTS5 operators in the question (AND, OR, NOT, NEAR, `*`, `^`, `-`, `:`, parentheses) are
 * plain text and can never raise a syntax error. Returns null when nothing searchable is left
 * (a question of only punctuation), so callers return no hits instead of querying.
 */
export function buildFtsQuery(analyzer: Analyzer, text: string): string | null {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const token of analyzer.tokens(text)) {
    // unicode61 would drop a token made only of separators anyway; an empty phrase `""` matches nothing useful.
    if (!/[\p{L}\p{N}]/u.test(token) || seen.has(token)) continue;
    seen.add(token);
    terms.push(`"${token.replace(/"/g, '""')}"`);
    if (terms.length >= MAX_QUERY_TERMS) break;
  }
  return terms.length === 0 ? null : terms.join(' OR ');
}

/** The text stored in an FTS5 column: the analyzer's tokens joined by spaces, so unicode61 splits exactly there. */
export function segmentForIndex(analyzer: Analyzer, text: string): string {
  return analyzer.tokens(text).join(' ');
}

import type { SqliteDatabase } from '../sqlite-database.js';
import type { QueryTerm } from './fts-query.js';

/**
 * Two-stage keyword search for large indexes. FTS5 scores every row that holds any query phrase, and before that
 * counts each phrase's rows for its idf, so an OR over common words (基金, 规定: thousands of rows each) costs
 * hundreds of milliseconds at 100k chunks. Here FTS5 ranks with the rare phrases only and keeps the best candidates;
 * the common terms' share of BM25 is then added for those candidates alone, from their stored text, with FTS5's own
 * formula and statistics. bm25() is a sum over phrases, so a candidate's score is the one the whole query would give
 * it. What can change is which rows are candidates: a row holding none of the rare terms, or ranked below the
 * candidate cut by them, is not considered.
 */

/** When and how the keyword search splits a query. */
export interface TwoStageOptions {
  /** Split only when the common terms' rows add up to more than this (below it one FTS5 query is cheap and exact). */
  minCommonPostings: number;
  /** A term in at most this share of the chunks goes to the first stage. */
  rareShare: number;
  /** The first stage keeps at least this many of the rarest terms. */
  minRareTerms: number;
  /** Candidates the first stage keeps (at least k). */
  candidates: number;
  /** The first stage fetches this many times `candidates` ranked rows, to choose diverse candidates among them. */
  fetchFactor: number;
}

/**
 * Measured on a library of 66,634 article units with 344 lay questions: splitting from 10,000 common rows, with 200
 * candidates chosen among 3 × 200 ranked rows, halves the p95 of the single query and of the earlier 40,000 / 300 × 10
 * setting, with the same R@1, R@10 and R@4k.
 */
export const DEFAULT_TWO_STAGE: TwoStageOptions = {
  minCommonPostings: 10_000,
  rareShare: 0.02,
  minRareTerms: 6,
  candidates: 200,
  fetchFactor: 3,
};

/**
 * The first `limit` rows of a ranked list, keeping at most `perScore` rows of any one score. Rows that tie exactly on
 * the rare terms are nearly always copies of one passage (the same article in several books or editions); without
 * the cap a passage copied hundreds of times fills every candidate slot and hides the passage that the common terms
 * would have put first. `perScore` is k, so a top k made of copies is still possible.
 */
export function diverseCandidates<T extends { score: number }>(ranked: readonly T[], perScore: number, limit: number): T[] {
  const out: T[] = [];
  const seen = new Map<number, number>();
  for (const r of ranked) {
    const n = seen.get(r.score) ?? 0;
    if (n >= perScore) continue;
    seen.set(r.score, n + 1);
    out.push(r);
    if (out.length >= limit) break;
  }
  return out;
}

/** The query split into FTS5's part and the part scored on the candidates, or null to run it as one query. */
export function splitQueryTerms(
  terms: readonly QueryTerm[],
  documents: number,
  options: TwoStageOptions,
): { rare: QueryTerm[]; common: QueryTerm[] } | null {
  const byDf = [...terms].sort((a, b) => a.df - b.df);
  const rare = new Set<QueryTerm>();
  for (const t of byDf) if (rare.size < options.minRareTerms || t.df <= options.rareShare * documents) rare.add(t);
  // A term unicode61 cuts into several tokens is a phrase, whose row count is not in the vocabulary: FTS5 scores it.
  for (const t of terms) if (unicodeTokens(t.term).length !== 1) rare.add(t);
  const common = terms.filter((t) => !rare.has(t));
  const postings = common.reduce((n, t) => n + t.df, 0);
  if (common.length === 0 || postings <= options.minCommonPostings) return null;
  return { rare: terms.filter((t) => rare.has(t)), common };
}

/** Lowercase ASCII letters and digits, CJK Extension A and the CJK Unified Ideographs: all letters or digits to unicode61. */
const ONE_WORD = /^[a-z0-9\u3400-\u4dbf\u4e00-\u9fff]+$/;

/**
 * unicode61 tokens of a text (remove_diacritics 2, case folded): runs of letters, digits and private-use characters.
 * The index stores analyzer tokens joined by spaces, so this splits only the rare token that holds a separator
 * (`0.05` → 0, 05).
 */
export function unicodeTokens(text: string): string[] {
  // Most tokens are one word of lowercase ASCII, digits or CJK ideographs (every one a letter), which is its own single
  // token; saying so skips compiling the Unicode-property patterns below, 2–3 ms at a one-shot ask's first query.
  if (ONE_WORD.test(text)) return [text];
  const folded = /[^\p{ASCII}\u3000-\u9fff]/u.test(text) ? text.normalize('NFD').replace(/\p{M}/gu, '') : text;
  return folded
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{Co}]+/u)
    .filter(Boolean);
}

/** A token unicode61 keeps whole and unchanged (the analyzer's CJK words, lowercase ASCII and digits). */
export const PLAIN_TOKEN = /^[a-z0-9\u3400-\u9fff]+$/u;
/**
 * The space-separated tokens that are not plain. A match can only start where a token does (a leftmost match takes
 * the token from its start); saying so keeps the engine from retrying every position inside a plain token.
 */
const OTHER_TOKENS = /(?<![^ ])[^ ]*[^a-z0-9\u3400-\u9fff ][^ ]*/gu;
/** A character no plain token holds: most column texts (78% of the law library's) have none, and skip the search. */
const NOT_PLAIN = /[^a-z0-9\u3400-\u9fff ]/u;

/** SQLite's variable-length integer (1–9 bytes, big-endian, 7 bits a byte, the ninth byte whole), as FTS5 stores sizes. */
function readVarint(buf: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buf[at + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + i + 1];
  }
  return [value * 256 + (buf[at + 8] ?? 0), at + 9];
}

/** Every varint of a blob (a row's column sizes in `%_docsize`, or the totals record). */
function readVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at < buf.length;) {
    const [v, next] = readVarint(buf, at);
    out.push(v);
    at = next;
  }
  return out;
}

/** FTS5's averages record (id 1 of `%_data`): the row count, then each column's total tokens, here summed. */
export function ftsTotals(db: SqliteDatabase, table: string): { documents: number; tokens: number } {
  const totals = readVarints(db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as Uint8Array);
  return { documents: totals[0] ?? 0, tokens: totals.slice(1).reduce((a, b) => a + b, 0) };
}

/**
 * Scores the common terms on candidate rows exactly as FTS5's bm25() would (k1 1.2, b 0.75; phrase frequency
 * weighted by column; the row's length in all columns; idf from the rows holding the term, floored at 1e-6).
 * Returns one score per row, in the order given; a row missing from the index scores 0.
 */
export function commonTermScorer(
  db: SqliteDatabase,
  table: string,
  columnWeights: readonly number[],
): (rows: readonly number[], common: readonly QueryTerm[]) => number[] {
  const { documents, tokens } = ftsTotals(db, table);
  const avgdl = tokens / Math.max(1, documents);
  // All candidates in one statement: one B-tree walk per table and one call into SQLite, where a lookup per row and
  // table cost about three times as much at 200 candidates.
  const columns = columnWeights.map((_, col) => `c.c${col}`).join(', ');
  const fetch = db
    .prepare(
      `SELECT c.id, ${columns}, d.sz FROM json_each(?) j JOIN ${table}_content c ON c.id = j.value JOIN ${table}_docsize d ON d.id = c.id`,
    )
    .raw();
  const k1 = 1.2;
  const b = 0.75;
  const idf = (df: number): number => {
    const v = Math.log((documents - df + 0.5) / (df + 0.5));
    return v <= 0 ? 1e-6 : v;
  };
  return (rows, common) => {
    // The unicode61 token each term is counted as, once per query rather than once per candidate.
    const keys = common.map((t) => unicodeTokens(t.term)[0] ?? t.term);
    const plain = [...new Set(keys)].filter((part) => PLAIN_TOKEN.test(part));
    const byRow = new Map<number, number>();
    for (const r of fetch.all(JSON.stringify(rows)) as unknown[][]) {
      const id = r[0] as number;
      const sizes = r[columnWeights.length + 1] as Uint8Array | null;
      if (!sizes) continue;
      const length = readVarints(sizes).reduce((a, c) => a + c, 0);
      const wanted = new Map<string, number>(keys.map((key) => [key, 0]));
      // Weighted frequency of each common term: its tokens in each column times the column's weight. The column holds
      // analyzer tokens joined by single spaces. A plain token (CJK, lowercase ASCII letters and digits) is one unicode61
      // token, counted by searching for ` term `; the few others (5%, 2015-01, café) are split like unicode61 splits them.
      for (let col = 0; col < columnWeights.length; col++) {
        const text = r[col + 1];
        if (typeof text !== 'string' || text === '') continue;
        const weight = columnWeights[col] ?? 1;
        const spaced = ` ${text} `;
        for (const part of plain) {
          let n = 0;
          for (let at = spaced.indexOf(` ${part} `); at >= 0; at = spaced.indexOf(` ${part} `, at + part.length + 1)) n++;
          if (n > 0) wanted.set(part, (wanted.get(part) ?? 0) + n * weight);
        }
        for (const token of NOT_PLAIN.test(text) ? (text.match(OTHER_TOKENS) ?? []) : []) {
          for (const p of unicodeTokens(token)) {
            const f = wanted.get(p);
            if (f !== undefined) wanted.set(p, f + weight);
          }
        }
      }
      let score = 0;
      common.forEach((t, i) => {
        const f = wanted.get(keys[i]!) ?? 0;
        if (f === 0) return;
        score += t.repeat * idf(t.df) * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * length) / avgdl)));
      });
      byRow.set(id, score);
    }
    return rows.map((row) => byRow.get(row) ?? 0);
  };
}

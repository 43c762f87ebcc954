import type { SqliteDatabase, SqliteStatement } from '../sqlite-database.js';
import { boundedCache } from '../bounded-cache.js';
import type { ChunkFilter } from '../types.js';
import { matchExpression, type QueryTerm } from './fts-query.js';
import { commonTermScorer, diverseCandidates, splitQueryTerms, type TwoStageOptions } from './fts-two-stage.js';

/**
 * bm25() column weights, in the FTS column order content, book, chapter, section, figure_ref.
 * - content 1: the reference.
 * - book 0.5: every chunk of a book shares its name, so a match there barely discriminates.
 * - chapter 2, section 3: headings are short and name the topic; a query word in the section
 *   heading is stronger evidence than the same word once in the body (sections are narrower than chapters).
 * - figure_ref 5: a question naming 表2-1 wants exactly that transcription.
 */
export const BM25_WEIGHTS: Bm25Weights = { content: 1, book: 0.5, chapter: 2, section: 3, figure_ref: 5 };

/** Per-column bm25() weights of the keyword index. */
export interface Bm25Weights {
  content: number;
  book: number;
  chapter: number;
  section: number;
  figure_ref: number;
}

/** Escapes `%`, `_` and the escape character itself for a LIKE pattern. */
function likeContains(value: string): string {
  return `%${value.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/** SQL conditions on the `chunks` table (alias c) for a filter; shared by keyword search and tests. */
export function filterSql(filter: ChunkFilter | undefined): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (!filter) return { where, params };
  if (filter.book) {
    where.push('c.book = ?');
    params.push(filter.book);
  }
  if (filter.chapter) {
    // Any level of the heading path (stored as a JSON array of the titles).
    where.push("c.headings LIKE ? ESCAPE '\\'");
    params.push(likeContains(filter.chapter));
  }
  if (filter.pages) {
    // Overlap of [start, end] with [from, to]; chunks without numeric printed pages are excluded.
    where.push('c.page_start_num IS NOT NULL AND c.page_start_num <= ? AND c.page_end_num >= ?');
    params.push(filter.pages.to, filter.pages.from);
  }
  if (filter.chunkType) {
    where.push('c.chunk_type = ?');
    params.push(filter.chunkType);
  }
  return { where, params };
}

/** A row of the keyword index with its BM25 score (higher is better). */
export interface RankedRow {
  row: number;
  score: number;
}

/** What `createFtsRanker` needs besides the database: the weights, the two-stage settings and the row count. */
export interface FtsRankerOptions {
  weights: Bm25Weights;
  twoStage: TwoStageOptions;
  /** Chunks in the index (the two-stage split compares document frequencies with it). */
  count: number;
  /** One-stage rankings remembered by match expression (default 0: none). */
  remember?: number;
}

/**
 * The database half of a keyword search: the best `k` rows for already selected query terms, by FTS5's bm25 with
 * the column weights (two-stage above `twoStage.minCommonPostings`, see fts-two-stage.ts), with the filter in SQL.
 * Needs only an open connection, so the same ranking runs on the thread that opened the index or on a worker.
 */
export function createFtsRanker(
  db: SqliteDatabase,
  options: FtsRankerOptions,
): (terms: readonly QueryTerm[], k: number, filter?: ChunkFilter) => RankedRow[] {
  const w = options.weights;
  const { twoStage, count } = options;
  // The bm25 weights as FTS5's per-query rank function: `ORDER BY rank LIMIT k` then runs inside FTS5, which keeps
  // only the best k (rowid, score) pairs instead of joining every matching row's metadata before the sort.
  const rankFunction = `bm25(${w.content}, ${w.book}, ${w.chapter}, ${w.section}, ${w.figure_ref})`;
  const columnWeights = [w.content, w.book, w.chapter, w.section, w.figure_ref];
  // Opened on the first split query: small indexes never split.
  let scoreCommon: ReturnType<typeof commonTermScorer> | undefined;
  const statements = new Map<string, SqliteStatement>();
  const prepared = (sql: string): SqliteStatement => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };
  // With `remember`, the rows a one-stage query ranked, by match expression and filter, with the depth they were
  // ranked to. A batch of questions in several modes asks the same expressions again (eval answers each row in
  // keyword mode, then in hybrid mode, whose keyword run is shallower), and the file does not change while open. The
  // best k rows are the first k of any deeper ranking: FTS5 orders equal scores by rowid (fts-index.test.ts).
  const remember = options.remember ?? 0;
  const rankedCache = remember > 0 ? boundedCache<string, { depth: number; rows: RankedRow[] }>(remember) : null;
  return (terms, k, filter) => {
    if (k <= 0 || terms.length === 0) return [];
    const { where, params } = filterSql(filter);
    const restrict = where.length > 0 ? ` AND rowid IN (SELECT c.row FROM chunks c WHERE ${where.join(' AND ')})` : '';
    const sql = `SELECT rowid AS row, rank FROM chunks_fts WHERE chunks_fts MATCH ? AND rank MATCH ?${restrict} ORDER BY rank LIMIT ?`;
    const split = splitQueryTerms(terms, count, twoStage);
    const expression = matchExpression(split ? split.rare : terms);
    const key = split || !rankedCache ? '' : `${expression}\u0000${restrict}\u0000${JSON.stringify(params)}`;
    const known = key ? rankedCache?.get(key) : undefined;
    // A ranking that ran out of rows before its depth holds every matching row.
    if (known && (known.depth >= k || known.rows.length < known.depth)) return known.rows.slice(0, k);
    // bm25() is lower-is-better; negate so every searcher reports higher-is-better.
    const ranked = (
      prepared(sql).all(expression, rankFunction, ...params, split ? Math.max(k, twoStage.candidates) * twoStage.fetchFactor : k) as {
        row: number;
        rank: number;
      }[]
    ).map(({ row, rank }) => ({ row, score: -rank }));
    if (!split) {
      if (key) rankedCache?.set(key, { depth: k, rows: ranked });
      return key ? ranked.slice() : ranked;
    }
    scoreCommon ??= commonTermScorer(db, 'chunks_fts', columnWeights);
    const candidates = diverseCandidates(ranked, k, Math.max(k, twoStage.candidates));
    const common = scoreCommon(
      candidates.map((c) => c.row),
      split.common,
    );
    return candidates
      .map(({ row, score: rare }, i) => ({ row, score: rare + common[i]! }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
  };
}

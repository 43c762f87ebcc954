import path from 'node:path';
import { Database, type SqliteDatabase, type SqliteStatement } from '../sqlite-database.js';
import { boundedCache, type BoundedCache } from '../bounded-cache.js';
import { NotReadyError } from '../errors.js';
import type { Analyzer } from '../text/analyzer.js';
import { decodePassageTokens, WINDOW_PLAN_VERSION, type PassageTokens } from '../text/passage-windows.js';
import type { Chunk, ChunkFilter, Hit } from '../types.js';
import {
  characterCounts,
  DEFAULT_CHARACTER_RESCORE,
  rescoreByCharacters,
  type CharacterCounts,
  type CharacterRescoreOptions,
  type CharacterStatistics,
} from './character-rescorer.js';
import { FTS_SCHEMA_VERSION, rowToChunk, type ChunkRow } from './chunk-rows.js';
import { BM25_WEIGHTS, createFtsRanker, filterSql, type Bm25Weights, type FtsRankerOptions, type RankedRow } from './fts-ranker.js';
import { KEYWORD_POSTINGS_FILE, openKeywordPostings } from './keyword-postings.js';
import { selectQueryTerms, type QueryTerm } from './fts-query.js';
import { DEFAULT_TWO_STAGE, type TwoStageOptions } from './fts-two-stage.js';

/** How a query is turned into FTS5 terms; the defaults are `DEFAULT_TERM_SELECTION`. */
export interface TermSelection {
  /** Terms found in more than this share of the chunks are dropped (their IDF is near zero, their postings long). */
  maxDocShare: number;
  /** At most this many terms, the rarest (highest IDF) first. */
  maxTerms: number;
  /** A term the question repeats counts up to this many times (query term frequency). */
  maxRepeat: number;
}

/**
 * Query-term pruning by document frequency. A term found in more than half the chunks has a BM25 IDF of about zero
 * (FTS5 floors it), yet an OR over it makes FTS5 score most rows; terms no chunk holds are dropped, the 32 rarest kept,
 * and a word the question repeats counts twice. Measured: STARD dev R@10/MRR@10 and FinanceIQ proxy unchanged or
 * better. Stricter cuts (30% share, 12 terms) were a third faster on a 16k-chunk library but lost FinanceIQ evidence.
 */
export const DEFAULT_TERM_SELECTION: TermSelection = { maxDocShare: 0.5, maxTerms: 32, maxRepeat: 2 };

/**
 * An opened keyword index: BM25 search with SQL filters, plus the chunk table (read by key, never all at once for a
 * search). Chunks read by `search` and `chunkById` are kept while open and shared between calls: treat them as read-only.
 */
export interface FtsIndex {
  search(query: string, k: number, filter?: ChunkFilter): Hit[];
  /** The query terms `search` sends to the index (analyzer tokens pruned by document frequency). */
  queryTerms(query: string): QueryTerm[];
  /** How many rows `createFtsRanker` must return for `search`'s k hits (the rows the character score re-ranks). */
  rankDepth(k: number): number;
  /** `search`'s first k hits from the rows ranked for `rankDepth(k)`: the character re-scoring, then the cut. */
  hitsFor(query: string, ranked: readonly RankedRow[], k: number): Hit[];
  /** The index file, for a second connection on a worker thread. */
  readonly file: string;
  /** What `createFtsRanker` needs to rank exactly as `search` does. */
  readonly rankerOptions: FtsRankerOptions;
  /**
   * Whether unfiltered queries are ranked from the build's postings file (well under a millisecond each), so a
   * ranking thread would only add its start-up.
   */
  readonly ranksFromPostings: boolean;
  /** The ranking `search` re-scores: the best rows for the terms, at least `rankDepth(k)` of them. */
  rank(terms: readonly QueryTerm[], k: number, filter?: ChunkFilter): RankedRow[];
  /** Every chunk in index (row) order. */
  loadChunks(): Chunk[];
  /** One chunk by id, or undefined. */
  chunkById(id: string): Chunk | undefined;
  /** The chunk at a row (from 1, in index order), or undefined. */
  chunkAtRow(row: number): Chunk | undefined;
  /**
   * The headings' and window pieces' tokens ingest stored for a chunk (`segmentPassage`); null when the index has
   * none (built before they were stored, or with other window rules).
   */
  passageTokens(id: string): PassageTokens | null;
  /** The chunks of a source whose character range overlaps [from, to), in text order. */
  chunksInRange(source: string, from: number, to: number): Chunk[];
  /** The chunks of one source with `seq` in [from, to], in seq order (neighbour expansion). */
  chunksBySeq(source: string, from: number, to: number): Chunk[];
  /**
   * At most `limit` chunks, in index order, whose printed pages (numeric labels only) overlap [from, to], of one
   * book or of any: the agent's `read` by pages, without loading the chunk table.
   */
  chunksOnPages(book: string | null, from: number, to: number, limit: number): Chunk[];
  /** Number of chunks. */
  readonly count: number;
  readonly analyzerFingerprint: string;
  /**
   * What an index written by an earlier version lacks, each a reason to rebuild it (`ingest --force`): its searches
   * and answers still work, as they did when it was built. Empty for a current index.
   */
  readonly missing: readonly string[];
  /**
   * Chunks whose analyzer tokens (`documentFrequencyText`) include the token, as counted when the index was written;
   * null for an index written before the counts were stored.
   */
  readonly corpusFrequency: ((token: string) => number) | null;
  /** The Han characters' document frequencies stored at ingest; null for an index written before they were. */
  readonly characterStatistics: CharacterStatistics | null;
  close(): void;
}

/** Entries kept by each of an open index's caches (document frequencies, chunks, character counts). */
const CACHE_ENTRIES = 8192;

/**
 * Opens `sqlite_fts.db` read-only. Fails with NotReadyError when the file is missing, has another
 * schema, or was built with another analyzer (user dictionary), since BM25 over differently cut
 * text silently misses words. `options.characters` sets the character re-scoring of the word ranking
 * (`DEFAULT_CHARACTER_RESCORE` when absent, null for words alone).
 */
export function openFtsIndex(
  file: string,
  analyzer: Analyzer,
  options: {
    weights?: Bm25Weights;
    terms?: TermSelection;
    twoStage?: TwoStageOptions;
    characters?: CharacterRescoreOptions | null;
    /** One-stage keyword rankings remembered by match expression (default 0: none; see `createFtsRanker`). */
    rememberRankings?: number;
    /** Rank from the build's postings file where it can (default true); false: FTS5 ranks every query. */
    postings?: boolean;
  } = {},
): FtsIndex {
  let db: SqliteDatabase;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    throw new NotReadyError(`no keyword index at ${file}; run \`exam-copilot ingest\``);
  }
  const meta = new Map<string, string>();
  try {
    for (const r of db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]) meta.set(r.key, r.value);
  } catch {
    db.close();
    throw new NotReadyError(`${file} is not an exam-copilot index; run \`exam-copilot ingest --force\``);
  }
  if (meta.get('schema_version') !== String(FTS_SCHEMA_VERSION)) {
    db.close();
    throw new NotReadyError(
      `${file} was built by another version (schema ${meta.get('schema_version') ?? '?'}); run \`exam-copilot ingest --force\``,
    );
  }
  const built = meta.get('analyzer') ?? '';
  if (built !== analyzer.fingerprint) {
    db.close();
    throw new NotReadyError(
      `${file} was built with analyzer ${built}, the current user dictionary gives ${analyzer.fingerprint}; run \`exam-copilot ingest --force\``,
    );
  }
  const selection = options.terms ?? DEFAULT_TERM_SELECTION;
  // Document frequencies from FTS5's own vocabulary, as ingest stored them; an index written before that counts them
  // through a temp fts5vocab table (the same numbers, slower; the file stays read-only).
  const hasFtsDf = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fts_df'").get() !== undefined;
  if (!hasFtsDf) db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, 'chunks_fts', 'row')");
  const dfStatement = db
    .prepare(hasFtsDf ? 'SELECT df FROM fts_df WHERE term = ?' : 'SELECT doc FROM temp.chunks_vocab WHERE term = ?')
    .pluck();
  const byRow = db.prepare('SELECT * FROM chunks WHERE row = ?');
  const byId = db.prepare('SELECT * FROM chunks WHERE chunk_id = ?');
  const bySeq = db.prepare('SELECT * FROM chunks WHERE source = ? AND seq BETWEEN ? AND ? ORDER BY seq');
  const inRange = db.prepare('SELECT * FROM chunks WHERE source = ? AND char_start < ? AND char_end > ? ORDER BY seq');
  const onPages = db.prepare(
    'SELECT * FROM chunks WHERE (@book IS NULL OR book = @book) AND page_start_num <= @to AND page_end_num >= @from ORDER BY row LIMIT @limit',
  );
  const hasCorpusDf = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'corpus_df'").get() !== undefined;
  const corpusDf = hasCorpusDf ? db.prepare('SELECT df FROM corpus_df WHERE term = ?').pluck() : null;
  // Older indexes lack the table, and tokens cut by other window rules would not match the answerer's windows.
  const passageStatement =
    meta.get('window_plan') === WINDOW_PLAN_VERSION
      ? db.prepare('SELECT p.tokens FROM passage_tokens p JOIN chunks c ON c.row = p.row WHERE c.chunk_id = ?').pluck()
      : null;
  // An index written before the character counts were stored ranks by words alone, as it did when it was built.
  const hasCharacterDf =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'character_df'").get() !== undefined &&
    meta.has('han_characters');
  const characterDf = hasCharacterDf ? db.prepare('SELECT df FROM character_df WHERE ch = ?').pluck() : null;
  // The count written at build time; counting rows would read the whole chunks table on every open.
  const count = Number(meta.get('count') ?? NaN) || ((db.prepare('SELECT count(*) FROM chunks').pluck().get() as number) ?? 0);
  const rankerOptions: FtsRankerOptions = {
    weights: options.weights ?? BM25_WEIGHTS,
    twoStage: options.twoStage ?? DEFAULT_TWO_STAGE,
    count,
    remember: options.rememberRankings ?? 0,
  };
  const ftsRank = createFtsRanker(db, rankerOptions);
  // The postings file of this build, when ingest wrote one: unfiltered queries of single tokens are ranked from it,
  // exactly as FTS5 ranks them in one stage (keyword-postings.ts); filters and phrases go to FTS5.
  const postings =
    options.postings === false
      ? null
      : openKeywordPostings(path.join(path.dirname(file), KEYWORD_POSTINGS_FILE), meta.get('postings_stamp'), rankerOptions.weights);
  const rank = (terms: readonly QueryTerm[], k: number, filter?: ChunkFilter): RankedRow[] =>
    (hasNoConditions(filter) ? postings?.rank(terms, k) : null) ?? ftsRank(terms, k, filter);
  // unicode61 indexes `0.05` as 0 + 05 and folds diacritics: a token's postings are those of its parts, so its
  // document frequency is at most the rarest part's.
  // The file is read-only while open, so a term's document frequency and a row's chunk never change: both are kept
  // (bounded). Every query looks up the df of all its terms, and a hybrid search reads up to 2 × depth chunk rows.
  const dfCache = boundedCache<string, number>(CACHE_ENTRIES);
  const rowCache = boundedCache<number, Chunk>(CACHE_ENTRIES);
  const idCache = boundedCache<string, Chunk>(CACHE_ENTRIES);
  const docFrequency = (term: string): number =>
    dfCache.through(term, () => {
      const parts = term
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
      return parts.length === 0 ? 0 : Math.min(...parts.map((p) => (dfStatement.get(p) as number | undefined) ?? 0));
    });
  /** The chunk a statement finds for a key, through the key's cache. */
  const cachedChunk = <K>(cache: BoundedCache<K, Chunk>, statement: SqliteStatement, key: K): Chunk | undefined =>
    cache.through(key, () => {
      const r = statement.get(key) as ChunkRow | undefined;
      return r ? rowToChunk(r) : undefined;
    });
  const chunkAtRow = (row: number): Chunk | undefined => cachedChunk(rowCache, byRow, row);
  const rescore = options.characters === undefined ? DEFAULT_CHARACTER_RESCORE : options.characters;
  const characterCache = boundedCache<string, number>(CACHE_ENTRIES);
  const characterStatistics: CharacterStatistics | null = characterDf
    ? {
        documents: count,
        averageLength: Number(meta.get('han_characters')) / Math.max(1, count),
        docFrequency: (ch: string): number => characterCache.through(ch, () => (characterDf.get(ch) as number | undefined) ?? 0),
      }
    : null;
  // Re-scoring needs both its options and the stored statistics; one value holds both, so each use tests once.
  const characterRescore = rescore && characterStatistics ? { options: rescore, stats: characterStatistics } : null;
  const rankDepth = (k: number): number => (characterRescore ? Math.max(k, characterRescore.options.depth) : k);
  const queryTerms = (query: string): QueryTerm[] => selectQueryTerms(analyzer, query, { docFrequency, documents: count, ...selection });
  const hitsOf = (ranked: readonly RankedRow[]): Hit[] =>
    ranked.flatMap(({ row, score }) => {
      const chunk = chunkAtRow(row);
      return chunk ? [{ chunk, score }] : [];
    });
  // Character counts per row, and the body texts of the rows a search re-scores, read in one statement: a ranking
  // re-scores `depth` rows but hands out only k of them, so the others never become chunks.
  const countsCache = boundedCache<number, CharacterCounts>(CACHE_ENTRIES);
  const textsByRow = db.prepare('SELECT row, text FROM chunks WHERE row IN (SELECT value FROM json_each(?))');
  const candidatesOf = (ranked: readonly RankedRow[]): (RankedRow & { text: string })[] => {
    const missing = ranked.filter((r) => !rowCache.get(r.row)).map((r) => r.row);
    const texts = new Map<number, string>();
    if (missing.length > 0) {
      for (const r of textsByRow.all(JSON.stringify(missing)) as { row: number; text: string }[]) texts.set(r.row, r.text);
    }
    return ranked.flatMap((r) => {
      const text = texts.get(r.row) ?? rowCache.get(r.row)?.text;
      return text === undefined ? [] : [{ ...r, text }];
    });
  };
  const countsOf = (c: RankedRow & { text: string }): CharacterCounts => countsCache.through(c.row, () => characterCounts(c.text));
  const hitsFor = (query: string, ranked: readonly RankedRow[], k: number): Hit[] => {
    if (!characterRescore) return hitsOf(ranked.slice(0, k));
    const { options: r, stats } = characterRescore;
    const head = rescoreByCharacters(query, candidatesOf(ranked.slice(0, r.depth)), stats, r, countsOf);
    return hitsOf([...head, ...ranked.slice(r.depth)].slice(0, k));
  };
  return {
    analyzerFingerprint: built,
    missing: [
      ...(characterStatistics ? [] : ['character statistics for keyword ranking and phrase re-scoring']),
      ...(passageStatement ? [] : ['segmented passages for fast offline answers']),
      ...(meta.has('postings_stamp') ? [] : ['the keyword postings file for fast keyword ranking']),
    ],
    count,
    file,
    rankerOptions,
    ranksFromPostings: postings !== null,
    rank,
    corpusFrequency: corpusDf ? (token) => (corpusDf.get(token) as number | undefined) ?? 0 : null,
    characterStatistics,
    search: (query, k, filter) => (k <= 0 ? [] : hitsFor(query, rank(queryTerms(query), rankDepth(k), filter), k)),
    queryTerms,
    rankDepth,
    hitsFor,
    loadChunks() {
      return (db.prepare('SELECT * FROM chunks ORDER BY row').all() as ChunkRow[]).map(rowToChunk);
    },
    chunkById: (id) => cachedChunk(idCache, byId, id),
    chunkAtRow,
    passageTokens(id) {
      const text = passageStatement?.get(id) as string | undefined;
      return text === undefined ? null : decodePassageTokens(text);
    },
    chunksInRange(source, from, to) {
      return (inRange.all(source, to, from) as ChunkRow[]).map(rowToChunk);
    },
    chunksBySeq(source, from, to) {
      return (bySeq.all(source, from, to) as ChunkRow[]).map(rowToChunk);
    },
    chunksOnPages(book, from, to, limit) {
      return (onPages.all({ book, from, to, limit }) as ChunkRow[]).map(rowToChunk);
    },
    close() {
      postings?.close();
      db.close();
    },
  };
}

/** Whether a filter restricts nothing (absent, or every field empty). */
function hasNoConditions(filter: ChunkFilter | undefined): boolean {
  return filterSql(filter).where.length === 0;
}

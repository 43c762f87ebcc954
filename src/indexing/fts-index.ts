import { Database, type SqliteDatabase, type SqliteStatement } from '../sqlite-database.js';
import { boundedCache, type BoundedCache } from '../bounded-cache.js';
import { NotReadyError } from '../errors.js';
import type { Analyzer } from '../text/analyzer.js';
import { countDistinctTokens } from '../text/document-frequencies.js';
import {
  decodePassageTokens,
  encodePassageTokens,
  segmentPassage,
  WINDOW_PLAN_VERSION,
  type PassageTokens,
} from '../text/passage-windows.js';
import type { Chunk, ChunkFilter, Hit } from '../types.js';
import {
  characterCounts,
  DEFAULT_CHARACTER_RESCORE,
  hanCharacters,
  rescoreByCharacters,
  type CharacterCounts,
  type CharacterRescoreOptions,
  type CharacterStatistics,
} from './character-rescorer.js';
import { matchExpression, segmentForIndex, selectQueryTerms, type QueryTerm } from './fts-query.js';
import { commonTermScorer, DEFAULT_TWO_STAGE, diverseCandidates, splitQueryTerms, type TwoStageOptions } from './fts-two-stage.js';

/** Bumped when the table layout changes, so an old database is reported as needing a re-ingest. */
export const FTS_SCHEMA_VERSION = 2;

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

/** The printed page label as a number, or null when it is not a plain arabic number (roman front matter, empty). */
export function printedPageNumber(label: string): number | null {
  return /^\d+$/.test(label.trim()) ? Number(label.trim()) : null;
}

/** The Chunk fields stored as JSON text in the `chunks` table. */
type JsonFields = 'headings' | 'articles' | 'page_breaks';

/** A row of the `chunks` table: every Chunk field (arrays as JSON text) plus `row`, the FTS rowid. */
type ChunkRow = Omit<Chunk, JsonFields> & Record<JsonFields, string> & { row: number };

function rowToChunk(r: ChunkRow): Chunk {
  const { row: _row, headings, articles, page_breaks, ...rest } = r;
  return {
    ...rest,
    headings: JSON.parse(headings) as string[],
    articles: JSON.parse(articles) as string[],
    page_breaks: JSON.parse(page_breaks) as Chunk['page_breaks'],
  };
}

/**
 * Writes `sqlite_fts.db`: a `chunks` table with every Chunk field (chunk_id primary key; `row` is the
 * FTS rowid), the FTS5 table `chunks_fts` over analyzer-segmented text, and a `meta` table holding the
 * analyzer fingerprint so a query-time analyzer with another dictionary is detected.
 */
export function writeFtsIndex(file: string, chunks: readonly Chunk[], analyzer: Analyzer, onRow?: (done: number) => void): number {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(`
      DROP TABLE IF EXISTS chunks_fts;
      DROP TABLE IF EXISTS chunks;
      DROP TABLE IF EXISTS meta;
      DROP TABLE IF EXISTS corpus_df;
      DROP TABLE IF EXISTS passage_tokens;
      DROP TABLE IF EXISTS character_df;
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE corpus_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE character_df (ch TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE chunks (
        chunk_id TEXT PRIMARY KEY,
        row INTEGER NOT NULL UNIQUE,
        book TEXT NOT NULL, headings TEXT NOT NULL, chapter TEXT NOT NULL, section TEXT NOT NULL, subsection TEXT NOT NULL,
        articles TEXT NOT NULL, page_breaks TEXT NOT NULL,
        figure_ref TEXT NOT NULL, page_start TEXT NOT NULL, page_end TEXT NOT NULL,
        page_start_num INTEGER, page_end_num INTEGER,
        pdf_page_start INTEGER, pdf_page_end INTEGER,
        chunk_type TEXT NOT NULL, exam_priority REAL NOT NULL,
        source TEXT NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, seq INTEGER NOT NULL,
        text TEXT NOT NULL
      );
      CREATE INDEX chunks_source_seq ON chunks(source, seq);
      CREATE TABLE passage_tokens (row INTEGER PRIMARY KEY, tokens TEXT NOT NULL);
      CREATE VIRTUAL TABLE chunks_fts USING fts5(content, book, chapter, section, figure_ref, tokenize = 'unicode61 remove_diacritics 2');
    `);
    const insertChunk =
      db.prepare(`INSERT INTO chunks VALUES (@chunk_id, @row, @book, @headings, @chapter, @section, @subsection, @articles, @page_breaks,
      @figure_ref, @page_start, @page_end,
      @page_start_num, @page_end_num, @pdf_page_start, @pdf_page_end, @chunk_type, @exam_priority, @source, @char_start, @char_end, @seq, @text)`);
    const insertFts = db.prepare('INSERT INTO chunks_fts (rowid, content, book, chapter, section, figure_ref) VALUES (?, ?, ?, ?, ?, ?)');
    const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    const insertDf = db.prepare('INSERT INTO corpus_df (term, df) VALUES (?, ?)');
    const insertPassage = db.prepare('INSERT INTO passage_tokens (row, tokens) VALUES (?, ?)');
    const insertCharacterDf = db.prepare('INSERT INTO character_df (ch, df) VALUES (?, ?)');
    // The answerer's corpus statistics, counted once here instead of by tokenising every chunk at each `ask`.
    const frequencies = new Map<string, number>();
    // The keyword ranking's character statistics (character-rescorer.ts): rows per Han character of the body text.
    const characterFrequencies = new Map<string, number>();
    let characters = 0;
    const run = db.transaction(() => {
      chunks.forEach((c, i) => {
        const row = i + 1;
        const start = printedPageNumber(c.page_start);
        const end = printedPageNumber(c.page_end) ?? start;
        const json = {
          headings: JSON.stringify(c.headings),
          articles: JSON.stringify(c.articles),
          page_breaks: JSON.stringify(c.page_breaks),
        };
        insertChunk.run({ ...c, ...json, row, page_start_num: start, page_end_num: end });
        // The answerer's windows and heading match are segmented here once, instead of at every question reading the
        // chunk; the body's tokens for the index are the same pieces' tokens in order.
        const passage = segmentPassage(c, analyzer);
        const textTokens = passage.text;
        const chapterTokens = analyzer.tokens(c.chapter);
        const figureTokens = analyzer.tokens(c.figure_ref);
        insertFts.run(
          row,
          textTokens.join(' '),
          segmentForIndex(analyzer, c.book),
          chapterTokens.join(' '),
          // Every heading below the outermost, so the middle levels of a deep path (编 > 分编 > 章 > 节) are searchable too.
          segmentForIndex(
            analyzer,
            c.headings.length > 0 ? c.headings.slice(1).join(' ') : [c.section, c.subsection].filter(Boolean).join(' '),
          ),
          figureTokens.join(' '),
        );
        insertPassage.run(row, encodePassageTokens(passage));
        // The body, chapter and figure tokens cut above, so the corpus counts cost only the two short headings more.
        countDistinctTokens(frequencies, [
          chapterTokens,
          analyzer.tokens(c.section),
          analyzer.tokens(c.subsection),
          figureTokens,
          textTokens,
        ]);
        const chars = hanCharacters(c.text);
        characters += chars.length;
        for (const ch of new Set(chars)) characterFrequencies.set(ch, (characterFrequencies.get(ch) ?? 0) + 1);
        if (onRow && row % 500 === 0) onRow(row);
      });
      for (const [term, df] of frequencies) insertDf.run(term, df);
      for (const [ch, df] of characterFrequencies) insertCharacterDf.run(ch, df);
      insertMeta.run('han_characters', String(characters));
      insertMeta.run('schema_version', String(FTS_SCHEMA_VERSION));
      insertMeta.run('analyzer', analyzer.fingerprint);
      insertMeta.run('window_plan', WINDOW_PLAN_VERSION);
      insertMeta.run('count', String(chunks.length));
      insertMeta.run('built_at', new Date().toISOString());
    });
    run();
    db.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')");
    // FTS5's document frequencies, stored: fts5vocab counts a term's rows by walking its whole posting list on every
    // lookup (a few milliseconds for a common term of a library), and every query looks up all its terms.
    db.exec(`
      DROP TABLE IF EXISTS fts_df;
      CREATE TABLE fts_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
      CREATE VIRTUAL TABLE temp.build_vocab USING fts5vocab(main, 'chunks_fts', 'row');
      INSERT INTO fts_df SELECT term, doc FROM temp.build_vocab;
      DROP TABLE temp.build_vocab;
    `);
    return chunks.length;
  } finally {
    db.close();
  }
}

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
  /** Every chunk in index (row) order. */
  loadChunks(): Chunk[];
  /** One chunk by id, or undefined. */
  chunkById(id: string): Chunk | undefined;
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
  const rank = createFtsRanker(db, rankerOptions);
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
    ],
    count,
    file,
    rankerOptions,
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
      db.close();
    },
  };
}

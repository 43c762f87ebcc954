import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../sqlite-database.js';
import type { Analyzer } from '../text/analyzer.js';
import { countDistinctTokens } from '../text/document-frequencies.js';
import { memoizeAnalyzer } from '../text/memoize-analyzer.js';
import { encodePassageTokens, segmentPassage, WINDOW_PLAN_VERSION } from '../text/passage-windows.js';
import type { Chunk } from '../types.js';
import { CharacterDocumentFrequencies } from './character-rescorer.js';
import { FTS_SCHEMA_VERSION, printedPageNumber } from './chunk-rows.js';
import { BM25_WEIGHTS } from './fts-ranker.js';
import { ftsTotals } from './fts-two-stage.js';
import { KEYWORD_POSTINGS_FILE, weightList } from './keyword-postings.js';
import { KeywordPostingsWriter } from './keyword-postings-writer.js';

/** Distinct headings and book names kept cut (far more than a library's sections; bounded all the same). */
const HEADING_CACHE = 50_000;

/**
 * Writes `sqlite_fts.db`: a `chunks` table with every Chunk field (chunk_id primary key; `row` is the
 * FTS rowid), the FTS5 table `chunks_fts` over analyzer-segmented text, and a `meta` table holding the
 * analyzer fingerprint so a query-time analyzer with another dictionary is detected.
 */
export function writeFtsIndex(file: string, chunks: Iterable<Chunk>, analyzer: Analyzer, onRow?: (done: number) => void): number {
  const db = new Database(file);
  const postingsFile = path.join(path.dirname(file), KEYWORD_POSTINGS_FILE);
  rmSync(postingsFile, { force: true });
  const postings = new KeywordPostingsWriter(weightList(BM25_WEIGHTS));
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
    const characterFrequencies = new CharacterDocumentFrequencies();
    // A book's name and a section's headings repeat on every chunk under them: each is cut once (on a library of
    // 66k chunks, cutting them again was about a fifth of this function's time).
    const headings = memoizeAnalyzer(analyzer, HEADING_CACHE);
    let row = 0;
    const run = db.transaction(() => {
      for (const c of chunks) {
        row++;
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
        const passage = segmentPassage(c, analyzer, headings);
        const textTokens = passage.text;
        const chapterTokens = headings.tokens(c.chapter);
        const figureTokens = headings.tokens(c.figure_ref);
        // Each column's tokens; FTS5 is given them joined by spaces (unicode61 splits there), the postings as they are.
        const columns = [
          textTokens,
          headings.tokens(c.book),
          chapterTokens,
          // Every heading below the outermost, so the middle levels of a deep path (编 > 分编 > 章 > 节) are searchable too.
          headings.tokens(c.headings.length > 0 ? c.headings.slice(1).join(' ') : [c.section, c.subsection].filter(Boolean).join(' ')),
          figureTokens,
        ] as const;
        insertFts.run(row, ...columns.map((tokens) => tokens.join(' ')));
        postings.add(row, columns);
        insertPassage.run(row, encodePassageTokens(passage));
        // The body, chapter and figure tokens cut above, so the corpus counts cost only the two short headings more.
        countDistinctTokens(frequencies, [
          chapterTokens,
          headings.tokens(c.section),
          headings.tokens(c.subsection),
          figureTokens,
          textTokens,
        ]);
        characterFrequencies.add(c.text);
        if (onRow && row % 500 === 0) onRow(row);
      }
      for (const [term, df] of frequencies) insertDf.run(term, df);
      for (const [ch, df] of characterFrequencies.entries()) insertCharacterDf.run(ch, df);
      insertMeta.run('han_characters', String(characterFrequencies.characters));
      insertMeta.run('schema_version', String(FTS_SCHEMA_VERSION));
      insertMeta.run('analyzer', analyzer.fingerprint);
      insertMeta.run('window_plan', WINDOW_PLAN_VERSION);
      insertMeta.run('count', String(row));
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
    // The postings file is written only when its counts are FTS5's own; without it the index ranks with FTS5.
    const vocabulary = db.prepare('SELECT count(*) AS terms, coalesce(sum(df), 0) AS postings FROM fts_df').get() as {
      terms: number;
      postings: number;
    };
    // An empty stamp records that none was written for this build (no rows, or counts unicode61 made otherwise), so
    // the index is not reported as an earlier version's.
    let stamp = '';
    if (row > 0 && postings.matches({ ...ftsTotals(db, 'chunks_fts'), ...vocabulary })) {
      stamp = randomUUID();
      const ln = db.prepare('SELECT ln(?)').pluck();
      writeFileSync(
        postingsFile,
        postings.encode(stamp, (x) => ln.get(x) as number),
      );
    }
    insertMeta.run('postings_stamp', stamp);
    return row;
  } finally {
    db.close();
  }
}

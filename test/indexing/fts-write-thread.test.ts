import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildIndexes } from '../../src/indexing/build-indexes.js';
import { projectPaths } from '../../src/paths.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import type { Chunk } from '../../src/types.js';
import { readFixtureCorpus, testConfig } from '../retrieve/fixture-index.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

/** Every table the keyword index writer fills, row by row (the build time aside). */
function tables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const all = (sql: string): unknown[] => db.prepare(sql).all();
    return {
      chunks: all('SELECT * FROM chunks ORDER BY row'),
      fts: all('SELECT rowid, content, book, chapter, section, figure_ref FROM chunks_fts ORDER BY rowid'),
      passages: all('SELECT * FROM passage_tokens ORDER BY row'),
      corpusDf: all('SELECT * FROM corpus_df ORDER BY term'),
      characterDf: all('SELECT * FROM character_df ORDER BY ch'),
      ftsDf: all('SELECT * FROM fts_df ORDER BY term'),
      meta: all("SELECT * FROM meta WHERE key <> 'built_at' ORDER BY key"),
    };
  } finally {
    db.close();
  }
}

const jsonLines = (chunks: readonly Chunk[]): string => chunks.map((c) => `${JSON.stringify(c)}\n`).join('');

void describe('the keyword index written on its own thread', () => {
  const setUp = (): { root: string; cleanup: () => void; chunksFile: string } => {
    const tmp = makeTempRoot();
    const paths = projectPaths(tmp.root);
    mkdirSync(paths.rawdoc, { recursive: true });
    copyFileSync(path.join(repoRoot, 'rawdoc', 'userdict.txt'), path.join(paths.rawdoc, 'userdict.txt'));
    return { root: tmp.root, cleanup: () => tmp.cleanup(), chunksFile: path.join(tmp.root, 'chunks.jsonl') };
  };

  void it('holds the same rows, tokens and statistics as one written on the calling thread, while the fit runs', async () => {
    const { root, cleanup, chunksFile } = setUp();
    try {
      const config = testConfig(root);
      const { chunks, docs } = readFixtureCorpus();
      writeFileSync(chunksFile, jsonLines(chunks));
      const here = await buildIndexes({ root, config, chunks, docs, indexDir: path.join(root, 'here') });
      const thread = await buildIndexes({ root, config, chunks, docs, indexDir: path.join(root, 'thread'), keywordThread: { chunksFile } });
      assert.equal(thread.ftsRows, chunks.length);
      assert.equal(thread.ftsRows, here.ftsRows);
      assert.equal(thread.analyzer, here.analyzer);
      assert.equal(thread.embedderId, here.embedderId);
      const written = tables(path.join(root, 'thread', 'sqlite_fts.db'));
      assert.equal(written.chunks?.length, chunks.length);
      assert.ok((written.corpusDf?.length ?? 0) > 0);
      assert.deepEqual(written, tables(path.join(root, 'here', 'sqlite_fts.db')));
    } finally {
      cleanup();
    }
  });

  void it('fails, naming the file, when the file holds other chunks than those being indexed', async () => {
    const { root, cleanup, chunksFile } = setUp();
    try {
      const config = testConfig(root);
      const { chunks, docs } = readFixtureCorpus();
      writeFileSync(chunksFile, jsonLines(chunks.slice(1)));
      await assert.rejects(
        buildIndexes({ root, config, chunks, docs, indexDir: path.join(root, 'index'), keywordThread: { chunksFile } }),
        (e: unknown) =>
          e instanceof Error && e.message === `${chunksFile}: the keyword index thread read other chunks than those being indexed`,
      );
    } finally {
      cleanup();
    }
  });

  void it('refuses an analyzer the configuration does not build, rather than index other tokens', async () => {
    const { root, cleanup, chunksFile } = setUp();
    try {
      const config = testConfig(root);
      const { chunks, docs } = readFixtureCorpus();
      writeFileSync(chunksFile, jsonLines(chunks));
      const other = createAnalyzer(['自定义词 100000 n']);
      await assert.rejects(
        buildIndexes({ root, config, chunks, docs, indexDir: path.join(root, 'index'), analyzer: other, keywordThread: { chunksFile } }),
        (e: unknown) => e instanceof Error && /the keyword index thread's analyzer is .*, not jieba-search\+num4\+user:1:/.test(e.message),
      );
    } finally {
      cleanup();
    }
  });
});

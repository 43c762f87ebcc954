import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildIndexes } from '../../src/indexing/build-indexes.js';
import { writeFtsIndex } from '../../src/indexing/fts-writer.js';
import { KEYWORD_POSTINGS_FILE } from '../../src/indexing/keyword-postings.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { projectPaths } from '../../src/paths.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import { createAnalyzer, type Analyzer } from '../../src/text/analyzer.js';
import type { Chunk } from '../../src/types.js';
import { readFixtureCorpus, testConfig } from '../retrieve/fixture-index.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

/**
 * Every table the keyword index writer fills, row by row, and the postings file beside it (the build time and the
 * build's random stamp aside).
 */
function tables(file: string): Record<string, unknown[] | string> {
  const db = new Database(file, { readonly: true });
  try {
    const all = (sql: string): unknown[] => db.prepare(sql).all();
    const stamp = db.prepare("SELECT value FROM meta WHERE key = 'postings_stamp'").pluck().get() as string;
    assert.ok(stamp, 'the postings file was written');
    return {
      postings: readFileSync(path.join(path.dirname(file), KEYWORD_POSTINGS_FILE))
        .toString('latin1')
        .replace(stamp, ''),
      chunks: all('SELECT * FROM chunks ORDER BY row'),
      fts: all('SELECT rowid, content, book, chapter, section, figure_ref FROM chunks_fts ORDER BY rowid'),
      passages: all('SELECT * FROM passage_tokens ORDER BY row'),
      corpusDf: all('SELECT * FROM corpus_df ORDER BY term'),
      characterDf: all('SELECT * FROM character_df ORDER BY ch'),
      ftsDf: all('SELECT * FROM fts_df ORDER BY term'),
      meta: all("SELECT * FROM meta WHERE key NOT IN ('built_at', 'postings_stamp') ORDER BY key"),
    };
  } finally {
    db.close();
  }
}

const jsonLines = (chunks: readonly Chunk[]): string => chunks.map((c) => `${JSON.stringify(c)}\n`).join('');

/** A temp root with the shipped user dictionary in its rawdoc/. */
function setUpRoot(): { root: string; cleanup: () => void } {
  const tmp = makeTempRoot();
  const paths = projectPaths(tmp.root);
  mkdirSync(paths.rawdoc, { recursive: true });
  copyFileSync(path.join(repoRoot, 'rawdoc', 'userdict.txt'), path.join(paths.rawdoc, 'userdict.txt'));
  return { root: tmp.root, cleanup: () => tmp.cleanup() };
}

void describe('the keyword index written on its own thread', () => {
  const setUp = (): { root: string; cleanup: () => void; chunksFile: string } => {
    const made = setUpRoot();
    return { ...made, chunksFile: path.join(made.root, 'chunks.jsonl') };
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

  /** Builds the fixture corpus with the thread reading `written(chunks)` from the file; what the build threw. */
  const threadBuildError = async (
    written: (chunks: Chunk[]) => Chunk[],
    analyzer?: Analyzer,
  ): Promise<{ error: unknown; chunksFile: string }> => {
    const { root, cleanup, chunksFile } = setUp();
    try {
      const { chunks, docs } = readFixtureCorpus();
      writeFileSync(chunksFile, jsonLines(written(chunks)));
      const indexDir = path.join(root, 'index');
      const keywordThread = { chunksFile };
      const build = buildIndexes({
        root,
        config: testConfig(root),
        chunks,
        docs,
        indexDir,
        keywordThread,
        ...(analyzer ? { analyzer } : {}),
      });
      return {
        error: await build.then(
          () => null,
          (e: unknown) => e,
        ),
        chunksFile,
      };
    } finally {
      cleanup();
    }
  };

  void it('fails, naming the file, when the file holds other chunks than those being indexed', async () => {
    const { error, chunksFile } = await threadBuildError((chunks) => chunks.slice(1));
    assert.ok(error instanceof Error);
    assert.equal(error.message, `${chunksFile}: the keyword index thread read other chunks than those being indexed`);
  });

  void it('refuses an analyzer the configuration does not build, rather than index other tokens', async () => {
    const { error } = await threadBuildError((chunks) => chunks, createAnalyzer(['自定义词 100000 n']));
    assert.ok(error instanceof Error);
    assert.match(error.message, /the keyword index thread's analyzer is .*, not jieba-search\+num4\+user:1:/);
  });
});

void describe('ingest with the keyword index on its own thread', () => {
  void it('writes the index the calling thread would, from the staged chunks (a notes book of 1,200 articles)', async () => {
    const { root, cleanup } = setUpRoot();
    try {
      // Enough chunks for ingest to hand the keyword index to its thread (where the machine has a second core).
      const articles = Array.from(
        { length: 1200 },
        (_, i) => `## 第${i + 1}条\n\n基金管理人应当按照第${i + 1}项约定，在${(i % 28) + 2}个工作日内向基金份额持有人披露净值${i}。\n`,
      );
      writeFileSync(path.join(root, 'rawdoc', '条文.md'), `# 基金条文\n\n${articles.join('\n')}`);
      const config = testConfig(root);
      const result = await runIngest({ root, config });
      const paths = projectPaths(root);
      const chunks = readFileSync(paths.chunks, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Chunk);
      assert.ok(chunks.length >= 1000, `${chunks.length} chunks`);
      assert.equal(result.index?.ftsRows, chunks.length);
      const here = path.join(root, 'here.db');
      writeFtsIndex(here, chunks, analyzerFromConfig(root, config, { wholeCorpus: true }).analyzer);
      assert.deepEqual(tables(paths.ftsDb), tables(here));
    } finally {
      cleanup();
    }
  });
});

import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import { buildIndexes, type IndexBuildResult } from '../../src/indexing/build-indexes.js';
import { KEYWORD_POSTINGS_FILE } from '../../src/indexing/keyword-postings.js';
import { projectPaths } from '../../src/paths.js';
import { markStagingComplete, prepareStaging, swapIntoPlace } from '../../src/store/atomic-swap.js';
import type { Chunk, IndexDoc } from '../../src/types.js';
import { fixturesDir, makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';

/** The tiny hand-written corpus of test/fixtures/retrieve/. */
export function readFixtureCorpus(): { chunks: Chunk[]; docs: IndexDoc[] } {
  const dir = path.join(fixturesDir, 'retrieve');
  const lines = (file: string): string[] =>
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
  return {
    chunks: lines('chunks.jsonl').map((l) => {
      const c = JSON.parse(l) as Omit<Chunk, 'headings' | 'articles' | 'page_breaks'>;
      return { headings: [c.chapter, c.section].filter((h) => h !== ''), articles: [], page_breaks: [], ...c };
    }),
    docs: lines('docs_for_index.jsonl').map((l) => JSON.parse(l) as IndexDoc),
  };
}

/** A configuration for a temp root with no environment leaking in (the developer's OPENAI_* etc.). */
export function testConfig(root: string, patch: (c: ExamCopilotConfig) => void = () => undefined): ExamCopilotConfig {
  const { config } = loadConfig({ root, env: {} });
  config.vector.backend = 'js';
  patch(config);
  return config;
}

export interface FixtureIndex extends TempRoot {
  config: ExamCopilotConfig;
  result: IndexBuildResult;
  chunks: Chunk[];
}

/**
 * A temp root with the shipped user dictionary, the fixture corpus in data/ and indexes built into
 * index/ by the real buildIndexes (as ingest does).
 */
export async function buildFixtureIndex(patch?: (c: ExamCopilotConfig) => void, corpus = readFixtureCorpus()): Promise<FixtureIndex> {
  const tmp = makeTempRoot();
  const paths = projectPaths(tmp.root);
  mkdirSync(paths.rawdoc, { recursive: true });
  copyFileSync(path.join(repoRoot, 'rawdoc', 'userdict.txt'), path.join(paths.rawdoc, 'userdict.txt'));
  mkdirSync(paths.data, { recursive: true });
  cpSync(path.join(fixturesDir, 'retrieve', 'outline.json'), paths.outline);
  const config = testConfig(tmp.root, patch);
  const result = await buildIndexes({ root: tmp.root, config, chunks: corpus.chunks, docs: corpus.docs, indexDir: paths.index });
  return { ...tmp, config, result, chunks: corpus.chunks };
}

/**
 * Rebuilds the fixture's index in a staging folder and swaps it into place with the store's own swap, as an
 * `ingest --force` does: readers see a new index generation (a new file) with the same content.
 */
export async function swapInRebuiltIndex(fx: FixtureIndex, corpus = readFixtureCorpus()): Promise<void> {
  const staging = prepareStaging(fx.root);
  cpSync(projectPaths(fx.root).outline, path.join(staging.data, 'outline.json'));
  await buildIndexes({ root: fx.root, config: fx.config, chunks: corpus.chunks, docs: corpus.docs, indexDir: staging.index });
  markStagingComplete(fx.root);
  swapIntoPlace(fx.root);
}

/**
 * Removes the build's keyword postings file, as in an index written before ingest wrote one: FTS5 then ranks every
 * keyword query, on a thread from `retrieval.parallelAbove` chunks. Fails when there was no file to remove.
 */
export function dropKeywordPostings(root: string): void {
  rmSync(path.join(projectPaths(root).index, KEYWORD_POSTINGS_FILE));
}

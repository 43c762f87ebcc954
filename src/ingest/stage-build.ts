import { closeSync, existsSync, fsyncSync, openSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { prepareStaging } from '../store/atomic-swap.js';
import { configFingerprint, PARSER_VERSION, type Manifest } from '../store/manifest.js';
import type { Analyzer } from '../text/analyzer.js';
import type { Chunk, IndexDoc, Warning } from '../types.js';
import type { IngestProgress, IngestResult } from './ingest-types.js';
import { indexDocFor } from './make-chunks.js';
import type { BuiltSource } from './source-results.js';

/** Writing a build into the staging area: its data files, its indexes, and flushing both to disk before the swap. */

/** The data files of a build, in index order. */
export interface StagedData {
  staging: { data: string; index: string };
  chunks: Chunk[];
  docs: IndexDoc[];
}

type Progress = ((event: IngestProgress) => void) | undefined;

/** Step: writes chunks.jsonl, docs_for_index.jsonl, outline.json and manifest.json into a fresh staging area. */
export function writeStagedData(input: {
  root: string;
  config: ExamCopilotConfig;
  built: readonly BuiltSource[];
  dictionaryHash: string;
}): StagedData {
  const staging = prepareStaging(input.root);
  const ordered = [...input.built].sort((a, b) => a.record.source.localeCompare(b.record.source));
  const chunks = ordered.flatMap((b) => b.chunks);
  const docs = chunks.map(indexDocFor);
  const outline = ordered.flatMap((b) => b.outline);
  const manifest: Manifest = {
    version: 1,
    parserVersion: PARSER_VERSION,
    configFingerprint: configFingerprint(input.config),
    dictionaryHash: input.dictionaryHash,
    builtAt: new Date().toISOString(),
    sources: ordered.map((b) => b.record),
  };
  const dir = staging.data;
  writeFileSync(path.join(dir, 'chunks.jsonl'), chunks.map((c) => JSON.stringify(c)).join('\n') + (chunks.length ? '\n' : ''));
  writeFileSync(path.join(dir, 'docs_for_index.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + (docs.length ? '\n' : ''));
  writeFileSync(path.join(dir, 'outline.json'), `${JSON.stringify(outline, null, 1)}\n`);
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return { staging, chunks, docs };
}

/**
 * Chunks from which the keyword index is written on its own thread while the embedder is fitted. The thread takes
 * about 0.35 s to start (it loads jieba's whole dictionary again), which a small corpus's fit does not cover: on the
 * 56-chunk sample the thread made ingest slower; the 1,472-chunk fund-law book's fit covers it.
 */
const KEYWORD_THREAD_CHUNKS = 1000;

/** Step: builds sqlite_fts.db and faiss/ in the staged index folder (the one meeting point with indexing). */
export async function buildStagedIndexes(input: {
  root: string;
  config: ExamCopilotConfig;
  staged: StagedData;
  liveIndex: string;
  /** The analyzer of the whole corpus, built while the sources were parsed. */
  analyzer: Analyzer;
  onProgress: Progress;
}): Promise<{ index: NonNullable<IngestResult['index']>; warnings: Warning[] }> {
  const { staged } = input;
  input.onProgress?.({ kind: 'stage', stage: 'index', detail: `${staged.chunks.length} chunks` });
  const { buildIndexes } = await import('../indexing/build-indexes.js');
  const result = await buildIndexes({
    root: input.root,
    config: input.config,
    chunks: staged.chunks,
    docs: staged.docs,
    indexDir: staged.staging.index,
    analyzer: input.analyzer,
    // The analyzer is analyzerFromConfig's for the whole corpus, so the keyword index's thread can build the same one;
    // it reads the chunks from the staged file just written.
    ...(availableParallelism() > 1 && staged.chunks.length >= KEYWORD_THREAD_CHUNKS
      ? { keywordThread: { chunksFile: path.join(staged.staging.data, 'chunks.jsonl') } }
      : {}),
    ...(existsSync(input.liveIndex) ? { previousIndexDir: input.liveIndex } : {}),
    onProgress: (p) => input.onProgress?.({ kind: 'index', stage: p.stage, done: p.done, total: p.total }),
  });
  const index = {
    ftsRows: result.ftsRows,
    vectors: result.vectors,
    embedderId: result.embedderId,
    vectorBackend: result.vectorBackend,
    embedded: result.embedded,
    cached: result.cached,
  };
  return { index, warnings: result.warnings };
}

/** Flushes one file or folder to disk. Folders cannot be opened for fsync on Windows; there the rename is what counts. */
function syncPath(file: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    fsyncSync(fd);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EACCES' && code !== 'EINVAL') throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Step: flushes every staged file, then every staged folder, to disk. The swap that follows is marked complete and
 * then rolled forward after a crash; without the flush a power cut could leave it pointing at files the disk never got.
 */
export function syncStaging(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) syncStaging(full);
    else if (entry.isFile()) syncPath(full);
  }
  syncPath(dir);
}

import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { projectPaths } from '../paths.js';
import type { Analyzer } from '../text/analyzer.js';
import { analyzerFromConfig } from '../text/analyzer-from-config.js';
import type { Chunk, IndexDoc, Warning } from '../types.js';
import { createEmbedder } from './embedders/create-embedder.js';
import { EmbeddingCache, embedWithCache } from './embedding-cache.js';
import { startFtsWriteThread } from './fts-write-thread.js';
import { writeFtsIndex } from './fts-writer.js';
import { writeQuantizedCodes } from './scalar-quantizer.js';
import { createVectorIndex } from './vector-index.js';
import { configuredModel, VECTOR_FILES, writeVectorMeta } from './vector-meta.js';

/** Progress of one indexing stage, for ingest's spinner. */
export interface IndexProgress {
  stage: 'fts' | 'fit' | 'embed' | 'vector';
  done: number;
  total: number;
}

export interface BuildIndexesOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Chunks in index order; `docs` holds the text both indexes see, in the same order. */
  chunks: readonly Chunk[];
  docs: readonly IndexDoc[];
  /** The (staging) `index/` folder to write `sqlite_fts.db` and `faiss/` into. */
  indexDir: string;
  /** The live index being replaced: an LSA fit of an identical corpus is reused from it. */
  previousIndexDir?: string;
  onProgress?: (progress: IndexProgress) => void;
  /** Defaults to one built from `config.userDict`; tests pass their own. */
  analyzer?: Analyzer;
  /**
   * Writes the keyword index on a worker thread while this thread fits and embeds (`startFtsWriteThread`), reading
   * `chunks` from `chunksFile`, where they are written one JSON object per line (checked against `chunks` by id). Only
   * for the analyzer `analyzerFromConfig(root, config, { wholeCorpus: true })` builds (the thread builds its own that
   * way, and fails on another fingerprint). The files are the same either way.
   */
  keywordThread?: { chunksFile: string };
}

export interface IndexBuildResult {
  chunks: number;
  ftsRows: number;
  vectors: number;
  embedderId: string;
  embedderKind: ExamCopilotConfig['embedder']['kind'];
  dimension: number;
  vectorBackend: 'faiss' | 'js';
  indexKind: 'flat' | 'hnsw';
  /** Texts sent to the embedder vs read back from the embedding cache. */
  embedded: number;
  cached: number;
  /** LSA reused the previous fit because the corpus did not change. */
  reusedFit: boolean;
  analyzer: string;
  timingsMs: { fts: number; embedder: number; embed: number; vector: number; total: number };
  warnings: Warning[];
}

/**
 * The one function where ingest and indexing meet: builds `sqlite_fts.db` (FTS5 over jieba-segmented
 * text) and `faiss/` (vectors of `docs[i].text`, row i = `chunks[i]`) inside `indexDir`.
 * Throws when chunks and docs disagree; everything else that is recoverable becomes a warning.
 */
export async function buildIndexes(options: BuildIndexesOptions): Promise<IndexBuildResult> {
  const t0 = performance.now();
  const { config, chunks, docs, indexDir } = options;
  if (chunks.length !== docs.length) throw new Error(`buildIndexes: ${chunks.length} chunks but ${docs.length} docs`);
  chunks.forEach((c, i) => {
    if (docs[i]!.chunk_id !== c.chunk_id)
      throw new Error(`buildIndexes: docs[${i}] is ${docs[i]!.chunk_id}, chunks[${i}] is ${c.chunk_id}`);
  });
  const warnings: Warning[] = [];
  let analyzer = options.analyzer;
  if (!analyzer) {
    const built = analyzerFromConfig(options.root, config, { wholeCorpus: true });
    analyzer = built.analyzer;
    warnings.push(...built.warnings);
  }
  const progress = options.onProgress ?? (() => undefined);
  mkdirSync(indexDir, { recursive: true });

  const ftsFile = path.join(indexDir, 'sqlite_fts.db');
  rmSync(ftsFile, { force: true });
  const keyword = writeKeywordIndex(options, ftsFile, analyzer, progress);
  try {
    return await buildVectors({ options, analyzer, warnings, progress, keyword: keyword.written, t0 });
  } finally {
    keyword.stop();
  }
}

/** The keyword index being written: its rows and the time it took, once done. */
interface KeywordWrite {
  written: Promise<{ rows: number; ms: number }>;
  stop(): void;
}

/** Writes the keyword index here, before anything else, or on its thread (`keywordThread`) while the caller goes on. */
function writeKeywordIndex(
  options: BuildIndexesOptions,
  file: string,
  analyzer: Analyzer,
  progress: (progress: IndexProgress) => void,
): KeywordWrite {
  const { chunks } = options;
  const started = performance.now();
  const finished = (rows: number): { rows: number; ms: number } => {
    progress({ stage: 'fts', done: chunks.length, total: chunks.length });
    return { rows, ms: performance.now() - started };
  };
  if (!options.keywordThread) {
    const rows = writeFtsIndex(file, chunks, analyzer, (done) => progress({ stage: 'fts', done, total: chunks.length }));
    return { written: Promise.resolve(finished(rows)), stop: () => undefined };
  }
  const thread = startFtsWriteThread({
    file,
    chunksFile: options.keywordThread.chunksFile,
    root: options.root,
    config: options.config,
    analyzer: analyzer.fingerprint,
  });
  const written = thread.result.then((ids) => {
    if (ids.length !== chunks.length || ids.some((id, i) => id !== chunks[i]!.chunk_id))
      throw new Error(`${options.keywordThread?.chunksFile ?? ''}: the keyword index thread read other chunks than those being indexed`);
    return finished(ids.length);
  });
  // Awaited once the vectors are built; a failure meanwhile must not go unhandled.
  written.catch(() => undefined);
  return { written, stop: () => thread.stop() };
}

/** The embedder fit, the corpus vectors and the vector index; then the result, once the keyword index is written. */
async function buildVectors(input: {
  options: BuildIndexesOptions;
  analyzer: Analyzer;
  warnings: Warning[];
  progress: (progress: IndexProgress) => void;
  keyword: Promise<{ rows: number; ms: number }>;
  t0: number;
}): Promise<IndexBuildResult> {
  const { options, analyzer, warnings, progress, t0 } = input;
  const { config, chunks, docs, indexDir } = options;
  const t1 = performance.now();

  const faissDir = path.join(indexDir, 'faiss');
  rmSync(faissDir, { recursive: true, force: true });
  mkdirSync(faissDir, { recursive: true });
  const texts = docs.map((d) => d.text);
  progress({ stage: 'fit', done: 0, total: texts.length });
  const { embedder, reused, corpusVectors } = await createEmbedder(config, {
    root: options.root,
    indexDir,
    analyzer,
    textsForFit: texts,
    onFitProgress: (done, total) => progress({ stage: 'fit', done, total }),
    ...(options.previousIndexDir ? { previousIndexDir: options.previousIndexDir } : {}),
  });
  progress({ stage: 'fit', done: texts.length, total: texts.length });
  const t2 = performance.now();

  let embedded: Awaited<ReturnType<typeof embedWithCache>>;
  if (corpusVectors) {
    // A fresh LSA fit embedded the corpus as it fitted; its id is new, so the cache could not hold these anyway.
    embedded = { vectors: corpusVectors, embedded: corpusVectors.length, cached: 0 };
    progress({ stage: 'embed', done: texts.length, total: texts.length });
  } else {
    const cache = new EmbeddingCache(projectPaths(options.root).embeddingCache);
    try {
      embedded = await embedWithCache(embedder, texts, cache, (done, total) => progress({ stage: 'embed', done, total }));
    } finally {
      cache.close();
    }
  }
  const t3 = performance.now();

  const index = await createVectorIndex({
    dimension: embedder.dimension,
    kind: config.vector.index,
    backend: config.vector.backend,
    hnswM: config.vector.hnswM,
  });
  index.add(embedded.vectors);
  index.write(path.join(faissDir, VECTOR_FILES.index));
  if (index.kind === 'flat' && chunks.length >= config.vector.quantizeAbove && chunks.length > 0) {
    writeQuantizedCodes(path.join(faissDir, VECTOR_FILES.quantized), embedded.vectors, embedder.dimension);
  }
  writeVectorMeta(
    faissDir,
    {
      embedderId: embedder.id,
      embedderKind: config.embedder.kind,
      embedderModel: configuredModel(config),
      requestedDimension: config.embedder.dimension,
      dimension: embedder.dimension,
      normalized: true,
      count: chunks.length,
      indexKind: index.kind,
      backend: index.backend,
      builtAt: new Date().toISOString(),
      // The keyword index writes the same chunks in the same order (fts-writer.ts; its thread's ids are checked).
      keywordRows: true,
    },
    chunks.map((c) => c.chunk_id),
  );
  progress({ stage: 'vector', done: chunks.length, total: chunks.length });
  const t4 = performance.now();
  const keyword = await input.keyword;
  warnings.push(...index.warnings);
  if (config.vector.backend === 'auto' && index.backend === 'js') {
    warnings.push({
      where: 'index/faiss',
      message: 'FAISS native binding unavailable; wrote the index with the exact JS backend (same file format)',
    });
  }

  return {
    chunks: chunks.length,
    ftsRows: keyword.rows,
    vectors: index.size,
    embedderId: embedder.id,
    embedderKind: config.embedder.kind,
    dimension: embedder.dimension,
    vectorBackend: index.backend,
    indexKind: index.kind,
    embedded: embedded.embedded,
    cached: embedded.cached,
    reusedFit: reused,
    analyzer: analyzer.fingerprint,
    timingsMs: { fts: keyword.ms, embedder: t2 - t1, embed: t3 - t2, vector: t4 - t3, total: performance.now() - t0 },
    warnings,
  };
}

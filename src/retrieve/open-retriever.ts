import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError } from '../errors.js';
import { analyzerFromConfig } from '../text/analyzer-from-config.js';
import type { Analyzer } from '../text/analyzer.js';
import { addPassageTokens } from '../text/passage-windows.js';
import { createEmbedder } from '../indexing/embedders/create-embedder.js';
import { openFtsIndex } from '../indexing/fts-index.js';
import { openVectorIndex } from '../indexing/vector-index.js';
import { assertEmbedderMatches, assertSameEmbedderId, readVectorMeta, VECTOR_FILES } from '../indexing/vector-meta.js';
import { openReadableRoot } from '../store/atomic-swap.js';
import { fileGeneration, vectorFilesGeneration } from '../store/index-generation.js';
import type { Chunk, Hit, Searcher, Warning } from '../types.js';
import { applyExamPriority } from './exam-priority.js';
import { HybridSearcher, PHRASE_HEAD_CHARACTERS, RELEVANCE_HEAD } from './hybrid-searcher.js';
import { ranksOnThread, scansOnThread, type PrestartedSearchThread } from './prestart-search-thread.js';
import { applyQuotePriority } from './quote-priority.js';
import { KeywordSearcher, ThreadedKeywordSearcher } from './keyword-searcher.js';
import { dedupeHits, expandNeighbours, takeEvidence } from './post-process.js';
import { BUDGET_MAX_HITS, type RetrievalMode, type Retriever, type RetrieveOptions } from './retriever.js';
import { ThreadedVectors } from './threaded-vectors.js';
import { VectorSearcher, type SearchableVectors } from './vector-searcher.js';

export interface OpenRetrieverOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Overrides `config.vector.backend` (benchmarks compare faiss and js on one index). */
  backend?: 'auto' | 'faiss' | 'js';
  /**
   * The analyzer for this root and config (`analyzerFromConfig`) when the caller has already built it: loading
   * jieba's dictionary is the largest part of opening, and the answerer needs the same analyzer.
   */
  analyzer?: { analyzer: Analyzer; warnings: readonly Warning[] };
  /**
   * Keyword rankings and vector searches remembered by query (0 or absent: none). Worth it where the same texts are
   * searched again, as eval's modes do; off elsewhere, so a search's latency is its own.
   */
  searchCacheEntries?: number;
  /**
   * A search thread started on this root's index before it was opened (`prestartSearchThread`, a one-shot ask). Used
   * when the hybrid ranks its keywords or scans its vectors on a thread, as this one does, on the same file; closed
   * otherwise.
   */
  searchThread?: PrestartedSearchThread;
}

/** A Retriever plus the warnings met while opening it (e.g. a missing user dictionary). */
export interface OpenedRetriever extends Retriever {
  readonly warnings: readonly Warning[];
  /**
   * Those of `warnings` the vector files gave while opening (codes that do not fit, an HNSW index searched exactly):
   * a search slower than the index was built for, which `doctor` reports.
   */
  readonly vectorWarnings: readonly Warning[];
  /** The searchers behind each mode, for benchmarks and tests. */
  readonly searchers: Readonly<Record<RetrievalMode, Searcher>>;
  /** Document frequencies the index stores for the answerer's corpus statistics; null for an older index. */
  readonly corpusFrequency: ((token: string) => number) | null;
  /**
   * A hybrid search runs one of its two searches on a worker thread, concurrently with the other (`retrieval.parallelAbove`):
   * the keyword ranking (an index without the postings file) or the vector scan (vectors searched through their codes).
   */
  readonly parallelHybrid: boolean;
  /** The analyzer queries are cut with (the answerer given this retriever cuts questions with it too). */
  readonly analyzer: Analyzer;
  /** The chunks of one source with `seq` in [from, to], in seq order, read by key (the agent's `read`). */
  chunksBySeq(source: string, from: number, to: number): Chunk[];
  /** At most `limit` chunks whose printed pages overlap [from, to], of one book or (null) any, in index order. */
  chunksOnPages(book: string | null, from: number, to: number, limit: number): Chunk[];
  /** Settles once the search thread (keyword or vector) is ready (true), or when there is none or it could not start (false). */
  threadReady(): Promise<boolean>;
}

/**
 * Extra candidates fetched beyond k so that deduplication and the exam-priority rule, which run after
 * retrieval, still leave k hits and can lift a table from just below the cut.
 */
export function candidateCount(k: number): number {
  return Math.max(k * 2, k + 10);
}

/**
 * The root's paths once its index can be read: an ingest killed mid-swap leaves index/ half replaced, which is
 * finished or rolled back first. Throws NotReadyError (exit 5) when there is no index. Cheap, so a caller can check
 * before building what reading the index needs (jieba's dictionary takes a quarter of a second on a new root).
 */
export function readableIndex(root: string): ReturnType<typeof openReadableRoot> {
  const paths = openReadableRoot(root);
  if (!existsSync(paths.ftsDb) || !existsSync(path.join(paths.faissDir, VECTOR_FILES.meta))) {
    throw new NotReadyError(`no index at ${paths.index}; run \`exam-copilot ingest\``);
  }
  return paths;
}

/**
 * Opens `index/` under the root: the FTS5 keyword index, the vector index and the embedder it was built
 * with. Throws NotReadyError (exit 5) when there is no index, or when the configured embedder or user
 * dictionary differs from the one the index was built with, saying to re-ingest.
 */
export async function openRetriever(options: OpenRetrieverOptions): Promise<OpenedRetriever> {
  try {
    return await openIndexes(options);
  } catch (error) {
    // Whatever failed, the thread started for this index ranks nothing (closing it twice is harmless).
    void options.searchThread?.thread.close();
    throw error;
  }
}

async function openIndexes(options: OpenRetrieverOptions): Promise<OpenedRetriever> {
  const { root, config } = options;
  const paths = readableIndex(root);
  const built = options.analyzer ?? analyzerFromConfig(root, config);
  const { analyzer } = built;
  const { meta, ids } = readVectorMeta(paths.faissDir);
  assertEmbedderMatches(meta, config);
  const remember = options.searchCacheEntries ?? 0;
  const prestarted = options.searchThread;
  const before = fileGeneration(paths.ftsDb);
  const fts = openFtsIndex(paths.ftsDb, analyzer, { rememberRankings: remember });
  // The build this connection reads, when no swap came between the two looks: a thread ranks only for that build.
  const generation = fileGeneration(paths.ftsDb) === before ? before : null;
  const warnings: Warning[] = [...built.warnings];
  if (fts.missing.length > 0) {
    warnings.push({
      where: paths.ftsDb,
      message: `written by an earlier version, without ${fts.missing.join(' and ')}; run \`exam-copilot ingest --force\` to rebuild it`,
    });
  }
  let closeEmbedder = (): void => undefined;
  let closeThread = (): void => undefined;
  let closeVectors = (): void => undefined;
  let vectorWarnings: readonly Warning[] = [];
  let threadReady: Promise<boolean> = Promise.resolve(false);
  let keywordForHybrid: Searcher | undefined;
  try {
    // Chunks are read from SQLite by key when a hit needs them; the whole table is loaded only when a caller
    // asks for `chunks` (corpus statistics), never to answer one search.
    const vectorCount = ids?.length ?? meta.count;
    if (fts.count !== vectorCount) {
      throw new NotReadyError(
        `${paths.faissDir} holds ${vectorCount} vectors but ${paths.ftsDb} ${fts.count} chunks; run \`exam-copilot ingest --force\``,
      );
    }
    const notThere = (what: string): NotReadyError =>
      new NotReadyError(`${paths.faissDir}: ${what} is not in ${paths.ftsDb}; run \`exam-copilot ingest --force\``);
    // Vector row r is keyword row r + 1 in an index that records it (`VectorMeta.keywordRows`), else ids.json says.
    const chunkAt = ids
      ? (row: number): Chunk | undefined => {
          const id = ids[row];
          if (id === undefined) return undefined;
          const c = fts.chunkById(id);
          if (!c) throw notThere(`chunk ${id}`);
          return c;
        }
      : (row: number): Chunk | undefined => {
          if (!Number.isInteger(row) || row < 0 || row >= vectorCount) return undefined;
          const c = fts.chunkAtRow(row + 1);
          if (!c) throw notThere(`row ${row + 1}`);
          return c;
        };
    // On a large index the hybrid ranks its keyword query on a worker thread while the vector scan runs here (FAISS
    // cannot move: faiss-node works only on the thread that loaded it). Keyword-only searches gain nothing from it.
    // Started before the embedder and the vector file are read (a one-shot ask starts it sooner still, before it loads
    // the answerer), so the thread opens its connection meanwhile and the first queries find it ready.
    if (ranksOnThread(fts.count, config, fts.ranksFromPostings) && generation !== null) {
      const { startFtsRankThread } = await import('../indexing/fts-rank-thread.js');
      const own = prestarted?.kind === 'keyword' && prestarted.thread.file === fts.file ? prestarted.thread : undefined;
      if (prestarted && !own) void prestarted.thread.close();
      const thread = own ? own.start(fts.rankerOptions, generation) : startFtsRankThread(fts.file, fts.rankerOptions, generation);
      closeThread = () => void thread.close();
      threadReady = thread.settled;
      keywordForHybrid = new ThreadedKeywordSearcher(fts, thread);
    } else if (prestarted?.kind === 'keyword') {
      void prestarted.thread.close();
    }
    const { embedder } = await createEmbedder(config, { root, indexDir: paths.index, analyzer });
    closeEmbedder = () => embedder.close?.();
    assertSameEmbedderId(meta, embedder.id);
    // The vectors are read at the first vector search, after a hybrid search has posted its keyword queries.
    const backend = options.backend ?? config.vector.backend;
    const files = { file: path.join(paths.faissDir, VECTOR_FILES.index), codes: path.join(paths.faissDir, VECTOR_FILES.quantized) };
    const vectorsBefore = vectorFilesGeneration(files);
    const index = await openVectorIndex(files.file, {
      backend,
      // The 8-bit scan serves where there are codes, unless a backend is asked for by name (FAISS or the exact JS index).
      ...(backend === 'auto' ? { quantized: files.codes } : {}),
    });
    closeVectors = () => index.close();
    // What the vector files said while opening (codes that do not fit, so the exact index serves; HNSW searched exactly):
    // a slower search than the index was built for, which the caller shows.
    warnings.push(...index.warnings);
    vectorWarnings = index.warnings;
    // The build these files are, when no swap came between the two looks: a thread scans only for that build.
    const vectorGeneration = vectorFilesGeneration(files) === vectorsBefore ? vectorsBefore : null;
    if (index.size !== vectorCount || index.dimension !== embedder.dimension) {
      throw new NotReadyError(
        `${paths.faissDir}: the index holds ${index.size}×${index.dimension} vectors, expected ${vectorCount}×${embedder.dimension}; run \`exam-copilot ingest --force\``,
      );
    }
    // Searched through their codes on a large index whose keyword ranking stays here: the scan runs on a thread, and
    // `index`, which reads nothing until searched, serves only if the thread cannot start.
    let vectors: SearchableVectors = index;
    const prestartedScan = prestarted?.kind === 'vector' ? prestarted.thread : undefined;
    // (`scansOnThread` holds only where the keyword ranking does not go to a thread: never both.)
    if (index.backend === 'sq8' && vectorGeneration !== null && scansOnThread(fts.count, config, fts.ranksFromPostings)) {
      const own = prestartedScan?.file === files.file ? prestartedScan : undefined;
      if (prestartedScan && !own) void prestartedScan.close();
      const thread = (own ?? (await import('../indexing/vector-scan-thread.js')).prestartVectorScanThread(files)).start(
        null,
        vectorGeneration,
      );
      closeThread = () => void thread.close();
      threadReady = thread.settled;
      vectors = new ThreadedVectors(thread, index);
    } else {
      void prestartedScan?.close();
    }
    const keyword = new KeywordSearcher(fts);
    const vector = new VectorSearcher(embedder, vectors, chunkAt, { remember });
    const hybrid = new HybridSearcher(keywordForHybrid ?? keyword, vector, {
      rrfK: config.retrieval.rrfK,
      weights: config.retrieval.weights,
      depth: config.retrieval.depth,
      keywordDepth: config.retrieval.keywordDepth,
      ...(fts.characterStatistics && config.retrieval.phraseWeight > 0
        ? {
            phrases: {
              stats: fts.characterStatistics,
              depth: RELEVANCE_HEAD,
              characters: PHRASE_HEAD_CHARACTERS,
              weight: config.retrieval.phraseWeight,
            },
          }
        : {}),
      budgetHead: RELEVANCE_HEAD,
      vectorsOnThread: vectors !== index,
    });
    const searchers: Record<RetrievalMode, Searcher> = { keyword, vector, hybrid };
    let all: Chunk[] | null = null;
    const neighbourhood = (hits: readonly Hit[], n: number): Chunk[] =>
      hits.flatMap((h) => fts.chunksBySeq(h.chunk.source, h.chunk.seq - n, h.chunk.seq + n));
    return {
      warnings,
      vectorWarnings,
      searchers,
      corpusFrequency: fts.corpusFrequency,
      analyzer,
      get chunks(): readonly Chunk[] {
        all ??= fts.loadChunks();
        return all;
      },
      embedderId: embedder.id,
      vectorBackend: index.backend,
      size: fts.count,
      chunk: (id) => fts.chunkById(id),
      chunksBySeq: (source, from, to) => fts.chunksBySeq(source, from, to),
      chunksOnPages: (book, from, to, limit) => fts.chunksOnPages(book, from, to, limit),
      passageTokens(chunk) {
        const known = new Map<string, readonly string[]>();
        const stored = fts.chunkById(chunk.chunk_id);
        if (!stored) return known;
        // A hit merged or expanded from neighbours keeps one id but spans several stored chunks: read them all.
        const parts = stored.text === chunk.text ? [stored] : fts.chunksInRange(chunk.source, chunk.char_start, chunk.char_end);
        for (const part of parts) {
          const tokens = fts.passageTokens(part.chunk_id);
          if (tokens) addPassageTokens(known, part, tokens);
        }
        return known;
      },
      search: (query, opts) => retrieve(searchers, neighbourhood, query, opts, config.retrieval.neighbours),
      searchMany: (queries, opts) => retrieveMany(searchers, neighbourhood, queries, opts, config.retrieval.neighbours),
      parallelHybrid: keywordForHybrid !== undefined || vectors !== index,
      threadReady: () => threadReady,
      close: () => {
        closeThread();
        closeVectors();
        fts.close();
        closeEmbedder();
      },
    };
  } catch (error) {
    closeThread();
    closeVectors();
    fts.close();
    closeEmbedder();
    throw error;
  }
}

/**
 * One retrieval: candidates from the mode's searcher, the quotation and exam-priority rules, deduplication of
 * overlapping chunks, the cut to k (small units counted by size with `unitChars`), then neighbour expansion (and a second dedupe, since expanded
 * hits can now cover each other).
 */
export async function retrieve(
  searchers: Readonly<Record<RetrievalMode, Searcher>>,
  neighbourhood: (hits: readonly Hit[], n: number) => readonly Chunk[],
  query: string,
  options: RetrieveOptions,
  defaultNeighbours = 0,
): Promise<Hit[]> {
  if (query.trim() === '' || options.k <= 0) return [];
  const candidates = await searchers[options.mode].search(query, candidateCount(wanted(options)), options.filter);
  return finishRetrieval(neighbourhood, query, candidates, options, defaultNeighbours);
}

/**
 * `retrieve` for several queries, whose searches run together where the mode's searcher can (`Searcher.searchMany`):
 * each query gets exactly the hits `retrieve` gives it, up to the last bits of vector scores (see
 * `FaissVectorIndex.searchMany`).
 */
export async function retrieveMany(
  searchers: Readonly<Record<RetrievalMode, Searcher>>,
  neighbourhood: (hits: readonly Hit[], n: number) => readonly Chunk[],
  queries: readonly string[],
  options: RetrieveOptions,
  defaultNeighbours = 0,
): Promise<Hit[][]> {
  const searcher = searchers[options.mode];
  const asked = queries.filter((q) => q.trim() !== '');
  if (!searcher.searchMany || asked.length < 2 || options.k <= 0) {
    const out: Hit[][] = [];
    for (const q of queries) out.push(await retrieve(searchers, neighbourhood, q, options, defaultNeighbours));
    return out;
  }
  const found = await searcher.searchMany(asked, candidateCount(wanted(options)), options.filter);
  const byQuery = new Map(asked.map((q, i) => [q, found[i]!] as const));
  return queries.map((q) => {
    const candidates = byQuery.get(q);
    return candidates ? finishRetrieval(neighbourhood, q, candidates, options, defaultNeighbours) : [];
  });
}

/** Room for k hits of units a fifth of unitChars long (article units are rarely shorter), within BUDGET_MAX_HITS. */
function wanted(options: RetrieveOptions): number {
  const unitChars = options.unitChars ?? 0;
  return unitChars > 0 ? Math.max(options.k, Math.min(BUDGET_MAX_HITS, options.k * 5)) : options.k;
}

/** A search's candidates through the rules, deduplication, the cut and neighbour expansion (`retrieve`). */
function finishRetrieval(
  neighbourhood: (hits: readonly Hit[], n: number) => readonly Chunk[],
  query: string,
  candidates: Hit[],
  options: RetrieveOptions,
  defaultNeighbours: number,
): Hit[] {
  const ranked = takeEvidence(
    dedupeHits(applyQuotePriority(query, applyExamPriority(query, candidates))),
    options.k,
    options.unitChars ?? 0,
    wanted(options),
  );
  const n = options.neighbours ?? defaultNeighbours;
  return n > 0 ? dedupeHits(expandNeighbours(ranked, neighbourhood(ranked, n), n)) : ranked;
}

/**
 * The contract every vector index implements (`FaissVectorIndex`, `FlatVectorIndex`) and the argument checks they
 * share. Kept apart from the factory in `vector-index.ts`, which imports the implementations, so that the
 * implementations do not import their own factory.
 */
import { NotReadyError } from '../errors.js';
import type { Warning } from '../types.js';

/**
 * Which implementation serves searches: FAISS, the exact JS index, or the 8-bit scan with exact rescoring
 * (`QuantizedVectorIndex`, used on a large flat index next to its codes file; it writes nothing).
 */
export type VectorBackend = 'faiss' | 'js' | 'sq8';
/** Exact flat inner product, or approximate HNSW (FAISS only). */
export type VectorKind = 'flat' | 'hnsw';
/** Backend choice: `auto` takes FAISS when it loads, else JS. */
export type VectorBackendChoice = 'auto' | 'faiss' | 'js';

/** Nearest neighbours, best first: row ids (insertion order, from 0) and inner-product scores. */
export interface VectorSearchResult {
  ids: number[];
  scores: number[];
}

/** A vector index over L2-normalised vectors; scores are inner products (= cosine). */
export interface VectorIndex {
  readonly backend: VectorBackend;
  readonly kind: VectorKind;
  readonly dimension: number;
  readonly size: number;
  /** What was decided on the caller's behalf (e.g. HNSW requested but FAISS missing); never printed here. */
  readonly warnings: readonly Warning[];
  /** Appends vectors; they get ids `size .. size + n - 1`. */
  add(vectors: readonly Float32Array[]): void;
  /** The `k` best rows (fewer when the index holds fewer). */
  search(query: Float32Array, k: number): VectorSearchResult;
  /**
   * The `k` best rows of each query, where one call costs less than a search per query (FAISS's flat index: one
   * pass over the vectors); absent: search one by one.
   */
  searchMany?(queries: readonly Float32Array[], k: number): VectorSearchResult[];
  /** Writes the index in FAISS's format (creating the parent folder). */
  write(file: string): void;
}

/**
 * Throws a one-line `NotReadyError` (exit 5) when a vector's length differs from the index dimension: the index
 * was built with another embedder, the same not-ready condition as a missing or foreign index.
 */
export function checkDimension(vector: Float32Array, dimension: number, what: string): void {
  if (vector.length !== dimension) {
    throw new NotReadyError(
      `vector dimension mismatch: ${what} has ${vector.length} dimensions but the index has ${dimension}; the index was built with another embedder, re-run \`exam-copilot ingest\``,
    );
  }
}

/** Rejects a non-positive or fractional k (a programming error, not user input). */
export function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

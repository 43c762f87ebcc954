import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Warning } from '../types.js';
import type { FaissIndexHandle, FaissModule } from './load-faiss.js';
import { patchHnswParams } from './faiss-format.js';
import { FlatVectorIndex } from './flat-vector-index.js';
import { checkDimension, checkK, type VectorIndex, type VectorKind, type VectorSearchResult } from './vector-index-contract.js';

/**
 * Vectors handed to faiss-node per `add` call. It takes a plain array and reads each number through N-API, which
 * allocates a heap number and a handle per value until the call returns: batches of 8,192 vectors (2M values) left
 * ~300 MB of such garbage at the peak of a 66k-chunk ingest; small batches die young in the scavenger.
 */
const ADD_BATCH = 256;

/** FAISS's `distance_compute_blas_threshold` (its default; faiss-node cannot change it): see `searchMany`. */
const FAISS_BLAS_QUERIES = 20;

/** HNSW parameters; the efs are stored in the index file, so they survive write/read. */
export interface HnswParams {
  m: number;
  efConstruction: number;
  efSearch: number;
}

/** A FAISS index (via faiss-node) behind the project's `VectorIndex` interface. */
export class FaissVectorIndex implements VectorIndex {
  readonly backend = 'faiss' as const;
  readonly kind: VectorKind;
  readonly dimension: number;
  readonly warnings: readonly Warning[];
  private readonly faiss: FaissModule;
  private index: FaissIndexHandle;
  private readonly efSearch: number | undefined;
  private searchParamsApplied: boolean;
  /**
   * A flat index's added vectors, held here until its first search. faiss-node takes vectors as plain arrays of
   * numbers, read one by one through N-API: for a library's 66k × 256 that was 1.9 s of the 2.1 s its vectors took to
   * index. An index that is only written (ingest) never pays it: FAISS's flat file is a header and the vectors as they
   * are, which `FlatVectorIndex` writes byte for byte. An HNSW index builds its graph as vectors come, so it has none.
   */
  private pending: FlatVectorIndex | undefined;

  private constructor(
    faiss: FaissModule,
    index: FaissIndexHandle,
    kind: VectorKind,
    efSearch: number | undefined,
    warnings: readonly Warning[],
  ) {
    this.faiss = faiss;
    this.index = index;
    this.kind = kind;
    this.dimension = index.getDimension();
    this.efSearch = efSearch;
    this.searchParamsApplied = efSearch === undefined;
    this.warnings = warnings;
  }

  /** An empty exact inner-product index (`IndexFlatIP`). */
  static flat(faiss: FaissModule, dimension: number, warnings: readonly Warning[] = []): FaissVectorIndex {
    return new FaissVectorIndex(faiss, new faiss.IndexFlatIP(dimension), 'flat', undefined, warnings);
  }

  /** An empty `IndexHNSWFlat` with inner-product metric, with efConstruction set before any vector is added. */
  static hnsw(faiss: FaissModule, dimension: number, params: HnswParams, warnings: readonly Warning[] = []): FaissVectorIndex {
    const created = faiss.Index.fromFactory(dimension, `HNSW${params.m}`, faiss.MetricType.METRIC_INNER_PRODUCT);
    // faiss-node has no setter for efConstruction/efSearch; they live in the serialised index, so round-trip it.
    const buf = created.toBuffer();
    patchHnswParams(buf, 'new HNSW index', { efConstruction: params.efConstruction });
    return new FaissVectorIndex(faiss, faiss.Index.fromBuffer(buf), 'hnsw', params.efSearch, warnings);
  }

  /** Wraps an index read from disk; `kind` comes from the file's fourcc. */
  static fromHandle(faiss: FaissModule, index: FaissIndexHandle, kind: VectorKind): FaissVectorIndex {
    return new FaissVectorIndex(faiss, index, kind, undefined, []);
  }

  get size(): number {
    return this.index.ntotal() + (this.pending?.size ?? 0);
  }

  add(vectors: readonly Float32Array[]): void {
    if (this.kind === 'flat') {
      this.pending ??= new FlatVectorIndex(this.dimension);
      this.pending.add(vectors);
      return;
    }
    this.addToFaiss(vectors);
  }

  private addToFaiss(vectors: readonly Float32Array[]): void {
    for (const v of vectors) checkDimension(v, this.dimension, 'added vector');
    for (let start = 0; start < vectors.length; start += ADD_BATCH) {
      const batch = vectors.slice(start, start + ADD_BATCH);
      const flat = new Array<number>(batch.length * this.dimension);
      batch.forEach((v, row) => {
        for (let j = 0; j < this.dimension; j += 1) flat[row * this.dimension + j] = v[j] as number;
      });
      this.index.add(flat);
    }
    // efSearch is applied after adding, where the graph exists; adding more later re-applies it.
    if (this.efSearch !== undefined) this.searchParamsApplied = false;
  }

  search(query: Float32Array, k: number): VectorSearchResult {
    checkDimension(query, this.dimension, 'query vector');
    checkK(k);
    const take = Math.min(k, this.size);
    if (take === 0) return { ids: [], scores: [] };
    this.flushPending();
    this.applySearchParams();
    const result = this.index.search(Array.from(query), take);
    const ids: number[] = [];
    const scores: number[] = [];
    result.labels.forEach((label, i) => {
      // FAISS pads missing neighbours (possible with HNSW) with -1.
      if (label >= 0) {
        ids.push(label);
        scores.push(result.distances[i] as number);
      }
    });
    return { ids, scores };
  }

  /**
   * Several queries in one call. Over a flat index FAISS scores fewer than `FAISS_BLAS_QUERIES` queries one at a time,
   * each a pass over every vector, and from that many on as one matrix product (BLAS) over blocks of the vectors: so
   * a smaller batch is padded with zero queries, whose results are dropped. Measured on the law library (66,634 × 256,
   * 68 MB): five queries take a third of the time of five searches. Scores can differ from `search`'s in the last
   * bits (another summation order); the neighbours were the same.
   */
  searchMany(queries: readonly Float32Array[], k: number): VectorSearchResult[] {
    for (const q of queries) checkDimension(q, this.dimension, 'query vector');
    checkK(k);
    const take = Math.min(k, this.size);
    if (take === 0) return queries.map(() => ({ ids: [], scores: [] }));
    if (queries.length < 2 || this.kind !== 'flat') return queries.map((q) => this.search(q, k));
    this.flushPending();
    const d = this.dimension;
    const n = Math.max(queries.length, FAISS_BLAS_QUERIES);
    const flat = new Array<number>(n * d).fill(0);
    queries.forEach((q, i) => {
      for (let j = 0; j < d; j += 1) flat[i * d + j] = q[j] as number;
    });
    const result = this.index.search(flat, take);
    return queries.map((_, i) => {
      const ids: number[] = [];
      const scores: number[] = [];
      for (let r = i * take; r < (i + 1) * take; r += 1) {
        const label = result.labels[r] as number;
        if (label >= 0) {
          ids.push(label);
          scores.push(result.distances[r] as number);
        }
      }
      return { ids, scores };
    });
  }

  write(file: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    if (this.pending && this.index.ntotal() === 0) {
      this.pending.write(file);
      return;
    }
    this.flushPending();
    if (this.searchParamsApplied || this.efSearch === undefined) {
      this.index.write(file);
      return;
    }
    // The serialised index with efSearch patched in goes straight to the file: rebuilding the in-memory index from it
    // (as a search here would) holds a second copy of a large HNSW graph at the peak of an ingest. Searches in this
    // process still apply it lazily.
    const buf = this.index.toBuffer();
    patchHnswParams(buf, 'HNSW index', { efSearch: this.efSearch });
    writeFileSync(file, buf);
  }

  /** Moves the vectors a flat index holds in JS into FAISS, in added order. */
  private flushPending(): void {
    if (!this.pending) return;
    const rows = this.pending.takeAll();
    this.pending = undefined;
    this.addToFaiss(rows);
  }

  private applySearchParams(): void {
    if (this.searchParamsApplied || this.efSearch === undefined) return;
    const buf = this.index.toBuffer();
    patchHnswParams(buf, 'HNSW index', { efSearch: this.efSearch });
    this.index = this.faiss.Index.fromBuffer(buf);
    this.searchParamsApplied = true;
  }
}

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Warning } from '../types.js';
import { BestRows } from './best-rows.js';
import { encodeFlatIP } from './faiss-format.js';
import { checkDimension, checkK, type VectorIndex, type VectorSearchResult } from './vector-index-contract.js';

/**
 * Exact inner-product search in plain JS: the fallback when FAISS's native binding is unavailable.
 * Vectors arrive L2-normalised from the embedders, so inner product is cosine similarity. Storage is one
 * growable Float32Array (row-major); search scores every row and keeps the best k (`BestRows`), so a
 * query over 100k×256 costs one pass and O(n log k), not a full sort. Ties go to the lower id.
 * Writes the same bytes as FAISS's `IndexFlatIP`, so the file is interchangeable with the FAISS backend.
 */
export class FlatVectorIndex implements VectorIndex {
  readonly backend = 'js' as const;
  readonly kind = 'flat' as const;
  readonly dimension: number;
  readonly warnings: readonly Warning[];
  private data: Float32Array;
  private count = 0;

  constructor(dimension: number, initial?: { data: Float32Array; count: number }, warnings: readonly Warning[] = []) {
    if (!Number.isInteger(dimension) || dimension <= 0) throw new Error(`vector dimension must be a positive integer, got ${dimension}`);
    this.dimension = dimension;
    this.warnings = warnings;
    if (initial) {
      this.data = initial.data;
      this.count = initial.count;
    } else {
      this.data = new Float32Array(dimension * 1024);
    }
  }

  get size(): number {
    return this.count;
  }

  add(vectors: readonly Float32Array[]): void {
    const d = this.dimension;
    for (const v of vectors) checkDimension(v, d, 'added vector');
    const needed = (this.count + vectors.length) * d;
    if (needed > this.data.length) {
      // Doubling keeps repeated batched adds linear overall; one large add (an ingest's) takes only what it needs.
      const capacity = Math.max(needed, 2 * this.data.length);
      const grown = new Float32Array(capacity);
      grown.set(this.data.subarray(0, this.count * d));
      this.data = grown;
    }
    for (const v of vectors) {
      this.data.set(v, this.count * d);
      this.count += 1;
    }
  }

  /** Every row added so far, in order, as views on this index's storage; the index is empty afterwards. */
  takeAll(): Float32Array[] {
    const d = this.dimension;
    const rows = Array.from({ length: this.count }, (_, i) => this.data.subarray(i * d, (i + 1) * d));
    this.data = new Float32Array(0);
    this.count = 0;
    return rows;
  }

  search(query: Float32Array, k: number): VectorSearchResult {
    checkDimension(query, this.dimension, 'query vector');
    checkK(k);
    const take = Math.min(k, this.count);
    if (take === 0) return { ids: [], scores: [] };
    const d = this.dimension;
    const data = this.data;
    const best = new BestRows(take);
    for (let id = 0, base = 0; id < this.count; id += 1, base += d) best.offer(id, innerProduct(data, base, query, d));
    const { rows, scores } = best.sorted();
    // Rounded through float32 so scores match what FAISS reports for the same vectors.
    return { ids: rows, scores: scores.map((s) => Math.fround(s)) };
  }

  write(file: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    const fd = openSync(file, 'w');
    try {
      for (const part of encodeFlatIP(this.dimension, this.count, this.data)) writeAll(fd, part);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * The inner product of the row at `base` of `data` with `query`, as every exact score here is formed (in doubles,
 * four accumulators so the JIT pipelines the multiply-adds); `QuantizedVectorIndex` rescores with it too.
 */
export function innerProduct(data: Float32Array, base: number, query: Float32Array, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < d; j += 4) {
    s0 += (data[base + j] as number) * (query[j] as number);
    s1 += (data[base + j + 1] as number) * (query[j + 1] as number);
    s2 += (data[base + j + 2] as number) * (query[j + 2] as number);
    s3 += (data[base + j + 3] as number) * (query[j + 3] as number);
  }
  for (; j < d; j += 1) s0 += (data[base + j] as number) * (query[j] as number);
  return s0 + s1 + s2 + s3;
}

/** Writes every byte of `bytes` at the file's current position (one `writeSync` may write fewer). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

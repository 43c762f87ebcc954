import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Warning } from '../types.js';
import { encodeFlatIP } from './faiss-format.js';
import { checkDimension, checkK, type VectorIndex, type VectorSearchResult } from './vector-index-contract.js';

/**
 * Exact inner-product search in plain JS: the fallback when FAISS's native binding is unavailable.
 * Vectors arrive L2-normalised from the embedders, so inner product is cosine similarity. Storage is one
 * growable Float32Array (row-major); search scores every row and keeps the best k in a bounded heap, so a
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
      // Doubling keeps repeated batched adds linear overall.
      let capacity = Math.max(this.data.length, d);
      while (capacity < needed) capacity *= 2;
      const grown = new Float32Array(capacity);
      grown.set(this.data.subarray(0, this.count * d));
      this.data = grown;
    }
    for (const v of vectors) {
      this.data.set(v, this.count * d);
      this.count += 1;
    }
  }

  search(query: Float32Array, k: number): VectorSearchResult {
    checkDimension(query, this.dimension, 'query vector');
    checkK(k);
    const take = Math.min(k, this.count);
    if (take === 0) return { ids: [], scores: [] };
    const d = this.dimension;
    const data = this.data;
    // Min-heap of the best `take` (worst at the root): parallel arrays avoid per-hit objects.
    const heapIds = new Int32Array(take);
    const heapScores = new Float64Array(take);
    let heapSize = 0;
    for (let id = 0, base = 0; id < this.count; id += 1, base += d) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      // Four accumulators let the JIT pipeline the multiply-adds.
      for (; j + 3 < d; j += 4) {
        s0 += (data[base + j] as number) * (query[j] as number);
        s1 += (data[base + j + 1] as number) * (query[j + 1] as number);
        s2 += (data[base + j + 2] as number) * (query[j + 2] as number);
        s3 += (data[base + j + 3] as number) * (query[j + 3] as number);
      }
      for (; j < d; j += 1) s0 += (data[base + j] as number) * (query[j] as number);
      const score = s0 + s1 + s2 + s3;
      if (heapSize < take) {
        heapIds[heapSize] = id;
        heapScores[heapSize] = score;
        heapSize += 1;
        siftUp(heapIds, heapScores, heapSize - 1);
      } else if (score > (heapScores[0] as number)) {
        // Ids arrive in increasing order, so an equal score never displaces an earlier (lower) id.
        heapIds[0] = id;
        heapScores[0] = score;
        siftDown(heapIds, heapScores, heapSize);
      }
    }
    const order = Array.from({ length: heapSize }, (_, i) => i);
    order.sort((a, b) => (heapScores[b] as number) - (heapScores[a] as number) || (heapIds[a] as number) - (heapIds[b] as number));
    return {
      ids: order.map((i) => heapIds[i] as number),
      // Rounded through float32 so scores match what FAISS reports for the same vectors.
      scores: order.map((i) => Math.fround(heapScores[i] as number)),
    };
  }

  write(file: string): void {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, encodeFlatIP(this.dimension, this.count, this.data));
  }
}

/** True when (scoreA, idA) ranks below (scoreB, idB): lower score, or equal score and higher id. */
function worse(scoreA: number, idA: number, scoreB: number, idB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && idA > idB);
}

function swap(ids: Int32Array, scores: Float64Array, a: number, b: number): void {
  const id = ids[a] as number;
  ids[a] = ids[b] as number;
  ids[b] = id;
  const s = scores[a] as number;
  scores[a] = scores[b] as number;
  scores[b] = s;
}

function siftUp(ids: Int32Array, scores: Float64Array, index: number): void {
  let i = index;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!worse(scores[i] as number, ids[i] as number, scores[parent] as number, ids[parent] as number)) break;
    swap(ids, scores, i, parent);
    i = parent;
  }
}

function siftDown(ids: Int32Array, scores: Float64Array, size: number): void {
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let worst = i;
    if (left < size && worse(scores[left] as number, ids[left] as number, scores[worst] as number, ids[worst] as number)) worst = left;
    if (right < size && worse(scores[right] as number, ids[right] as number, scores[worst] as number, ids[worst] as number)) worst = right;
    if (worst === i) return;
    swap(ids, scores, i, worst);
    i = worst;
  }
}

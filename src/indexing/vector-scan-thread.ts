/**
 * The 8-bit vector scan (`QuantizedVectorIndex`) on a worker thread (`index-thread.ts`) that reads the codes into its
 * own kernel memory (or, for a one-shot ask, reads them window by window at each search). A hybrid search over a large index with the keyword postings file posts its vector queries here
 * and ranks its keyword query meanwhile on the calling thread, so it costs about the slower of the two rather than
 * their sum; a one-shot ask starts the thread first, so the codes are read on the second core while the answerer
 * loads. The thread returns rows and scores, exactly what the same index in-process returns.
 */
import type { VectorSearchResult } from './vector-index-contract.js';
import { prestartIndexThread, type PrestartedIndexThread, type StartingIndexThread } from './index-thread.js';

/** What the thread is started on: the flat index (`file`, for the exact vectors) and its codes file. */
export interface VectorScanThreadData {
  file: string;
  codes: string;
  /**
   * Read the codes window by window at each search instead of holding them (`streamQuantizedVectorIndex`): for a
   * process that searches a few times and exits, a one-shot ask.
   */
  stream?: boolean;
}

/** One request: the `k` best rows of each query, in one pass over the codes. */
export interface VectorScanBody {
  queries: Float32Array[];
  k: number;
}

/** A vector scan thread being started, or started. */
export type StartingVectorScanThread = StartingIndexThread<VectorScanBody, VectorSearchResult[]>;
/** A vector scan thread started before the caller opened the index; it takes no settings, only the generation. */
export type PrestartedVectorScanThread = PrestartedIndexThread<null, VectorScanBody, VectorSearchResult[]>;

/** Starts a thread on the two files now, to be started with the generation the caller opened. It does not keep the process alive. */
export function prestartVectorScanThread(data: VectorScanThreadData): PrestartedVectorScanThread {
  return prestartIndexThread({
    worker: new URL('./vector-scan-worker.js', import.meta.url),
    data,
    names: { task: 'vector search', index: 'vector index' },
  });
}

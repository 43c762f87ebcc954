import type { VectorSearchResult } from '../indexing/vector-index-contract.js';
import { IndexThreadStopped } from '../indexing/index-thread-stopped.js';
import type { StartingVectorScanThread } from '../indexing/vector-scan-thread.js';
import type { SearchableVectors } from './vector-searcher.js';

/**
 * Vectors searched on the vector scan thread (`vector-scan-thread.ts`): a search posts its queries there and returns
 * at once, so the caller can rank its keyword query meanwhile. A thread that could not start (no kernel, a codes file
 * of another build) or has stopped since leaves the searches to `local`, the same index opened on this thread, with
 * the same result; `local` reads nothing until it is searched.
 */
export class ThreadedVectors implements SearchableVectors {
  constructor(
    private readonly thread: StartingVectorScanThread,
    private readonly local: SearchableVectors,
  ) {}

  get size(): number {
    return this.local.size;
  }

  async search(query: Float32Array, k: number): Promise<VectorSearchResult> {
    return (await this.searchMany([query], k))[0]!;
  }

  searchMany(queries: readonly Float32Array[], k: number): Promise<VectorSearchResult[]> {
    return this.thread.request({ queries: [...queries], k }).catch((error: unknown) => {
      // The thread is gone (it could not open, or exited): this thread searches. A request the index refused is the
      // caller's error.
      if (error instanceof IndexThreadStopped) return this.inProcess(queries, k);
      throw error;
    });
  }

  private async inProcess(queries: readonly Float32Array[], k: number): Promise<VectorSearchResult[]> {
    if (this.local.searchMany) return this.local.searchMany(queries, k);
    const out: VectorSearchResult[] = [];
    for (const q of queries) out.push(await this.local.search(q, k));
    return out;
  }
}

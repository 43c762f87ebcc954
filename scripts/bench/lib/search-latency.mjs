// Search latency in the steady state, shared by the speed and retrieval benchmarks.
import { importDist } from './bench-args.mjs';

const { openRetriever } = await importDist('src/retrieve/open-retriever.js');
const { percentile } = await importDist('src/evaluate/metrics.js');

/**
 * p50 and p95 (ms) of a k = 10 search per query in one mode. The mode gets a retriever of its own, which first answers
 * `warmUp` (other questions than the measured ones: JIT and SQLite's page cache warm, as in a server or a batch), so
 * no page is warm because the same question read it before in another mode.
 */
export async function searchLatency({ root, config, backend, mode, warmUp, queries }) {
  const retriever = await openRetriever({ root, config, ...(backend ? { backend } : {}) });
  try {
    for (const q of warmUp) await retriever.search(q, { mode, k: 10 });
    const times = [];
    for (const q of queries) {
      const t = performance.now();
      await retriever.search(q, { mode, k: 10 });
      times.push(performance.now() - t);
    }
    return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), chunks: retriever.size };
  } finally {
    retriever.close();
  }
}

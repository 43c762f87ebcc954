/** Worker-thread entry of `startFtsWriteThread`: builds the analyzer from the configuration and writes the index. */
import { workerData } from 'node:worker_threads';
import { jsonLines } from '../json-lines.js';
import { analyzerFromConfig } from '../text/analyzer-from-config.js';
import type { Chunk } from '../types.js';
import { replyFromWorker } from '../worker-task.js';
import type { FtsWriteThreadData } from './fts-write-thread.js';
import { writeFtsIndex } from './fts-writer.js';

const data = workerData as FtsWriteThreadData;

replyFromWorker((): string[] => {
  const { analyzer } = analyzerFromConfig(data.root, data.config, { wholeCorpus: true });
  if (analyzer.fingerprint !== data.analyzer)
    throw new Error(`the keyword index thread's analyzer is ${analyzer.fingerprint}, not ${data.analyzer}`);
  const ids: string[] = [];
  const rows = function* (): Generator<Chunk> {
    for (const chunk of jsonLines<Chunk>(data.chunksFile)) {
      ids.push(chunk.chunk_id);
      yield chunk;
    }
  };
  writeFtsIndex(data.file, rows(), analyzer);
  return ids;
});

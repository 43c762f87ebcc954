/**
 * The thread behind `vector-scan-thread.ts`: one 8-bit scan over the codes it read (or reads at each search, streamed),
 * with exact rescoring from the flat file.
 */
import { closeSync, openSync } from 'node:fs';
import { checkFlatIP, fileSource } from './faiss-format.js';
import {
  checkCodesFile,
  readQuantizedVectorIndex,
  streamQuantizedVectorIndex,
  type QuantizedVectorIndex,
} from './quantized-vector-index.js';
import { loadScanKernels } from './scan-kernels.js';
import { serveIndexThread } from './serve-index-thread.js';
import type { VectorSearchResult } from './vector-index-contract.js';
import { vectorFilesGeneration } from '../store/index-generation.js';
import type { VectorScanBody, VectorScanThreadData } from './vector-scan-thread.js';

interface OpenedScan {
  index: QuantizedVectorIndex;
  flatFd: number;
  /** The codes file a streamed index reads at each search; closed with the thread. */
  codesFd: number | null;
}

serveIndexThread<VectorScanThreadData, OpenedScan, null, VectorScanBody, VectorSearchResult[]>({
  // Both files are read at once, before the caller has opened the index; their generations are read on both sides of
  // the reads, so a thread that read across an ingest's swap serves nothing.
  open(data) {
    const before = vectorFilesGeneration(data);
    const flatFd = openSync(data.file, 'r');
    try {
      const layout = checkFlatIP(fileSource(flatFd), data.file);
      const codesFd = openSync(data.codes, 'r');
      let keep = false;
      try {
        const codes = checkCodesFile(codesFd, data.codes, layout);
        loadScanKernels();
        const exact = { fd: flatFd, start: layout.start };
        const index = data.stream ? streamQuantizedVectorIndex(codesFd, codes, exact) : readQuantizedVectorIndex(codesFd, codes, exact);
        keep = data.stream === true;
        const generation = vectorFilesGeneration(data) === before ? before : null;
        return { opened: { index, flatFd, codesFd: keep ? codesFd : null }, generation };
      } finally {
        if (!keep) closeSync(codesFd);
      }
    } catch (error) {
      closeSync(flatFd);
      throw error;
    }
  },
  configure:
    ({ index }) =>
    (body) =>
      index.searchMany(body.queries, body.k),
  close: ({ flatFd, codesFd }) => {
    closeSync(flatFd);
    if (codesFd !== null) closeSync(codesFd);
  },
});

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import type { PrestartedFtsRankThread } from '../indexing/fts-rank-thread.js';
import { KEYWORD_POSTINGS_FILE } from '../indexing/keyword-postings.js';
import { readVectorCount, VECTOR_FILES } from '../indexing/vector-meta.js';
import type { PrestartedVectorScanThread } from '../indexing/vector-scan-thread.js';
import { projectPaths } from '../paths.js';

/**
 * Whether a hybrid search over `count` chunks ranks its keyword query on a thread (`retrieval.parallelAbove`): only
 * where FTS5 ranks it. An index with a postings file ranks in well under a millisecond, less than a message costs.
 */
export function ranksOnThread(count: number, config: ExamCopilotConfig, fromPostings: boolean): boolean {
  return !fromPostings && count >= config.retrieval.parallelAbove;
}

/**
 * Whether a hybrid search over `count` chunks scans its vectors on a thread (`retrieval.parallelAbove`), given that
 * they are searched through their 8-bit codes: where the keyword ranking stays on this thread (the postings file),
 * the scan and its rescoring, the larger part of the search, then overlap it.
 */
export function scansOnThread(count: number, config: ExamCopilotConfig, fromPostings: boolean): boolean {
  return fromPostings && count >= config.retrieval.parallelAbove;
}

/** A search thread started before the index is opened: the keyword ranking's or the vector scan's. */
export type PrestartedSearchThread =
  { kind: 'keyword'; thread: PrestartedFtsRankThread } | { kind: 'vector'; thread: PrestartedVectorScanThread };

/**
 * Starts the search thread of a root's index before anything else is loaded, when the search about to run will use
 * one: a hybrid search over at least `retrieval.parallelAbove` chunks, ranking its keyword query on a thread where
 * the index has no postings file (`ranksOnThread`), else scanning its vectors on one where they have a codes file
 * and the backend is `auto` (`scansOnThread`), as `openRetriever` decides.
 * The worker's start-up (its own Node internals and modules, its file) then runs on the second core while this thread
 * loads the answerer and the index, instead of after them. The size comes from the vector index's meta.json, a few
 * hundred bytes; a root without a readable index gets no thread, and opening it says why. The thread's module loads
 * only when a thread starts: a one-shot ask on a small index loads nothing for it.
 */
export async function prestartSearchThread(
  root: string,
  config: ExamCopilotConfig,
  mode: string,
): Promise<PrestartedSearchThread | undefined> {
  if (mode !== 'hybrid') return undefined;
  const paths = projectPaths(root);
  const count = readVectorCount(paths.faissDir);
  if (count === null) return undefined;
  const fromPostings = existsSync(path.join(paths.index, KEYWORD_POSTINGS_FILE));
  if (ranksOnThread(count, config, fromPostings)) {
    const { prestartFtsRankThread } = await import('../indexing/fts-rank-thread.js');
    return { kind: 'keyword', thread: prestartFtsRankThread(paths.ftsDb) };
  }
  const codes = path.join(paths.faissDir, VECTOR_FILES.quantized);
  if (scansOnThread(count, config, fromPostings) && config.vector.backend === 'auto' && existsSync(codes)) {
    const { prestartVectorScanThread } = await import('../indexing/vector-scan-thread.js');
    // A one-shot ask searches once per question and option, then exits: the codes are read window by window at each
    // search rather than into memory first (`streamQuantizedVectorIndex`).
    const data = { file: path.join(paths.faissDir, VECTOR_FILES.index), codes, stream: true };
    return { kind: 'vector', thread: prestartVectorScanThread(data) };
  }
  return undefined;
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import type { PrestartedFtsRankThread } from '../indexing/fts-rank-thread.js';
import { KEYWORD_POSTINGS_FILE } from '../indexing/keyword-postings.js';
import { readVectorCount } from '../indexing/vector-meta.js';
import { projectPaths } from '../paths.js';

/**
 * Whether a hybrid search over `count` chunks ranks its keyword query on a thread (`retrieval.parallelAbove`): only
 * where FTS5 ranks it. An index with a postings file ranks in well under a millisecond, less than a message costs.
 */
export function ranksOnThread(count: number, config: ExamCopilotConfig, fromPostings: boolean): boolean {
  return !fromPostings && count >= config.retrieval.parallelAbove;
}

/**
 * Starts the keyword ranking thread of a root's index before anything else is loaded, when the search about to run
 * will rank on one: a hybrid search over at least `retrieval.parallelAbove` chunks of an index without a postings file
 * (`ranksOnThread`, as `openRetriever` decides).
 * The worker's start-up (its own Node internals, better-sqlite3, the connection) then runs on the second core while
 * this thread loads the answerer and the index, instead of after them. The size comes from the vector index's
 * meta.json, a few hundred bytes; a root without a readable index gets no thread, and opening it says why. The thread's
 * module loads only when a thread starts: a one-shot ask on a small index loads nothing for it.
 */
export async function prestartKeywordThread(
  root: string,
  config: ExamCopilotConfig,
  mode: string,
): Promise<PrestartedFtsRankThread | undefined> {
  if (mode !== 'hybrid') return undefined;
  const paths = projectPaths(root);
  const count = readVectorCount(paths.faissDir);
  if (count === null || !ranksOnThread(count, config, existsSync(path.join(paths.index, KEYWORD_POSTINGS_FILE)))) return undefined;
  const { prestartFtsRankThread } = await import('../indexing/fts-rank-thread.js');
  return prestartFtsRankThread(paths.ftsDb);
}

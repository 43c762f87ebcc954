import { statSync } from 'node:fs';
import { projectPaths } from '../paths.js';

/**
 * Identifies the index build that is in place: the FTS database's inode, time and size, since every ingest swaps
 * in a new file. A long-lived reader (an ask session, the web server) compares it before each use and reopens
 * the index when it changed. Null without an index. Kept apart from the freshness check, which loads the source
 * scanner and the manifest, so answering one question does not load them.
 */
export function indexGeneration(root: string): string | null {
  return fileGeneration(projectPaths(root).ftsDb);
}

/** `indexGeneration` of one file (inode, time and size); null when it cannot be read. */
export function fileGeneration(file: string): string | null {
  try {
    const stat = statSync(file);
    return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
  } catch {
    return null;
  }
}

/**
 * The build a flat vector index and its codes file are (`fileGeneration` of each): a reader of both, on two threads,
 * compares it so that neither serves another build's rows. Null when either cannot be read.
 */
export function vectorFilesGeneration(files: { file: string; codes: string }): string | null {
  const flat = fileGeneration(files.file);
  const codes = fileGeneration(files.codes);
  return flat === null || codes === null ? null : `${flat}|${codes}`;
}

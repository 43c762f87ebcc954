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

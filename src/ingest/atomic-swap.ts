import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectPaths } from '../paths.js';
import { isProcessAlive } from '../process-alive.js';

/** The folders an ingest replaces as one unit. */
export const SWAPPED_DIRS = ['data', 'index'] as const;

const COMPLETE = 'COMPLETE';

/** Creates an empty staging area (`.exam-copilot/staging/{data,index}`), carrying over README.md files. */
export function prepareStaging(root: string): { data: string; index: string } {
  const paths = projectPaths(root);
  rmSync(paths.staging, { recursive: true, force: true });
  const dirs = { data: path.join(paths.staging, 'data'), index: path.join(paths.staging, 'index') };
  for (const name of SWAPPED_DIRS) {
    mkdirSync(dirs[name], { recursive: true });
    const readme = path.join(paths.root, name, 'README.md');
    if (existsSync(readme)) cpSync(readme, path.join(dirs[name], 'README.md'));
  }
  return dirs;
}

/** Marks the staging area complete; from here on a crash rolls forward. */
export function markStagingComplete(root: string): void {
  writeFileSync(path.join(projectPaths(root).staging, COMPLETE), new Date().toISOString());
}

/**
 * Replaces `data/` and `index/` with the complete staging build: each live folder moves to `previous/`, the
 * staged one into place, then `previous/` and `staging/` are removed. Every step is a rename, so a crash
 * leaves a state `recoverInterruptedSwap` can finish.
 */
export function swapIntoPlace(root: string): void {
  const paths = projectPaths(root);
  mkdirSync(paths.previous, { recursive: true });
  for (const name of SWAPPED_DIRS) {
    const live = path.join(paths.root, name);
    const prev = path.join(paths.previous, name);
    const staged = path.join(paths.staging, name);
    if (!existsSync(staged)) continue;
    if (existsSync(live)) {
      rmSync(prev, { recursive: true, force: true });
      renameSync(live, prev);
    }
    renameSync(staged, live);
  }
  rmSync(paths.previous, { recursive: true, force: true });
  rmSync(paths.staging, { recursive: true, force: true });
}

/**
 * Repairs the state an interrupted ingest left: a complete staging build is rolled forward; otherwise a live
 * folder that was moved aside is restored from `previous/`, and an incomplete staging area is dropped.
 * Readers (search, ask, eval) call this before opening the index. Returns what it did, for logs.
 */
export function recoverInterruptedSwap(root: string): 'none' | 'rolled-forward' | 'restored' {
  const paths = projectPaths(root);
  // A live ingest owns staging/ and previous/; its own finally block or its next run cleans up.
  if (lockHeldByOther(paths.lock)) return 'none';
  let action: 'none' | 'rolled-forward' | 'restored' = 'none';
  if (existsSync(path.join(paths.staging, COMPLETE))) {
    swapIntoPlace(root);
    return 'rolled-forward';
  }
  for (const name of SWAPPED_DIRS) {
    const live = path.join(paths.root, name);
    const prev = path.join(paths.previous, name);
    if (existsSync(prev) && !existsSync(live)) {
      renameSync(prev, live);
      action = 'restored';
    }
  }
  rmSync(paths.previous, { recursive: true, force: true });
  rmSync(paths.staging, { recursive: true, force: true });
  return action;
}

function lockHeldByOther(lockFile: string): boolean {
  let holder: { pid?: number; hostname?: string };
  try {
    holder = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid?: number; hostname?: string };
  } catch {
    return false;
  }
  if (holder.pid === undefined || holder.pid === process.pid) return false;
  if (holder.hostname !== undefined && holder.hostname !== os.hostname()) return true;
  return isProcessAlive(holder.pid);
}

import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { assertRootFolder, projectPaths, type ProjectPaths } from '../paths.js';
import { tryAcquireLock } from './lock.js';

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
 * leaves a state `recoverInterruptedSwap` can finish. `between` runs after the first folder is swapped (crash tests).
 */
export function swapIntoPlace(root: string, between?: () => void): void {
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
    if (name === SWAPPED_DIRS[0]) between?.();
  }
  rmSync(paths.previous, { recursive: true, force: true });
  rmSync(paths.staging, { recursive: true, force: true });
}

/** Whether an interrupted ingest left anything to repair (cheap: two existence checks, no lock). */
function swapLeftovers(root: string): boolean {
  const paths = projectPaths(root);
  return existsSync(paths.staging) || existsSync(paths.previous);
}

/**
 * Repairs the state an interrupted ingest left: a complete staging build is rolled forward; otherwise a live
 * folder that was moved aside is restored from `previous/`, and an incomplete staging area is dropped.
 * The caller holds the ingest lock. Returns what it did, for logs.
 */
export function repairInterruptedSwap(root: string): 'none' | 'rolled-forward' | 'restored' {
  const paths = projectPaths(root);
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

/**
 * The readers' repair (search, ask, eval, toc, doctor): when an interrupted ingest left staging or previous
 * folders, takes the ingest lock for the moment of the repair, so two readers never repair at once and a
 * live ingest, which owns those folders, is left alone.
 */
export function recoverInterruptedSwap(root: string): 'none' | 'rolled-forward' | 'restored' {
  if (!swapLeftovers(root)) return 'none';
  const paths = projectPaths(root);
  const lock = tryAcquireLock({ file: paths.lock, command: 'exam-copilot (repairing an interrupted ingest)' });
  if (!lock) return 'none';
  try {
    return repairInterruptedSwap(root);
  } finally {
    lock.release();
  }
}

/**
 * What every command that reads the built index calls first: the root must be an existing folder (nothing is
 * created in a mistyped one), and an interrupted swap is repaired, so every reader sees the same state.
 */
export function openReadableRoot(root: string): ProjectPaths {
  const paths = projectPaths(root);
  assertRootFolder(paths.root);
  recoverInterruptedSwap(paths.root);
  return paths;
}

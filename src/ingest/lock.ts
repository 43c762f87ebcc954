import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../errors.js';
import { isProcessAlive } from '../process-alive.js';
import type { Warning } from '../types.js';

/** What the lock file records about its holder. */
export interface LockInfo {
  pid: number;
  hostname: string;
  command: string;
  startedAt: string;
}

export interface HeldLock {
  release(): void;
  /** A stale lock that was taken over. */
  warnings: Warning[];
}

/**
 * Takes the ingest lock (`O_EXCL` create). A lock held by a live process fails with a `UserError` naming its
 * pid and start time; a lock left by a dead process on this host is taken over with a warning.
 */
export function acquireLock(lockFile: string, command: string): HeldLock {
  mkdirSync(path.dirname(lockFile), { recursive: true });
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), command, startedAt: new Date().toISOString() };
  const warnings: Warning[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      let released = false;
      return {
        warnings,
        release() {
          if (released) return;
          released = true;
          try {
            const held = JSON.parse(readFileSync(lockFile, 'utf8')) as LockInfo;
            if (held.pid === process.pid) rmSync(lockFile, { force: true });
          } catch {
            // Already gone.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: Partial<LockInfo> = {};
    try {
      holder = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockInfo>;
    } catch {
      // An empty or half-written lock: its writer died between create and write.
    }
    const sameHost = holder.hostname === undefined || holder.hostname === os.hostname();
    if (sameHost && (holder.pid === undefined || !isProcessAlive(holder.pid))) {
      warnings.push({ where: lockFile, message: `took over a stale lock left by process ${holder.pid ?? '?'} (started ${holder.startedAt ?? 'unknown'})` });
      rmSync(lockFile, { force: true });
      continue;
    }
    throw new UserError(
      `another ingest is running (pid ${holder.pid ?? '?'} on ${holder.hostname ?? '?'}, started ${holder.startedAt ?? '?'}); wait for it, or delete ${lockFile} if that process is gone`,
    );
  }
  throw new UserError(`could not take the lock ${lockFile}; delete it if no ingest is running`);
}

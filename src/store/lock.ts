import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, type SqliteDatabase } from '../sqlite-database.js';
import { UserError } from '../errors.js';
import type { Warning } from '../types.js';
import { temporaryPath } from '../write-atomic.js';

/** What the lock's info file records about its holder. */
export interface LockInfo {
  pid: number;
  hostname: string;
  command: string;
  startedAt: string;
}

/** A lock this process holds until `release()` (or until it dies: the OS then releases it). */
export interface HeldLock {
  readonly info: LockInfo;
  release(): void;
  /** A lock left by a process that is gone, which was taken over. */
  warnings: Warning[];
}

export interface AcquireLockOptions {
  /** The info file (`.exam-copilot/lock`); the lock itself is the SQLite file `<file>.db` beside it. */
  file: string;
  /** What holds the lock, recorded for the message another process shows. */
  command: string;
  /** The one-line error when a live process holds the lock (its info, when readable). */
  busy: (holder: LockInfo | null) => string;
  /** How long to wait for a holder to finish, in ms (a reader's short recovery holds it for milliseconds). */
  waitMs?: number;
}

/** The SQLite file whose exclusive transaction is the lock. */
export function lockDbFile(file: string): string {
  return `${file}.db`;
}

/** The holder recorded in the info file, or null when there is none or it cannot be read. */
export function readLockInfo(file: string): LockInfo | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
    if (typeof parsed.pid !== 'number') return null;
    return { pid: parsed.pid, hostname: parsed.hostname ?? '?', command: parsed.command ?? '?', startedAt: parsed.startedAt ?? '?' };
  } catch {
    return null;
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * Takes the lock, or returns null when another connection (another process, or this one) holds it.
 * The lock is an exclusive SQLite transaction on `<file>.db`: the kernel takes it atomically and
 * releases it when the holder exits, even on SIGKILL, so a crashed holder never leaves a stale lock and
 * two processes can never both take over one. The JSON info file only names the holder for messages.
 */
export function tryAcquireLock(options: Omit<AcquireLockOptions, 'busy'>): HeldLock | null {
  const { file } = options;
  mkdirSync(path.dirname(file), { recursive: true });
  let db: SqliteDatabase;
  try {
    db = new Database(lockDbFile(file), { timeout: options.waitMs ?? 0 });
  } catch (error) {
    throw new UserError(`cannot open the lock ${lockDbFile(file)} (${(error as Error).message}); check that the folder is writable`);
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusy(error)) return null;
    throw new UserError(`cannot take the lock ${lockDbFile(file)} (${(error as Error).message}); check that the folder is writable`);
  }
  const warnings: Warning[] = [];
  const left = readLockInfo(file);
  if (left && left.pid !== process.pid) {
    // We hold the lock, so whoever wrote this info file no longer does: it died without releasing it.
    warnings.push({
      where: file,
      message: `took over a lock left by process ${left.pid} (${left.command}, started ${left.startedAt}), which is no longer running`,
    });
  }
  const info: LockInfo = { pid: process.pid, hostname: os.hostname(), command: options.command, startedAt: new Date().toISOString() };
  // Written aside and renamed, so a reader never sees a half-written info file.
  const tmp = temporaryPath(file);
  writeFileSync(tmp, JSON.stringify(info));
  renameSync(tmp, file);
  let released = false;
  return {
    info,
    warnings,
    release() {
      if (released) return;
      released = true;
      // The info file goes first: once the transaction ends, a new holder may write its own.
      if (readLockInfo(file)?.startedAt === info.startedAt) rmSync(file, { force: true });
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

/** Takes the lock or throws a one-line `UserError` (exit 1) built by `busy` from the holder's info. */
export function acquireLock(options: AcquireLockOptions): HeldLock {
  const held = tryAcquireLock(options);
  if (held) return held;
  throw new UserError(options.busy(readLockInfo(options.file)));
}

/** The ingest lock of a root: at most one ingest (or interrupted-swap repair) at a time. */
export function acquireIngestLock(root: string, lockFile: string, command: string): HeldLock {
  return acquireLock({
    file: lockFile,
    command,
    // A reader repairing an interrupted swap holds it for milliseconds; a real ingest for much longer.
    waitMs: 1000,
    busy: (holder) =>
      `another ingest is running in ${root}${holder ? ` (pid ${holder.pid} on ${holder.hostname}, started ${holder.startedAt})` : ''}; wait for it to finish, then run ingest again`,
  });
}

import { accessSync, constants, mkdirSync } from 'node:fs';
import { UserError } from '../errors.js';

/** The error code of a file-system or SQLite error, if it carries one. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** What a user can do about a folder ingest cannot write to. */
function notWritable(root: string, code: string): UserError {
  const why = code === 'EROFS' ? 'it is on a read-only file system' : 'permission denied';
  return new UserError(
    `${root}: cannot write to this folder (${why}); ingest writes data/, index/ and .exam-copilot/ there: run it on a folder you can write to (copy the project), or fix the folder's permissions`,
  );
}

/**
 * Checks that ingest can write under the root, then makes its state folder. A read-only root otherwise failed
 * deep inside with a stack trace, and `mkdir -p` on a read-only file system reports ENOENT, which names the wrong cause.
 */
export function makeStateFolder(root: string, stateDir: string): void {
  try {
    accessSync(root, constants.W_OK);
    mkdirSync(stateDir, { recursive: true });
  } catch (error) {
    const code = codeOf(error);
    if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') throw notWritable(root, code);
    // mkdir -p reports a read-only file system as ENOENT: ask the folder itself.
    if (code === 'ENOENT') {
      try {
        accessSync(root, constants.W_OK);
      } catch (inner) {
        throw notWritable(root, codeOf(inner));
      }
    }
    throw error;
  }
}

/** Whether an error means the disk (or the user's quota) is full: ENOSPC, EDQUOT, or SQLite's SQLITE_FULL. */
export function isDiskFull(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' || /database or disk is full/u.test(String(error));
}

/** The one-line error for a disk that filled up while the new data and index were written. */
export function diskFullError(root: string, previousKept: boolean, error: unknown): UserError {
  const kept = previousKept ? 'the previous index is kept unchanged' : 'no index was built';
  return new UserError(
    `${root}: the disk is full (writing the new index failed: ${(error as Error).message.split('\n')[0] ?? ''}); ${kept}: free space on that disk and run ingest again`,
    undefined,
    { cause: error },
  );
}

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

let written = 0;

/**
 * A temporary name beside `file`, unique to this process, thread and call. The process id alone is not enough:
 * eval's worker threads share it, and two threads writing the same temporary file (the jieba lookup table on a
 * root's first eval) renamed it from under each other, and the loser closed its descriptor a second time — by
 * then another thread's open file.
 */
export function temporaryPath(file: string): string {
  written += 1;
  return `${file}.${process.pid}-${threadId}-${written}.tmp`;
}

/**
 * Writes `content` to `file` through a temporary file and a rename, so a reader (a CI job, another thread, the next
 * run after a kill) sees the old file or the new one, never half of one. Creates the folder. On failure the
 * temporary file is removed and the error is thrown.
 */
export function writeFileAtomic(file: string, content: string | Uint8Array): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = temporaryPath(file);
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

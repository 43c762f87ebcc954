import { createHash } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { AnswerMode } from '../answer/answer-types.js';
import { UserError } from '../errors.js';
import { projectPaths } from '../paths.js';
import { acquireLock, type HeldLock, type LockInfo } from '../store/lock.js';
import { temporaryPath } from '../write-atomic.js';
import type { EvalRow, RunRecord } from './eval-types.js';

/**
 * Where `eval` keeps its run files when no `--run-dir` is given: with `--report-json`, a folder of its own under
 * `.exam-copilot/runs/`, named after the report (`eval-1f3a9c2e` for `reports/eval.json`), so each report keeps its own
 * run files and `eval --resume` with the same report finds them; without, `.exam-copilot/runs/` itself. Never beside
 * the report: the report folder is what `serve` lists for students and teachers, and run files and the run lock are
 * the tool's own state.
 */
export function defaultRunDir(root: string, reportJson?: string): string {
  const runs = path.join(projectPaths(root).state, 'runs');
  if (reportJson === undefined) return runs;
  const abs = path.resolve(reportJson);
  const stem = path.basename(abs).replace(/\.[^.]+$/, '') || 'report';
  return path.join(runs, `${stem}-${createHash('sha256').update(abs).digest('hex').slice(0, 8)}`);
}

/** A failed write's error code in words. */
function codeInWords(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file stands where a folder is needed';
  if (code === 'ENOSPC') return 'the disk is full';
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why the folder `target` cannot be written, in a few words. `mkdir -p` on a read-only file system
 * reports ENOENT for the folder it could not create, so the nearest existing ancestor is asked: a file where a folder
 * should be, a read-only file system, or no permission.
 */
export function whyNotWritable(target: string, error: unknown): string {
  let at = path.resolve(target);
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  try {
    if (!statSync(at).isDirectory()) return `${at} is a file, not a folder`;
    accessSync(at, constants.W_OK);
  } catch (problem) {
    return codeInWords(problem);
  }
  return codeInWords(error);
}

/** The one-line error for a run folder that cannot be written (a read-only root, a file where a folder is needed). */
function notWritable(dir: string, error: unknown, hint: string): UserError {
  return new UserError(`cannot write the run files in ${dir} (${whyNotWritable(dir, error)}); ${hint}`);
}

const RUN_DIR_HINT = 'make it writable, or pass --run-dir with a folder you can write';

/** Creates the run folder, or throws the one-line error naming it. */
export function ensureRunFolder(dir: string, hint = RUN_DIR_HINT): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw notWritable(dir, error, hint);
  }
}

/**
 * Takes the lock of a run (`<name>.lock` and `<name>.lock.db` in the run folder): two runs appending to the same run
 * file would interleave their rows, and a fresh run would wipe the other's progress. The second one gets `busy`'s
 * one-line error. The lock lives with the run files it guards, in the tool's state by default (`defaultRunDir`).
 */
export function acquireRunLock(options: {
  dir: string;
  name?: string;
  command: string;
  busy: (holder: LockInfo | null) => string;
  /** What to do when the folder cannot be written (default: make it writable, or pass --run-dir). */
  hint?: string;
}): HeldLock {
  const hint = options.hint ?? RUN_DIR_HINT;
  ensureRunFolder(options.dir, hint);
  try {
    return acquireLock({ file: path.join(options.dir, `${options.name ?? ''}.lock`), command: options.command, busy: options.busy });
  } catch (error) {
    // Busy is the lock's own one-line error; one that cannot open or take the lock file is said of the folder.
    if (error instanceof UserError && !/^cannot (open|take) the lock /.test(error.message)) throw error;
    throw notWritable(options.dir, error, hint);
  }
}

/** `<runDir>/<dataset-stem>.<mode>.jsonl`, the pyserini-style run file of one mode. */
export function runFilePath(runDir: string, datasetFile: string, mode: AnswerMode): string {
  const stem = path.basename(datasetFile).replace(/\.[^.]+$/, '');
  return path.join(runDir, `${stem}.${mode}.jsonl`);
}

/**
 * Fingerprint of a question as asked: the row's text, options and gold, plus everything about the answerer that changes
 * the answer. A resumed run only reuses records with the same fingerprint, so editing a row or switching model re-asks it.
 */
export function rowFingerprint(row: EvalRow, answererConfig: Record<string, unknown>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify({ q: row.question, o: row.options, a: row.answer, t: row.type, g: row.gold, c: answererConfig }));
  return h.digest('hex').slice(0, 16);
}

/** Records of a run file; a torn last line (the process was killed mid-write) is counted, not fatal. */
export function readRunFile(file: string): { records: RunRecord[]; badLines: number } {
  return readRunLines<RunRecord>(
    file,
    (value) => typeof value.id === 'string' && typeof value.mode === 'string' && typeof value.fingerprint === 'string',
  );
}

/**
 * The JSON lines of a run file that `isRecord` accepts; a torn last line (the process was killed mid-write) or a line
 * of another shape is counted, not fatal. `eval` and `answer` read their run files with it.
 */
export function readRunLines<T>(
  file: string,
  isRecord: (value: Record<string, unknown>) => boolean,
): {
  records: T[];
  badLines: number;
} {
  if (!existsSync(file)) return { records: [], badLines: 0 };
  const records: T[] = [];
  let badLines = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && isRecord(value as Record<string, unknown>)) records.push(value as T);
      else badLines++;
    } catch {
      badLines++;
    }
  }
  return { records, badLines };
}

/**
 * Appends finished records one line at a time, each written to the file before the next question's result is taken,
 * so a killed process loses at most the questions still in flight (the operating system keeps what was written).
 * The data reaches the disk (fsync) at most `syncEveryMs` after it was written and on close: a sync per record
 * cost about 10 ms, which capped eval at about 100 answers a second whatever the answerer's speed.
 */
export interface RunWriter<T = RunRecord> {
  append(record: T): void;
  close(): void;
}

/**
 * Starts a run file holding exactly `keep` (the records a resume reuses; empty for a fresh run), written atomically
 * (temp file + rename) so a torn line from a killed run never precedes new appends, then opens it for appending.
 */
export function openRunWriter<T = RunRecord>(
  file: string,
  keep: readonly T[],
  options: { syncEveryMs?: number; hint?: string } = {},
): RunWriter<T> {
  const syncEveryMs = options.syncEveryMs ?? 1000;
  const hint = options.hint ?? RUN_DIR_HINT;
  ensureRunFolder(path.dirname(file), hint);
  const tmp = temporaryPath(file);
  let fd: number;
  try {
    writeFileSync(tmp, keep.map((r) => JSON.stringify(r) + '\n').join(''));
    const tmpFd = openSync(tmp, 'r+');
    fsyncSync(tmpFd);
    closeSync(tmpFd);
    renameSync(tmp, file);
    fd = openSync(file, 'a');
  } catch (error) {
    throw notWritable(path.dirname(file), error, hint);
  }
  let open = true;
  let dirty = false;
  let lastSync = performance.now();
  return {
    append(record) {
      if (!open) throw new Error(`run file ${file} is closed`);
      writeSync(fd, JSON.stringify(record) + '\n');
      dirty = true;
      if (performance.now() - lastSync >= syncEveryMs) {
        fsyncSync(fd);
        dirty = false;
        lastSync = performance.now();
      }
    },
    close() {
      if (!open) return;
      open = false;
      if (dirty) fsyncSync(fd);
      closeSync(fd);
    },
  };
}

import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AnswerMode } from '../answer/answer-types.js';
import type { EvalRow, RunRecord } from './eval-types.js';

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
  if (!existsSync(file)) return { records: [], badLines: 0 };
  const records: RunRecord[] = [];
  let badLines = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as RunRecord;
      if (typeof value.id === 'string' && typeof value.mode === 'string' && typeof value.fingerprint === 'string') records.push(value);
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
export interface RunWriter {
  append(record: RunRecord): void;
  close(): void;
}

/**
 * Starts a run file holding exactly `keep` (the records a resume reuses; empty for a fresh run), written atomically
 * (temp file + rename) so a torn line from a killed run never precedes new appends, then opens it for appending.
 */
export function openRunWriter(file: string, keep: readonly RunRecord[], options: { syncEveryMs?: number } = {}): RunWriter {
  const syncEveryMs = options.syncEveryMs ?? 1000;
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, keep.map((r) => JSON.stringify(r) + '\n').join(''));
  const tmpFd = openSync(tmp, 'r+');
  fsyncSync(tmpFd);
  closeSync(tmpFd);
  renameSync(tmp, file);
  const fd = openSync(file, 'a');
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

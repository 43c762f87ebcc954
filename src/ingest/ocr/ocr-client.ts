import { fork, type ChildProcess } from 'node:child_process';
import type { OcrBox } from './ocr-lines.js';
import type { OcrReply, OcrRequest } from './ocr-process.js';

/** The result of recognising one page: boxes, or why not (engine unavailable, or this page failed). */
export type OcrOutcome = { boxes: OcrBox[] } | { unavailable: string } | { error: string };

/** Talks to the OCR child process (`ocr-process.ts`), started on the first request. */
export interface OcrClient {
  recognize(image: Uint8Array): Promise<OcrOutcome>;
  /** Kills the process (a page over its time limit, or the end of the file); the next request starts a new one. */
  kill(): void;
}

const entry = new URL('./ocr-process.js', import.meta.url);

/** Creates a client; no process runs until the first page needs OCR. */
export function createOcrClient(): OcrClient {
  let child: ChildProcess | null = null;
  let nextId = 1;
  const pending = new Map<number, (outcome: OcrOutcome) => void>();
  const failAll = (reason: string): void => {
    for (const resolve of pending.values()) resolve({ error: reason });
    pending.clear();
  };
  const start = (): ChildProcess => {
    const proc = fork(entry, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    proc.on('message', (reply: OcrReply) => {
      const resolve = pending.get(reply.id);
      pending.delete(reply.id);
      if (!resolve) return;
      if ('boxes' in reply) resolve({ boxes: reply.boxes });
      else if ('unavailable' in reply) resolve({ unavailable: reply.unavailable });
      else resolve({ error: reply.error });
    });
    proc.on('exit', (code, signal) => {
      if (child === proc) child = null;
      failAll(`the OCR process stopped (${signal ?? `exit ${code ?? '?'}`})`);
    });
    proc.on('error', (error) => failAll(`the OCR process failed (${error.message})`));
    return proc;
  };
  return {
    recognize(image) {
      child ??= start();
      const id = nextId++;
      const proc = child;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        proc.send({ id, image } satisfies OcrRequest);
      });
    },
    kill() {
      if (!child) return;
      const proc = child;
      child = null;
      proc.kill('SIGKILL');
    },
  };
}

/**
 * The worker side of `index-thread.ts`: opens the index at once, takes the caller's settings, then answers one request
 * at a time. A worker module calls `serveIndexThread` with how to open, configure and close its index.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexThreadMessage, IndexThreadReply } from './index-thread.js';

/** An index the thread opened, and the generation of the files it read (null when a swap came between two looks). */
export interface OpenedForThread<O> {
  opened: O;
  generation: string | null;
}

/** How a worker opens, configures and closes its index. */
export interface IndexThreadServer<D, O, S, Q, R> {
  open(data: D): OpenedForThread<O>;
  /** The request handler for these settings; throws to refuse them. */
  configure(opened: O, settings: S): (body: Q) => R;
  close(opened: O): void;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Serves the index this worker was started on (`workerData`) until the thread is terminated. */
export function serveIndexThread<D, O, S, Q, R>(server: IndexThreadServer<D, O, S, Q, R>): void {
  const port = parentPort;
  if (!port) throw new Error('an index thread runs only as a worker thread');
  const post = (reply: IndexThreadReply<R>): void => port.postMessage(reply);
  let index: OpenedForThread<O> | null = null;
  let openError: string | null = null;
  try {
    index = server.open(workerData as D);
  } catch (error) {
    openError = message(error);
  }
  let handle: ((body: Q) => R) | null = null;
  port.on('message', (request: IndexThreadMessage<S, Q>) => {
    if (request.type === 'configure') {
      if (!index) return post({ type: 'open-failed', message: openError ?? 'not opened' });
      if (request.generation !== null && request.generation !== index.generation) {
        // An ingest swapped a new index in between the two opens: what this thread read is not the caller's build.
        server.close(index.opened);
        index = null;
        return post({ type: 'open-failed', message: 'the index was replaced while it was being opened' });
      }
      try {
        handle = server.configure(index.opened, request.settings);
      } catch (error) {
        return post({ type: 'open-failed', message: message(error) });
      }
      return post({ type: 'ready' });
    }
    if (!handle) return post({ type: 'failed', id: request.id, message: 'the thread has no open index' });
    try {
      post({ type: 'done', id: request.id, result: handle(request.body) });
    } catch (error) {
      post({ type: 'failed', id: request.id, message: message(error) });
    }
  });
}

/**
 * A worker thread that opens one index file and serves requests on it: the keyword ranking thread
 * (`fts-rank-thread.ts`) and the vector scan thread (`vector-scan-thread.ts`) are both this, with their own messages.
 * The thread opens its file as soon as it starts, before the caller has opened the index, so its start-up (its own
 * Node internals and modules, the file) runs on the second core meanwhile; the caller then sends its settings with the
 * generation (`fileGeneration`) of the file it opened, and a thread that opened another build says so rather than
 * serve it. Requests are posted as they come, before the thread is ready too: a worker's port holds messages until
 * the thread listens, and it answers them in order, after the settings. The worker side is `serveIndexThread`.
 */
import { startWorker } from '../start-worker.js';
import { IndexThreadStopped } from './index-thread-stopped.js';

/** Messages to the thread: first `configure`, then requests. */
export type IndexThreadMessage<S, Q> =
  { type: 'configure'; settings: S; generation: string | null } | { type: 'request'; id: number; body: Q };

/** Replies from the thread. */
export type IndexThreadReply<R> =
  | { type: 'ready' }
  | { type: 'open-failed'; message: string }
  | { type: 'done'; id: number; result: R }
  | { type: 'failed'; id: number; message: string };

/** What a thread is, for its messages: `{ task: 'keyword search', index: 'keyword index' }`. */
export interface IndexThreadNames {
  /** What it does, as in "the keyword search thread" and "keyword search failed". */
  task: string;
  /** What it opens, as in "the keyword index was closed". */
  index: string;
}

/** A thread that serves requests; `close` ends it. */
export interface IndexThread<Q, R> {
  request(body: Q): Promise<R>;
  close(): Promise<void>;
}

/**
 * A thread started without waiting for it. `request` works at once: a request made while the thread is starting
 * waits in its queue and is served as soon as the thread is open, and is rejected if it cannot open (then `settled`
 * is false).
 */
export interface StartingIndexThread<Q, R> extends IndexThread<Q, R> {
  /** The thread once it is open; null before that, or when it failed to open. */
  current(): IndexThread<Q, R> | null;
  /** Settles when the thread is ready (true) or could not open (false); never rejects. */
  readonly settled: Promise<boolean>;
}

/**
 * A thread started on an index file before the caller knows whether it will use it: it loads its modules and opens
 * its file meanwhile. `start` hands it its settings; `close` ends it unused.
 */
export interface PrestartedIndexThread<S, Q, R> {
  readonly file: string;
  /** The thread with its settings; `generation` is the opened file's (`fileGeneration`), null to skip the check. */
  start(settings: S, generation: string | null): StartingIndexThread<Q, R>;
  close(): Promise<void>;
}

/** Where the worker's module is, what it is told at start, and its names. */
export interface IndexThreadSpec<D> {
  worker: URL;
  /** The worker's `workerData`; `file` names the index in messages and identifies the thread. */
  data: D & { file: string };
  names: IndexThreadNames;
}

/**
 * Starts the thread and resolves once it is open. It does not keep the process alive while no request is pending,
 * so a caller that never closes it still exits.
 */
export async function openIndexThread<D, S, Q, R>(
  spec: IndexThreadSpec<D>,
  settings: S,
  generation: string | null,
): Promise<IndexThread<Q, R>> {
  const thread = spawnIndexThread<D, S, Q, R>(spec, true);
  thread.configure(settings, generation);
  await thread.ready;
  return thread;
}

/** Starts a thread on the spec's file now, to be given its settings later. It does not keep the process alive. */
export function prestartIndexThread<D, S, Q, R>(spec: IndexThreadSpec<D>): PrestartedIndexThread<S, Q, R> {
  const thread = spawnIndexThread<D, S, Q, R>(spec, false);
  let started: StartingIndexThread<Q, R> | null = null;
  return {
    file: spec.data.file,
    start(settings, generation) {
      if (started) throw new Error(`${spec.data.file}: the ${spec.names.task} thread was started already`);
      thread.configure(settings, generation);
      started = starting(thread);
      return started;
    },
    close: () => thread.close(),
  };
}

/** The `StartingIndexThread` view of a configured thread. */
function starting<Q, R>(thread: SpawnedIndexThread<unknown, Q, R>): StartingIndexThread<Q, R> {
  let opened = false;
  const settled = thread.ready.then(
    () => (opened = true),
    () => false,
  );
  return {
    request: (body) => thread.request(body),
    close: () => thread.close(),
    current: () => (opened ? thread : null),
    settled,
  };
}

/** A spawned thread: `configure` once, then request; `ready` settles once it has opened and taken its settings. */
interface SpawnedIndexThread<S, Q, R> extends IndexThread<Q, R> {
  readonly ready: Promise<void>;
  configure(settings: S, generation: string | null): void;
}

/** The thread and its request queue. */
function spawnIndexThread<D, S, Q, R>(spec: IndexThreadSpec<D>, holdUntilReady: boolean): SpawnedIndexThread<S, Q, R> {
  const { file } = spec.data;
  const { task, index } = spec.names;
  const worker = startWorker(spec.worker, { workerData: spec.data });
  if (!holdUntilReady) worker.unref();
  const pending = new Map<number, { resolve: (result: R) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let opened = false;
  let failure: Error | null = null;
  // The first failure is the one every later request hears of (a thread that could not open then also exits).
  const failAll = (error: Error): void => {
    failure ??= error;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  // Keeps the process alive only while a request is pending (or, when asked, until the thread is ready).
  const holdWhilePending = (): void => {
    if (pending.size > 0 || (holdUntilReady && !opened && !failure)) worker.ref();
    else worker.unref();
  };
  let rejectReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    rejectReady = reject;
    const fail = (error: Error): void => {
      failAll(error);
      if (!opened) reject(error);
      holdWhilePending();
    };
    worker.on('error', (error) => fail(new IndexThreadStopped(`the ${task} thread failed: ${error.message}`)));
    worker.on('exit', (code) => fail(new IndexThreadStopped(`the ${task} thread exited (code ${code})`)));
    worker.on('message', (reply: IndexThreadReply<R>) => {
      if (reply.type === 'open-failed') {
        fail(new IndexThreadStopped(`${file}: the ${task} thread could not open the index: ${reply.message}`));
        void worker.terminate();
        return;
      }
      if (reply.type === 'ready') {
        opened = true;
        holdWhilePending();
        resolve();
        return;
      }
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      holdWhilePending();
      if (reply.type === 'done') p.resolve(reply.result);
      else p.reject(new Error(`${task} failed: ${reply.message}`));
    });
  });
  // Awaited by whoever needs readiness; a failure to open also rejects every request, which their callers handle.
  ready.catch(() => undefined);
  let configured = false;
  return {
    ready,
    configure(settings, generation) {
      if (configured) throw new Error(`${file}: the ${task} thread was configured already`);
      configured = true;
      worker.postMessage({ type: 'configure', settings, generation } satisfies IndexThreadMessage<S, Q>);
    },
    request(body) {
      if (failure) return Promise.reject(failure);
      if (!configured) return Promise.reject(new Error(`${file}: the ${task} thread serves requests only once configured`));
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        holdWhilePending();
        worker.postMessage({ type: 'request', id, body } satisfies IndexThreadMessage<S, Q>);
      });
    },
    async close() {
      worker.removeAllListeners('exit');
      failAll(new IndexThreadStopped(`the ${index} was closed`));
      // Closed before it was ready: whoever waits for readiness hears now rather than never.
      if (!opened) rejectReady(failure ?? new IndexThreadStopped(`the ${index} was closed`));
      await worker.terminate();
    },
  };
}

/**
 * A search thread (`index-thread.ts`) is not there to serve: it could not open its index, was told another build,
 * exited, or was closed. A request it rejects with this was not refused by the index, so the caller may serve it on
 * its own thread instead. Kept apart from the thread's module, so a searcher that only checks for it loads no worker
 * code: a one-shot ask on a small index starts no thread.
 */
export class IndexThreadStopped extends Error {
  override readonly name = 'IndexThreadStopped';
}

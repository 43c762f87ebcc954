import { channel } from 'node:diagnostics_channel';

/**
 * A point a command's run has reached, published when everything the run wrote before it is on disk:
 * - ingest: the first file parsed (`parse`), the data staged before indexing (`index`), and the middle of the swap,
 *   with `data/` replaced and `index/` not yet (`swap`);
 * - eval and answer: a row recorded in the run file, with the count recorded so far in this run.
 */
export type RunEvent = { command: 'ingest'; point: 'parse' | 'index' | 'swap' } | { command: 'eval' | 'answer'; rowsRecorded: number };

/**
 * The `node:diagnostics_channel` name of run events. Subscribers run synchronously at the point, on the thread that
 * reached it: a tool (the crash tests' `--import` hook, a tracer) observes a run from outside without the commands
 * carrying any code of its own.
 */
export const RUN_EVENTS_CHANNEL = 'exam-copilot:run';

const runEvents = channel(RUN_EVENTS_CHANNEL);

/** Publishes a run event; costs nothing when no one subscribes. */
export function publishRunEvent(event: RunEvent): void {
  if (runEvents.hasSubscribers) runEvents.publish(event);
}

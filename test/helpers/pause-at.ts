import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { RUN_EVENTS_CHANNEL, type RunEvent } from '../../src/run-events.js';

/**
 * The crash tests' pause, loaded into a command with `--import` (see {@link pauseEnv}). It reads
 * `EXAM_COPILOT_TEST_PAUSE=<command>:<point or rows recorded>:<marker file>` and subscribes to the run events
 * (`src/run-events.ts`). When the run reaches that point it writes the marker and blocks the thread, so the test's
 * SIGKILL lands exactly there and the test can tell that it did. The command itself carries no test code.
 */
const spec = /^(ingest|eval|answer):([^:]+):(.+)$/.exec(process.env.EXAM_COPILOT_TEST_PAUSE ?? '');
if (spec) {
  const [, command, at, marker] = spec as unknown as [string, string, string, string];
  subscribe(RUN_EVENTS_CHANNEL, (message) => {
    const event = message as RunEvent;
    if (event.command !== command) return;
    const here = 'point' in event ? event.point : String(event.rowsRecorded);
    if (here !== at) return;
    writeFileSync(marker, here);
    // Nothing else of the command runs until the test kills it (or 2 minutes pass).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
  });
}

/** The environment that makes a spawned command pause at `point` (a point name or a row count) and write `marker`. */
export function pauseEnv(command: RunEvent['command'], point: string, marker: string): NodeJS.ProcessEnv {
  const hook = new URL(import.meta.url).href;
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${hook}`.trim(),
    EXAM_COPILOT_TEST_PAUSE: `${command}:${point}:${marker}`,
  };
}

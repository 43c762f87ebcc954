import { writeFileSync } from 'node:fs';

/**
 * The crash tests' pause: `EXAM_COPILOT_TEST_PAUSE=<point>:<marker file>` names a point of a command's run. When the
 * run reaches it, it writes the marker and blocks this thread, so the test's SIGKILL lands exactly there and the
 * test can tell that it did. Returns the parsed setting, or null when the variable is unset or names another
 * command's point (then nothing ever pauses).
 */
export function testPauseSetting(env: NodeJS.ProcessEnv, prefix = ''): { point: string; marker: string } | null {
  const spec = env.EXAM_COPILOT_TEST_PAUSE ?? '';
  const at = spec.lastIndexOf(':');
  if (at <= 0 || !spec.startsWith(prefix)) return null;
  return { point: spec.slice(0, at), marker: spec.slice(at + 1) };
}

/** Writes the marker and blocks: nothing else of the command runs until the test kills it (or 2 minutes pass). */
export function pauseHere(marker: string, point: string): void {
  writeFileSync(marker, point);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
}

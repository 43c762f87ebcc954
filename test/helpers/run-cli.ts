import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './temp-root.js';

/** The CLI entry of this checkout. */
export const binPath = path.join(repoRoot, 'bin', 'exam-copilot.js');

/** What a CLI run printed and how it exited. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI offline as a child process: no colour, the exact JS vector backend, and no embedder or LLM from the
 * developer's environment, so the output depends on the fixture alone.
 */
export function runOfflineCli(args: readonly string[]): CliResult {
  const r = spawnSync(process.execPath, [binPath, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NO_COLOR: '1',
      EXAM_COPILOT_VECTOR_BACKEND: 'js',
      EXAM_COPILOT_EMBEDDER: '',
      OPENAI_BASE_URL: '',
      OPENAI_API_KEY: '',
      OPENAI_MODEL: '',
    },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

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
 * The environment of a CLI child process that must not reach an LLM: no colour, and no endpoint, model or key from
 * the developer's environment (an empty variable counts as unset). `extra` adds or overrides variables.
 */
export function offlineEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NO_COLOR: '1',
    EXAM_COPILOT_LLM_MODEL: '',
    EXAM_COPILOT_LLM_BASE_URL: '',
    EXAM_COPILOT_LLM_API_KEY: '',
    OPENAI_MODEL: '',
    OPENAI_BASE_URL: '',
    OPENAI_API_KEY: '',
    ...extra,
  };
}

/**
 * Runs the CLI offline as a child process: no colour, the exact JS vector backend, and no embedder or LLM from the
 * developer's environment, so the output depends on the fixture alone.
 */
export function runOfflineCli(args: readonly string[]): CliResult {
  const r = spawnSync(process.execPath, [binPath, ...args], {
    encoding: 'utf8',
    env: offlineEnv({ EXAM_COPILOT_VECTOR_BACKEND: 'js', EXAM_COPILOT_EMBEDDER: '' }),
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Typed errors. The CLI entry maps them to exit codes; a `UserError` prints one line, anything else a stack.
 */

/** Exit codes, documented in the README. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** Some inputs failed but the rest was processed (e.g. one bad PDF during ingest). */
  partial: 3,
  /** An accuracy gate failed (`eval --fail-under`, `--max-drop`). */
  regression: 4,
  /** Needed resources are missing (no index, index built with another embedder, unreachable LLM). */
  notReady: 5,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * What is wrong with one file and what fixes it, kept apart for a caller that reports the error inside a line of its
 * own (a warning that the file is passed over, say), so it need not take the error's text apart.
 */
export interface FileProblem {
  file: string;
  problem: string;
  fix: string;
}

/** The one line a `FileProblem` is told in: the file, the problem, the fix. */
export function fileProblemLine(p: FileProblem): string {
  return `${p.file}: ${p.problem}; ${p.fix}`;
}

/** An error the user can fix; its message is one line that names the file or input and what to do. */
export class UserError extends Error {
  readonly exitCode: ExitCodeValue;
  /** Set when the error is about one file: its message is then `fileProblemLine(fileProblem)`. */
  readonly fileProblem: FileProblem | undefined;
  constructor(message: string | FileProblem, exitCode: ExitCodeValue = ExitCode.failure, options?: ErrorOptions) {
    super(typeof message === 'string' ? message : fileProblemLine(message), options);
    this.name = 'UserError';
    this.exitCode = exitCode;
    this.fileProblem = typeof message === 'string' ? undefined : message;
  }
}

/** Bad command-line usage (unknown option value, missing argument). */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, ExitCode.usage);
    this.name = 'UsageError';
  }
}

/** The index or another prerequisite is missing or stale; the message says which command fixes it. */
export class NotReadyError extends UserError {
  constructor(message: string | FileProblem) {
    super(message, ExitCode.notReady);
    this.name = 'NotReadyError';
  }
}

/** A message for any thrown value, without a stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

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

/** An error the user can fix; its message is one line that names the file or input and what to do. */
export class UserError extends Error {
  readonly exitCode: ExitCodeValue;
  constructor(message: string, exitCode: ExitCodeValue = ExitCode.failure, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UserError';
    this.exitCode = exitCode;
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
  constructor(message: string) {
    super(message, ExitCode.notReady);
    this.name = 'NotReadyError';
  }
}

/** A message for any thrown value, without a stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

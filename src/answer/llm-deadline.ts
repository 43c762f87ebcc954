/**
 * One time budget for everything the LLM does for one question (rerank, answer, repair, retries, backoff).
 * A deadline is created when the question starts and handed to every `LlmClient.chat` call made for it;
 * each HTTP attempt is bounded by what is left, and its abort signal covers connect, headers and body.
 * An agent loop that makes several calls per question shares one deadline the same way.
 */
export interface Deadline {
  /** The whole budget in milliseconds. */
  readonly totalMs: number;
  /** Milliseconds left (0 once expired). */
  remaining(): number;
  expired(): boolean;
  /** Aborts when the budget is spent; pass it (or a signal derived from it) to every request. */
  readonly signal: AbortSignal;
}

/** Starts a deadline of `ms` milliseconds from now. */
export function createDeadline(ms: number): Deadline {
  const totalMs = Math.max(1, Math.round(ms));
  const end = Date.now() + totalMs;
  const signal = AbortSignal.timeout(totalMs);
  return {
    totalMs,
    remaining: () => Math.max(0, end - Date.now()),
    expired: () => signal.aborted || Date.now() >= end,
    signal,
  };
}

/** `12 s`, `1.5 s`, `0.2 s`: a duration as people read it in messages. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 || Number.isInteger(s) ? Math.round(s) : Number(s.toFixed(1))} s`;
}

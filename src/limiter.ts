/** Runs async tasks with at most `concurrency` in flight and, optionally, at most `perSecond` starts per second. */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * The one concurrency limiter of the project (the LLM client's requests in flight, eval's questions in flight).
 * A semaphore plus a token bucket (capacity = `concurrency`, refill `perSecond`). The bucket keeps a burst of retries
 * from tripping a provider's requests-per-minute limit; the semaphore bounds the LLM calls in flight.
 */
export function createLimiter(options: {
  concurrency: number;
  perSecond?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): Limiter {
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const perSecond = options.perSecond && options.perSecond > 0 ? options.perSecond : null;
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let active = 0;
  const waiting: (() => void)[] = [];
  let tokens = concurrency;
  let last = now();

  const acquireSlot = async (): Promise<void> => {
    if (active < concurrency) {
      active++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const releaseSlot = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const takeToken = async (): Promise<void> => {
    if (perSecond === null) return;
    for (;;) {
      const t = now();
      tokens = Math.min(concurrency, tokens + ((t - last) / 1000) * perSecond);
      last = t;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - tokens) / perSecond) * 1000));
    }
  };
  return {
    async run(task) {
      await acquireSlot();
      try {
        await takeToken();
        return await task();
      } finally {
        releaseSlot();
      }
    },
  };
}

/**
 * Runs `task` on every item through `limiter`, stopping at the first failure: the tasks not yet started never start
 * (each gets the shared signal, aborted at the first failure, and is skipped when it is), and the call returns only
 * once every task that had started has settled, then throws that first failure. So whatever the tasks share (a run
 * file, an index, an LLM budget) can be closed right after, with nothing still running against it.
 */
export async function runUntilFailure<T>(
  limiter: Limiter,
  items: readonly T[],
  task: (item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const controller = new AbortController();
  let failure: { error: unknown } | null = null;
  await Promise.allSettled(
    items.map((item) =>
      limiter.run(async () => {
        if (controller.signal.aborted) return;
        try {
          await task(item, controller.signal);
        } catch (error) {
          if (failure === null) {
            failure = { error };
            controller.abort(error);
          }
        }
      }),
    ),
  );
  if (failure !== null) throw (failure as { error: unknown }).error;
}

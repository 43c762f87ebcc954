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

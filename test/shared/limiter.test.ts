import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLimiter } from '../../src/limiter.js';

describe('createLimiter (the one limiter of the LLM client and eval)', () => {
  it('keeps at most `concurrency` tasks in flight and returns each result', async () => {
    const limiter = createLimiter({ concurrency: 2 });
    let inFlight = 0;
    let most = 0;
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        limiter.run(async () => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          return n * 10;
        }),
      ),
    );
    assert.deepEqual(results, [10, 20, 30, 40, 50]);
    assert.equal(most, 2);
  });

  it('starts at most `perSecond` tasks per second after the first burst (token bucket, injected clock)', async () => {
    let t = 0;
    const starts: number[] = [];
    const limiter = createLimiter({
      concurrency: 1,
      perSecond: 2,
      now: () => t,
      sleep: (ms) => {
        t += ms;
        return Promise.resolve();
      },
    });
    await Promise.all([0, 1, 2].map(() => limiter.run(() => Promise.resolve(starts.push(t)))));
    assert.deepEqual(starts, [0, 500, 1000]);
  });

  it('frees the slot when a task fails', async () => {
    const limiter = createLimiter({ concurrency: 1 });
    await assert.rejects(
      limiter.run(() => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await limiter.run(() => Promise.resolve('next')), 'next');
  });
});

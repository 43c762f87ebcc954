import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { startWorkerTask } from '../../src/worker-task.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

void describe('a worker task', () => {
  void it('brings back the value, the error with its code, or says the thread stopped without a reply', async () => {
    const tmp = makeTempRoot();
    try {
      const helper = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'src', 'worker-task.js')).href);
      const entry = (name: string, body: string): URL => {
        const file = path.join(tmp.root, `${name}.mjs`);
        writeFileSync(file, `import { workerData } from 'node:worker_threads';\nimport { replyFromWorker } from ${helper};\n${body}\n`);
        return pathToFileURL(file);
      };
      const doubled = startWorkerTask<number>(entry('value', 'replyFromWorker(() => workerData * 2);'), 21, 'the doubling thread');
      assert.equal(await doubled.result, 42);
      const full = entry(
        'full',
        "replyFromWorker(() => { throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }); });",
      );
      await assert.rejects(
        startWorkerTask(full, null, 'the writing thread').result,
        (e: unknown) => e instanceof Error && e.message === 'database or disk is full' && (e as { code?: string }).code === 'SQLITE_FULL',
      );
      await assert.rejects(
        startWorkerTask(entry('silent', 'process.exit(3);'), null, 'the silent thread').result,
        (e: unknown) => e instanceof Error && e.message === 'the silent thread stopped (exit 3)',
      );
    } finally {
      tmp.cleanup();
    }
  });
});

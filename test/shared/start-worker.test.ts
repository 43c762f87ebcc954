import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { withoutRefused } from '../../src/start-worker.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

void describe('worker threads under V8 flags', () => {
  void it('drop exactly the flags the worker refused, as its error lists them', () => {
    const argv = ['--max-old-space-size=512', '--enable-source-maps', '--no-liftoff', '--conditions=dev'];
    assert.deepEqual(withoutRefused(argv, 'Initiated Worker with invalid execArgv flags: --max-old-space-size=512, --no-liftoff'), [
      '--enable-source-maps',
      '--conditions=dev',
    ]);
    assert.deepEqual(withoutRefused(argv, 'some other wording'), []);
  });

  void it('let `node --max-old-space-size=… --stack-size=…` ingest a PDF and notes and answer, which starts worker threads', () => {
    const tmp = makeTempRoot();
    try {
      mkdirSync(path.join(tmp.root, 'rawdoc'));
      copyFileSync(path.join(repoRoot, 'rawdoc', '证券投资基金_上册.pdf'), path.join(tmp.root, 'rawdoc', '上册.pdf'));
      writeFileSync(path.join(tmp.root, 'rawdoc', 'notes.md'), '# 基金托管人\n\n基金托管人应当安全保管基金财产。\n');
      const cli = (...args: string[]) =>
        spawnSync(
          process.execPath,
          ['--max-old-space-size=1024', '--stack-size=2000', path.join(repoRoot, 'bin', 'exam-copilot.js'), '--root', tmp.root, ...args],
          {
            encoding: 'utf8',
            timeout: 120_000,
          },
        );
      const ingest = cli('--quiet', 'ingest');
      assert.equal(ingest.status, 0, ingest.stderr);
      assert.doesNotMatch(ingest.stderr, /internal error|ERR_WORKER/);
      const ask = cli(
        '--json',
        'ask',
        '根据证券投资基金的定义，基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构',
      );
      assert.equal(ask.status, 0, ask.stderr);
      assert.equal((JSON.parse(ask.stdout) as { answer: string }).answer, 'A');
    } finally {
      tmp.cleanup();
    }
  });
});

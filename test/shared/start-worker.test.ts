import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { withoutRefused, workerExecArgv } from '../../src/start-worker.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';

/** A temp root with a PDF and a note in rawdoc/: ingesting it starts the PDF worker and the keyword index thread. */
function rootWithBooks(): TempRoot {
  const tmp = makeTempRoot();
  mkdirSync(path.join(tmp.root, 'rawdoc'));
  copyFileSync(path.join(repoRoot, 'rawdoc', '证券投资基金_上册.pdf'), path.join(tmp.root, 'rawdoc', '上册.pdf'));
  writeFileSync(path.join(tmp.root, 'rawdoc', 'notes.md'), '# 基金托管人\n\n基金托管人应当安全保管基金财产。\n');
  return tmp;
}

void describe('worker threads under `node --input-type=module -e`', () => {
  void it('drop --input-type, in either spelling, and keep every other flag', () => {
    assert.deepEqual(workerExecArgv(['--input-type=module', '-e', 'code']), ['-e', 'code']);
    assert.deepEqual(workerExecArgv(['--input-type', 'module', '--max-old-space-size=512']), ['--max-old-space-size=512']);
    assert.deepEqual(workerExecArgv(['--enable-source-maps']), ['--enable-source-maps']);
  });

  void it('let a program given as an ES module string ingest a PDF and notes, which starts worker threads', () => {
    const tmp = rootWithBooks();
    try {
      const dist = (file: string): string => pathToFileURL(path.join(repoRoot, 'dist', 'src', file)).href;
      const program = `
        const { loadConfig } = await import(${JSON.stringify(dist('config/load-config.js'))});
        const { runIngest } = await import(${JSON.stringify(dist('ingest/run-ingest.js'))});
        const root = ${JSON.stringify(tmp.root)};
        const result = await runIngest({ root, config: loadConfig({ root, env: {} }).config });
        console.log(JSON.stringify(result.files.map((f) => [f.source, f.status])));`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim()), [
        ['rawdoc/notes.md', 'ok'],
        ['rawdoc/上册.pdf', 'ok'],
      ]);
    } finally {
      tmp.cleanup();
    }
  });
});

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
    const tmp = rootWithBooks();
    try {
      const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, ['--max-old-space-size=1024', '--stack-size=2000', bin, '--root', tmp.root, ...args], {
          encoding: 'utf8',
          timeout: 120_000,
        });
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

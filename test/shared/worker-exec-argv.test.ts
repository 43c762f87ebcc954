import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { workerExecArgv } from '../../src/worker-exec-argv.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

void describe('worker threads under `node --input-type=module -e`', () => {
  void it('drop --input-type, in either spelling, and keep every other flag', () => {
    assert.deepEqual(workerExecArgv(['--input-type=module', '-e', 'code']), ['-e', 'code']);
    assert.deepEqual(workerExecArgv(['--input-type', 'module', '--max-old-space-size=512']), ['--max-old-space-size=512']);
    assert.deepEqual(workerExecArgv(['--enable-source-maps']), ['--enable-source-maps']);
  });

  void it('let a program given as an ES module string ingest a PDF and notes, which starts worker threads', () => {
    const tmp = makeTempRoot();
    try {
      mkdirSync(path.join(tmp.root, 'rawdoc'));
      copyFileSync(path.join(repoRoot, 'rawdoc', '证券投资基金_上册.pdf'), path.join(tmp.root, 'rawdoc', '上册.pdf'));
      writeFileSync(path.join(tmp.root, 'rawdoc', 'notes.md'), '# 基金托管人\n\n基金托管人应当安全保管基金财产。\n');
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

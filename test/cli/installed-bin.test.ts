import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';

const QUESTION = '基金财产由（ ）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';

/**
 * `npm install -g .` and `npm link` put a symlink to bin/exam-copilot.js on the PATH. This runs the CLI through such a
 * link from unrelated folders, as a user does in their own textbook folder: prompts, the starter dictionary and the
 * compiled code must all be found relative to the package, not to the working directory.
 */
describe('exam-copilot on the PATH (a linked bin, run outside the clone)', () => {
  it('runs the main job from another folder with --root, and from the textbook folder itself', () => {
    const tmp = makeTempRoot({ sample: true });
    const prefix = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-prefix-'));
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-cwd-'));
    try {
      mkdirSync(path.join(prefix, 'bin'));
      const linked = path.join(prefix, 'bin', 'exam-copilot');
      symlinkSync(path.join(repoRoot, 'bin', 'exam-copilot.js'), linked);
      const env = offlineEnv({ PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH ?? ''}` });
      const run = (args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } =>
        spawnSync('exam-copilot', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
      const version = run(['--version'], elsewhere);
      assert.equal(version.status, 0, version.stderr);
      assert.match(version.stdout, /^\d+\.\d+\.\d+/);
      const ingest = run(['--root', tmp.root, '--quiet', 'ingest'], elsewhere);
      assert.equal(ingest.status, 0, ingest.stderr);
      const fromElsewhere = run(['--root', tmp.root, '--json', 'ask', QUESTION], elsewhere);
      assert.equal(fromElsewhere.status, 0, fromElsewhere.stderr);
      const inFolder = run(['--json', 'ask', QUESTION], tmp.root);
      assert.equal(inFolder.status, 0, inFolder.stderr);
      assert.equal(
        (JSON.parse(inFolder.stdout) as { answer: string }).answer,
        (JSON.parse(fromElsewhere.stdout) as { answer: string }).answer,
      );
      assert.equal((JSON.parse(inFolder.stdout) as { answer: string }).answer, 'A');
    } finally {
      rmSync(prefix, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
      tmp.cleanup();
    }
  });
});

import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runOfflineCli } from '../helpers/run-cli.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');

/** The CLI offline (no LLM from the developer's environment), its stdout and stderr on pipes. */
function spawnCli(args: readonly string[]): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, NO_COLOR: '1', EXAM_COPILOT_VECTOR_BACKEND: 'js', OPENAI_BASE_URL: '', OPENAI_API_KEY: '', OPENAI_MODEL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A statute-like Markdown text of `n` articles, each about 300 characters, all mentioning 担保. */
function bigStatute(n: number): string {
  const body =
    '债权人为保障其债权实现，可以依照本法和其他法律的规定设立担保物权。第三人为债务人向债权人提供担保的，可以要求债务人提供反担保。';
  const articles = Array.from({ length: n }, (_, i) => `第${i + 1}条\u3000${body.repeat(4)}（第${i + 1}号）`);
  return `# 担保试行条例\n\n${articles.join('\n\n')}\n`;
}

/** Runs the CLI with stdout on a pipe that is read slowly, as `| jq` or `| tee` would; resolves with all it wrote. */
function runPiped(args: readonly string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args);
    child.stderr.resume();
    const parts: Buffer[] = [];
    child.stdout.pause();
    // Let the child fill the pipe (64 KiB) and queue the rest before anything is read.
    setTimeout(() => child.stdout.resume(), 500);
    child.stdout.on('data', (b: Buffer) => parts.push(b));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(parts).toString('utf8') }));
  });
}

describe('output on a pipe', () => {
  let tmp: TempRoot;
  before(() => {
    tmp = makeTempRoot({ files: { 'rawdoc/担保试行条例.md': bigStatute(240) } });
    const r = runOfflineCli(['--root', tmp.root, 'ingest']);
    assert.equal(r.status, 0, r.stderr);
  });
  after(() => tmp.cleanup());

  it('a JSON result larger than the pipe buffer arrives whole before the process exits', async () => {
    const r = await runPiped(['--root', tmp.root, 'search', '担保物权', '--mode', 'keyword', '--top-k', '200', '--json']);
    assert.equal(r.status, 0);
    assert.ok(Buffer.byteLength(r.stdout) > 128 * 1024, `only ${Buffer.byteLength(r.stdout)} bytes: make the fixture bigger`);
    const out = JSON.parse(r.stdout) as { hits: unknown[] };
    assert.equal(out.hits.length, 200);
  });

  it('a reader that stops early (| head) ends the command quietly, without a stack trace', async () => {
    const { status, stderr } = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
      const child = spawnCli(['--root', tmp.root, 'search', '担保物权', '--mode', 'keyword', '--top-k', '200', '--json']);
      let err = '';
      child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('error', reject);
      child.on('close', (code) => resolve({ status: code, stderr: err }));
    });
    assert.equal(stderr, '');
    assert.equal(status, 0);
  });

  it('help cut short by its reader (--help | head -1) ends quietly, for the program and for a command', async () => {
    for (const args of [['--help'], ['eval', '--help'], ['search', '--help']]) {
      const { status, stderr } = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
        const child = spawnCli(args);
        let err = '';
        child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
        // Closed before the help is written, as `head` closes its end once it has read enough.
        child.stdout.destroy();
        child.on('error', reject);
        child.on('close', (code) => resolve({ status: code, stderr: err }));
      });
      assert.equal(stderr, '', args.join(' '));
      assert.equal(status, 0, args.join(' '));
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { acquireIngestLock } from '../../src/store/lock.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const samplePdf = path.join(repoRoot, 'rawdoc', '证券投资基金_下册.pdf');

function cli(root: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, '--root', root, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('ingest on bad input, through the CLI', () => {
  let tmp: TempRoot;
  let rawdoc: string;

  before(() => {
    tmp = makeTempRoot();
    rawdoc = path.join(tmp.root, 'rawdoc');
    mkdirSync(rawdoc);
    copyFileSync(samplePdf, path.join(rawdoc, 'good-下册.pdf'));
    writeFileSync(path.join(rawdoc, 'empty.pdf'), '');
    writeFileSync(path.join(rawdoc, 'truncated.pdf'), readFileSync(samplePdf).subarray(0, 1500));
    writeFileSync(path.join(rawdoc, 'notes.md'), '# 第一章 笔记\n\n## 第一节 要点\n\n货币市场基金的平均剩余期限不得超过一百二十天。\n');
  });
  after(() => tmp.cleanup());

  it('reports each bad file on one line, ingests the rest, and exits 3 (partial)', () => {
    const r = cli(tmp.root, ['ingest']);
    assert.equal(r.status, 3, r.stderr);
    const errorLines = r.stderr.split('\n').filter((l) => /empty\.pdf|truncated\.pdf/.test(l));
    assert.ok(
      errorLines.some((l) => l.includes('empty.pdf')),
      r.stderr,
    );
    assert.ok(
      errorLines.some((l) => l.includes('truncated.pdf')),
      r.stderr,
    );
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    const chunks = readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { source: string });
    const sources = new Set(chunks.map((c) => c.source));
    assert.deepEqual([...sources].sort(), ['rawdoc/good-下册.pdf', 'rawdoc/notes.md']);
  });

  it('--strict stops at the first failure and keeps what was built before', () => {
    const before = readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8');
    const r = cli(tmp.root, ['ingest', '--strict', '--force']);
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('exam-copilot:')).length,
      1,
      r.stderr,
    );
    assert.match(r.stderr, /empty\.pdf|truncated\.pdf/);
    assert.equal(readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8'), before, 'the previous build was kept');
  });

  it('names a missing path as a usage error and an unsupported file as a failure', () => {
    const missing = cli(tmp.root, ['ingest', path.join(tmp.root, 'nope.pdf')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /nope\.pdf/);
    writeFileSync(path.join(rawdoc, 'slides.docx'), 'not a pdf');
    const wrong = cli(tmp.root, ['ingest', path.join(rawdoc, 'slides.docx')]);
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stderr, /slides\.docx/);
  });

  it('refuses to run while another live ingest holds the lock, naming the root and the holder (exit 1)', () => {
    const lockFile = path.join(tmp.root, '.exam-copilot', 'lock');
    // This test process takes the real lock, as a running ingest would.
    const held = acquireIngestLock(tmp.root, lockFile, 'exam-copilot ingest');
    try {
      const r = cli(tmp.root, ['ingest', '--force']);
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`another ingest is running in .*pid ${process.pid}`));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    } finally {
      held.release();
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runOfflineCli } from '../helpers/run-cli.js';

/**
 * A real small file system (tmpfs) for the root, so the kernel itself refuses the writes: as root, chmod would not
 * stop anything. Mounting needs root (CI runs as root); elsewhere the tests skip and say why.
 */
function mountTmpfs(dir: string, sizeMb: number): string | null {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? null : `cannot mount a tmpfs here (${(r.stderr || r.error?.message || 'mount failed').trim()})`;
}
const unmount = (dir: string): void => void spawnSync('umount', [dir]);

const note = '# 笔记\n\n基金托管人负责保管基金财产。\n';

/** A note of about 800 KB: more than the space left on the nearly full disk. */
function bigNote(): string {
  const words = ['基金托管人', '基金管理人', '证券公司', '投资者', '基金份额', '净值', '申购', '赎回', '信息披露', '监督管理'];
  const lines = ['# 大笔记', ''];
  for (let i = 0; i < 3000; i++)
    lines.push(`第${i}段 ${Array.from({ length: 20 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join('，')}。`, '');
  return lines.join('\n');
}

const probe = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-mount-'));
const cannotMount = mountTmpfs(probe, 1);
if (cannotMount === null) unmount(probe);
rmSync(probe, { recursive: true, force: true });

void describe('ingest on a folder it cannot write to, or a disk that fills up', { skip: cannotMount ?? false }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-fs-'));
  });
  after(() => {
    unmount(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  void it('a read-only root: one line naming the folder and what to do, no stack trace', () => {
    assert.equal(mountTmpfs(dir, 4), null);
    try {
      mkdirSync(path.join(dir, 'rawdoc'));
      writeFileSync(path.join(dir, 'rawdoc', 'n.md'), note);
      assert.equal(spawnSync('mount', ['-o', 'remount,ro', dir]).status, 0);
      const r = runOfflineCli(['--root', dir, 'ingest']);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`${dir}: cannot write to this folder \\(it is on a read-only file system\\).*a folder you can write to`, 'u'),
      );
      assert.doesNotMatch(r.stderr, /internal error|ENOENT|\n\s+at /u);
    } finally {
      unmount(dir);
    }
  });

  void it('a full disk: one line saying so, the previous index kept and searchable, no staging left behind', () => {
    assert.equal(mountTmpfs(dir, 40), null);
    try {
      mkdirSync(path.join(dir, 'rawdoc'));
      writeFileSync(path.join(dir, 'rawdoc', 'n.md'), note);
      assert.equal(runOfflineCli(['--root', dir, 'ingest']).status, 0);
      writeFileSync(path.join(dir, 'rawdoc', 'big.md'), bigNote());
      // Fill the disk but for 300 KB.
      const fs = statfsSync(dir);
      writeFileSync(path.join(dir, 'fill.bin'), Buffer.alloc(Math.max(0, fs.bavail * fs.bsize - 300 * 1024)));
      const r = runOfflineCli(['--root', dir, 'ingest']);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`${dir}: the disk is full .*the previous index is kept unchanged: free space on that disk`, 'u'));
      assert.doesNotMatch(r.stderr, /internal error|SqliteError|\n\s+at /u);
      assert.ok(!readdirSync(path.join(dir, '.exam-copilot')).includes('staging'));
      const s = runOfflineCli(['--root', dir, 'search', '基金托管人负责保管', '--mode', 'keyword']);
      assert.equal(s.status, 0, s.stderr);
      assert.match(s.stdout, /n \| 笔记/u);
    } finally {
      unmount(dir);
    }
  });
});

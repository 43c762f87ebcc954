import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import PDFDocument from 'pdfkit';
import { openAskSession } from '../../src/answer/run-ask.js';
import { loadConfig, type ExamCopilotConfig } from '../../src/config/load-config.js';
import { UserError } from '../../src/errors.js';
import { acquireLock } from '../../src/store/lock.js';
import { checkFreshness } from '../../src/store/freshness.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { runToc } from '../../src/retrieve/run-toc.js';
import type { Chunk } from '../../src/types.js';
import { makeTempRoot, repoRoot, type TempRoot } from '../helpers/temp-root.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');

const NOTE =
  '# 第一章 基金概述\n\n## 第一节 基金的特点\n\n证券投资基金是一种利益共享、风险共担的集合投资方式。基金财产由基金托管人保管。\n';

function config(root: string): ExamCopilotConfig {
  return loadConfig({ root, env: {} }).config;
}

function readChunks(root: string): Chunk[] {
  const file = path.join(root, 'data', 'chunks.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Chunk);
}

/** Rows in the FTS metadata table, rows in the FTS5 table and vector ids: the three must agree. */
function indexCounts(root: string): { chunks: number; fts: number; ftsRows: number; vectors: number } {
  const db = new Database(path.join(root, 'index', 'sqlite_fts.db'), { readonly: true });
  try {
    const chunks = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    const ftsRows = (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;
    const ids = JSON.parse(readFileSync(path.join(root, 'index', 'faiss', 'ids.json'), 'utf8')) as string[];
    return { chunks: readChunks(root).length, fts: chunks, ftsRows, vectors: ids.length };
  } finally {
    db.close();
  }
}

/** A small text PDF (Latin text: pdfkit's built-in fonts have no CJK glyphs). */
function makePdf(file: string, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({});
    const parts: Buffer[] = [];
    doc.on('data', (c: Buffer) => parts.push(c));
    doc.on('end', () => {
      writeFileSync(file, Buffer.concat(parts));
      resolve();
    });
    doc.on('error', reject);
    for (const l of lines) doc.text(l);
    doc.end();
  });
}

/** A well-formed PDF whose page tree is empty. */
function zeroPagePdf(): string {
  const objs = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>'];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  return `${out}trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

void describe('symlinks in rawdoc/', () => {
  let tmp: TempRoot;
  let outside: string;
  before(() => {
    tmp = makeTempRoot();
    outside = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-outside-'));
    const rawdoc = path.join(tmp.root, 'rawdoc');
    mkdirSync(rawdoc);
    writeFileSync(path.join(rawdoc, 'a.md'), NOTE);
    writeFileSync(path.join(outside, 'far.md'), NOTE.replace('基金托管人', '基金管理人'));
    symlinkSync('.', path.join(rawdoc, 'again'));
    symlinkSync('..', path.join(rawdoc, 'up'));
    symlinkSync('a.md', path.join(rawdoc, 'alias.md'));
    symlinkSync(outside, path.join(rawdoc, 'elsewhere'));
    symlinkSync('loop-b.md', path.join(rawdoc, 'loop-a.md'));
    symlinkSync('loop-a.md', path.join(rawdoc, 'loop-b.md'));
  });
  after(() => {
    tmp.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  void it('enters each real folder once, ingests each real file once, and says so about links', async () => {
    const result = await runIngest({ root: tmp.root, config: config(tmp.root) });
    const sources = [...new Set(readChunks(tmp.root).map((c) => c.source))].sort();
    assert.deepEqual(sources, ['rawdoc/a.md', 'rawdoc/elsewhere/far.md']);
    const messages = result.warnings.map((w) => `${w.where}: ${w.message}`);
    assert.ok(
      messages.some((m) => m.startsWith('rawdoc/alias.md: is the same file as rawdoc/a.md')),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => m.startsWith('rawdoc/again: is a link to a folder already scanned')),
      messages.join('\n'),
    );
    // Said once, for the linked folder, not again for each file in it.
    assert.deepEqual(
      messages.filter((m) => m.includes('outside the root')).map((m) => m.slice(0, m.indexOf(':'))),
      ['rawdoc/elsewhere'],
    );
    // A link cycle between two files is one failed entry each, named, not a hang.
    const loop = result.files.find((f) => f.source === 'rawdoc/loop-a.md');
    assert.equal(loop?.status, 'failed');
    assert.match(loop?.error ?? '', /loops back on itself/);
  });
});

void describe('a file that fails keeps what it had', () => {
  let tmp: TempRoot;
  let rawdoc: string;
  let goodPdf: Buffer;
  before(async () => {
    tmp = makeTempRoot();
    rawdoc = path.join(tmp.root, 'rawdoc');
    mkdirSync(rawdoc);
    await makePdf(path.join(rawdoc, 'book.pdf'), [
      'Chapter 1 Funds',
      'A fund is a pool of money managed for investors.',
      'The custodian keeps the assets of the fund safe.',
    ]);
    goodPdf = readFileSync(path.join(rawdoc, 'book.pdf'));
    writeFileSync(path.join(rawdoc, 'notes.md'), NOTE);
  });
  after(() => tmp.cleanup());

  void it('keeps the previous chunks of a PDF that became unreadable, with a warning and a failed status', async () => {
    const first = await runIngest({ root: tmp.root, config: config(tmp.root) });
    assert.equal(first.totals.failed, 0);
    const bookChunks = readChunks(tmp.root).filter((c) => c.source === 'rawdoc/book.pdf');
    assert.ok(bookChunks.length > 0);
    // A truncated download replaces the good file.
    writeFileSync(path.join(rawdoc, 'book.pdf'), goodPdf.subarray(0, 400));
    writeFileSync(path.join(rawdoc, 'notes.md'), `${NOTE}\n基金份额持有人享有收益分配权。\n`);
    const second = await runIngest({ root: tmp.root, config: config(tmp.root) });
    const book = second.files.find((f) => f.source === 'rawdoc/book.pdf');
    assert.equal(book?.status, 'failed');
    assert.equal(book?.kept, true);
    assert.ok(book?.warnings.some((w) => w.message.startsWith('kept the previous version of rawdoc/book.pdf')));
    assert.deepEqual(
      readChunks(tmp.root).filter((c) => c.source === 'rawdoc/book.pdf'),
      bookChunks,
    );
    const counts = indexCounts(tmp.root);
    assert.equal(counts.fts, counts.chunks);
    assert.equal(counts.vectors, counts.chunks);
    // Kept twice in a row (the record still points at the good version), then replaced once the file is good again.
    const third = await runIngest({ root: tmp.root, config: config(tmp.root) });
    assert.equal(third.upToDate, false, 'a failed file is retried on every run');
    assert.equal(third.files.find((f) => f.source === 'rawdoc/book.pdf')?.kept, true);
    assert.deepEqual(
      readChunks(tmp.root).filter((c) => c.source === 'rawdoc/book.pdf'),
      bookChunks,
    );
    writeFileSync(path.join(rawdoc, 'book.pdf'), goodPdf);
    const fourth = await runIngest({ root: tmp.root, config: config(tmp.root) });
    assert.equal(fourth.totals.failed, 0);
  });

  void it('never replaces a good index when nothing could be read, even after a settings change', async () => {
    await runIngest({ root: tmp.root, config: config(tmp.root) });
    const before = readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8');
    const ftsBefore = statSync(path.join(tmp.root, 'index', 'sqlite_fts.db'));
    writeFileSync(path.join(rawdoc, 'book.pdf'), goodPdf.subarray(0, 400));
    writeFileSync(path.join(rawdoc, 'notes.md'), '');
    // Other chunk sizes: the previous chunks cannot be reused, so every file fails with nothing to keep.
    writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), JSON.stringify({ chunking: { maxChars: 300 } }));
    const result = await runIngest({ root: tmp.root, config: config(tmp.root) });
    assert.equal(result.totals.failed, 2);
    assert.equal(result.index, null);
    assert.ok(
      result.warnings.some((w) => /nothing could be read \(2 of 2 files failed\); the previous index is kept unchanged/.test(w.message)),
      JSON.stringify(result.warnings),
    );
    assert.equal(readFileSync(path.join(tmp.root, 'data', 'chunks.jsonl'), 'utf8'), before);
    assert.equal(statSync(path.join(tmp.root, 'index', 'sqlite_fts.db')).ino, ftsBefore.ino);
    rmSync(path.join(tmp.root, 'exam-copilot.config.json'));
  });

  void it('fails a PDF with no pages with a one-line reason and exit 3', () => {
    writeFileSync(path.join(rawdoc, 'book.pdf'), goodPdf);
    writeFileSync(path.join(rawdoc, 'notes.md'), NOTE);
    writeFileSync(path.join(rawdoc, 'blank.pdf'), zeroPagePdf());
    const r = cli(['--root', tmp.root, 'ingest']);
    assert.equal(r.status, 3, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.includes('blank.pdf'));
    assert.deepEqual(lines, ['error: rawdoc/blank.pdf: is a PDF with no pages; re-export or re-download it']);
    rmSync(path.join(rawdoc, 'blank.pdf'));
  });
});

void describe('freshness', () => {
  let tmp: TempRoot;
  before(async () => {
    tmp = makeTempRoot();
    mkdirSync(path.join(tmp.root, 'rawdoc'));
    writeFileSync(path.join(tmp.root, 'rawdoc', 'notes.md'), NOTE);
    await runIngest({ root: tmp.root, config: config(tmp.root) });
  });
  after(() => tmp.cleanup());

  void it('notices an edited user dictionary in ingest and in the shared check doctor uses', async () => {
    assert.deepEqual((await checkFreshness({ root: tmp.root, config: config(tmp.root) })).stale, []);
    writeFileSync(path.join(tmp.root, 'rawdoc', 'userdict.txt'), '利益共享\n风险共担\n');
    const fresh = await checkFreshness({ root: tmp.root, config: config(tmp.root) });
    assert.deepEqual(fresh.stale, ['user dictionary changed (rawdoc/userdict.txt or userDict)']);
    const again = await runIngest({ root: tmp.root, config: config(tmp.root) });
    assert.equal(again.upToDate, false);
    assert.equal(again.files[0]?.status, 'unchanged', 'chunks are reused; only the index is rebuilt');
    assert.deepEqual((await checkFreshness({ root: tmp.root, config: config(tmp.root) })).stale, []);
    assert.equal((await runIngest({ root: tmp.root, config: config(tmp.root) })).upToDate, true);
  });

  void it('names a build by an earlier ingest as the cause, and parses every file again', async () => {
    const manifestFile = path.join(tmp.root, 'data', 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { parserVersion: string; configFingerprint: string };
    // What an earlier version wrote: its own parser version, so a fingerprint that no longer matches.
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, parserVersion: 'ingest-1', configFingerprint: '0000000000000000' }));
    const fresh = await checkFreshness({ root: tmp.root, config: config(tmp.root) });
    assert.deepEqual(fresh.stale, ['built by an earlier version of ingest (ingest-1)']);
    const again = await runIngest({ root: tmp.root, config: config(tmp.root) });
    assert.deepEqual(
      again.files.map((f) => f.status),
      ['ok'],
    );
    assert.deepEqual((await checkFreshness({ root: tmp.root, config: config(tmp.root) })).stale, []);
  });

  void it('an open ask session (REPL, pipe) answers from the new index after another ingest', async () => {
    const session = await openAskSession({
      root: tmp.root,
      config: config(tmp.root),
      mode: 'keyword',
      topK: 3,
      rerank: false,
      cache: false,
      answerer: 'offline',
    });
    try {
      const question = '基金财产由哪个机构保管？A.甲乙丙托管公司 B.基金托管人 C.基金管理人 D.销售机构';
      const before = await session.ask(question);
      assert.ok(!JSON.stringify(before.result.context).includes('甲乙丙托管公司'));
      writeFileSync(
        path.join(tmp.root, 'rawdoc', 'more.md'),
        '# 第二章 保管\n\n基金财产由甲乙丙托管公司独立保管，甲乙丙托管公司是基金托管人。\n',
      );
      await runIngest({ root: tmp.root, config: config(tmp.root) });
      const after = await session.ask(question);
      assert.ok(JSON.stringify(after.result.context).includes('甲乙丙托管公司'), 'the new chunk is found without restarting the session');
    } finally {
      session.close();
      rmSync(path.join(tmp.root, 'rawdoc', 'more.md'));
      await runIngest({ root: tmp.root, config: config(tmp.root) });
    }
  });

  void it('toc and doctor repair an interrupted swap as search and ask do', () => {
    const outline = readFileSync(path.join(tmp.root, 'data', 'outline.json'), 'utf8');
    // A crash right after data/ was moved aside: the live data/ is missing.
    const previous = path.join(tmp.root, '.exam-copilot', 'previous');
    mkdirSync(previous, { recursive: true });
    renameSync(path.join(tmp.root, 'data'), path.join(previous, 'data'));
    assert.deepEqual(runToc({ root: tmp.root }).entries, JSON.parse(outline));
    assert.equal(readFileSync(path.join(tmp.root, 'data', 'outline.json'), 'utf8'), outline);
    mkdirSync(previous, { recursive: true });
    renameSync(path.join(tmp.root, 'data'), path.join(previous, 'data'));
    const r = cli(['--root', tmp.root, 'doctor', '--json']);
    const report = JSON.parse(r.stdout) as { checks: { name: string; status: string; message: string }[] };
    const index = report.checks.find((c) => c.name === 'index');
    assert.equal(index?.status, 'ok', index?.message);
    assert.equal(existsSync(previous), false);
  });
});

void describe('the root folder', () => {
  let tmp: TempRoot;
  before(() => {
    tmp = makeTempRoot();
  });
  after(() => tmp.cleanup());

  void it('a missing --root is named, exits 1, and nothing is created there', async () => {
    const missing = path.join(tmp.root, 'no-such-folder');
    for (const args of [['ingest'], ['doctor'], ['search', '基金'], ['ask', '基金财产由谁保管？'], ['toc']]) {
      const r = cli(['--root', missing, ...args]);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.deepEqual(r.stderr.trim().split('\n'), [
        `exam-copilot: root folder ${missing} does not exist; check --root (or EXAM_COPILOT_ROOT), or create the folder with a rawdoc/ inside`,
      ]);
    }
    assert.equal(existsSync(missing), false);
    await assert.rejects(
      runIngest({ root: missing, config: config(tmp.root) }),
      (e: unknown) => e instanceof UserError && /does not exist/.test(e.message),
    );
    assert.equal(existsSync(missing), false);
  });

  void it('a --root that is a file is a one-line error', () => {
    const file = path.join(tmp.root, 'notes.md');
    writeFileSync(file, NOTE);
    const r = cli(['--root', file, 'ingest']);
    assert.equal(r.status, 1);
    assert.deepEqual(r.stderr.trim().split('\n'), [
      `exam-copilot: root ${file} is a file, not a folder; point --root at the folder that holds rawdoc/`,
    ]);
  });
});

void describe('terminal escapes in file names', () => {
  let tmp: TempRoot;
  before(() => {
    tmp = makeTempRoot();
    mkdirSync(path.join(tmp.root, 'rawdoc'));
    writeFileSync(path.join(tmp.root, 'rawdoc', 'notes.md'), NOTE);
    // A name that would clear the screen and retitle the terminal, and one with a newline in it.
    writeFileSync(path.join(tmp.root, 'rawdoc', 'evil\u001b[2J\u001b]0;pwned\u0007.pdf'), 'not a pdf');
    writeFileSync(path.join(tmp.root, 'rawdoc', 'two\nlines.pdf'), '');
  });
  after(() => tmp.cleanup());

  void it('prints them escaped, one line each, in the table and in errors', () => {
    const r = cli(['--root', tmp.root, 'ingest']);
    assert.equal(r.status, 3, r.stderr);
    assert.ok(
      !(r.stdout + r.stderr).includes('\u001b') && !(r.stdout + r.stderr).includes('\u0007'),
      'no raw ESC or BEL reaches the terminal',
    );
    assert.match(r.stdout, /rawdoc\/evil\\x1b\[2J\\x1b\]0;pwned\\x07\.pdf +failed/);
    assert.match(r.stdout, /rawdoc\/two\\x0alines\.pdf +failed/);
    assert.ok(r.stderr.split('\n').includes('error: rawdoc/two\\x0alines.pdf: is empty (0 bytes)'), r.stderr);
  });
});

void describe('several ingests at once on one root', () => {
  let tmp: TempRoot;
  before(() => {
    tmp = makeTempRoot();
    mkdirSync(path.join(tmp.root, 'rawdoc'));
    writeFileSync(path.join(tmp.root, 'rawdoc', 'a.md'), NOTE);
    writeFileSync(path.join(tmp.root, 'rawdoc', 'b.md'), NOTE.replace('托管人', '管理人'));
  });
  after(() => tmp.cleanup());

  const start = (): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, '--root', tmp.root, 'ingest', '--force'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, NO_COLOR: '1' },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });

  void it('builds once at a time: the others exit 1 naming the root, and the index is consistent', async () => {
    const runs = await Promise.all([start(), start(), start()]);
    for (const r of runs) {
      assert.ok(r.code === 0 || r.code === 1, r.stderr);
      if (r.code === 1) assert.match(r.stderr, new RegExp(`^exam-copilot: another ingest is running in ${tmp.root} \\(pid \\d+`));
      assert.doesNotMatch(r.stderr, /I\/O error|internal error|SQLITE/);
    }
    assert.ok(runs.some((r) => r.code === 0));
    const counts = indexCounts(tmp.root);
    assert.deepEqual(counts, { chunks: counts.chunks, fts: counts.chunks, ftsRows: counts.chunks, vectors: counts.chunks });
    assert.ok(counts.chunks > 0);
    assert.deepEqual(
      readdirSync(path.join(tmp.root, '.exam-copilot')).filter((f) => f === 'staging' || f === 'previous' || f === 'lock'),
      [],
    );
  });
});

void describe('one-line errors for bad paths and busy folders', () => {
  let tmp: TempRoot;
  let dataset: string;
  before(async () => {
    tmp = makeTempRoot();
    mkdirSync(path.join(tmp.root, 'rawdoc'));
    writeFileSync(path.join(tmp.root, 'rawdoc', 'notes.md'), NOTE);
    await runIngest({ root: tmp.root, config: config(tmp.root) });
    dataset = path.join(tmp.root, 'set.csv');
    writeFileSync(dataset, 'id,question,A,B,C,D,answer\nQ1,基金财产由（ ）保管。,基金托管人,基金管理人,基金销售机构,基金份额登记机构,A\n');
  });
  after(() => tmp.cleanup());

  const oneLine = (r: { stderr: string }): string[] => r.stderr.trim().split('\n');

  void it('a binary or non-UTF-8 userdict.txt names the file and line (ingest, search)', () => {
    const dict = path.join(tmp.root, 'rawdoc', 'userdict.txt');
    for (const [bytes, line] of [
      [Buffer.from('基金托管人\n\u0000\u0001\u0002PK\n'), 2],
      [Buffer.from([0xbb, 0xf9, 0xbd, 0xf0, 0x0a]), 1],
    ] as const) {
      writeFileSync(dict, bytes);
      for (const args of [['ingest'], ['search', '基金']]) {
        const r = cli(['--root', tmp.root, ...args]);
        assert.equal(r.status, 1, r.stderr);
        assert.deepEqual(oneLine(r), [
          `exam-copilot: ${dict}: line ${line} is not UTF-8 text (binary, or another encoding such as GBK); save the dictionary as UTF-8, one term per line`,
        ]);
      }
    }
    rmSync(dict);
  });

  void it('--report-json, --report-md and --predictions pointing to a folder are usage errors', () => {
    for (const flag of ['--report-json', '--report-md', '--predictions']) {
      const r = cli(['--root', tmp.root, 'eval', dataset, '--modes', 'keyword', flag, tmp.root]);
      assert.equal(r.status, 2, r.stderr);
      assert.deepEqual(oneLine(r), [
        `exam-copilot: ${flag} ${tmp.root} is a folder; give the path of a file to write (a file inside that folder is fine)`,
      ]);
    }
  });

  void it('a run directory another eval is using is a one-line error, and is free again afterwards', () => {
    const runDir = path.join(tmp.root, 'runs');
    const held = acquireLock({ file: path.join(runDir, '.lock'), command: 'exam-copilot eval', busy: () => 'busy' });
    try {
      const r = cli(['--root', tmp.root, 'eval', dataset, '--modes', 'keyword', '--run-dir', runDir]);
      assert.equal(r.status, 1, r.stderr);
      assert.match(
        oneLine(r).join('\n'),
        new RegExp(
          `^exam-copilot: another eval is using the run directory ${runDir} \\(pid ${process.pid}, started [^)]+\\); wait for it, or pass another --run-dir$`,
        ),
      );
    } finally {
      held.release();
    }
    const ok = cli(['--root', tmp.root, 'eval', dataset, '--modes', 'keyword', '--run-dir', runDir]);
    assert.equal(ok.status, 0, ok.stderr);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { ingestProgress, ingestProgressLine, progressBar, reportIngest } from '../../src/cli/report/ingest.js';
import { createUi, type Ui } from '../../src/cli/report/ui.js';
import type { IngestFileResult, IngestResult } from '../../src/ingest/ingest-types.js';

/** `ingestProgress` on a spinner that records every line it is given, with the clock `now`. */
function recordedProgress(now: () => number): { lines: string[]; p: ReturnType<typeof ingestProgress> } {
  const lines: string[] = [];
  const ui = {
    spinner: () => ({ update: (t: string) => lines.push(t), succeed: () => undefined, fail: () => undefined, stop: () => undefined }),
  } as unknown as Ui;
  return { lines, p: ingestProgress(ui, now) };
}

void describe('ingest progress line', () => {
  void it('shows files with a bar, files/s and the ETA of the parsing phase', () => {
    const phase = { name: 'files', startedMs: 0, startDone: 0 };
    // 300 of 1,512 files parsed in 60 s: 5 files/s, 1,212 left → 4m02s.
    const line = ingestProgressLine({ kind: 'file', index: 301, total: 1512, source: '民法典/总则.md' }, phase, 60_000, '');
    assert.equal(line, 'ingest [####----------------] 301/1512 files · 5.0 files/s · ETA 4m02s · 民法典/总则.md');
    assert.equal(
      ingestProgressLine({ kind: 'file', index: 1, total: 3, source: 'a.md' }, phase, 0, ''),
      'ingest [--------------------] 1/3 files · a.md',
    );
  });

  void it('shows chunks/s and the ETA of an index stage', () => {
    const phase = { name: 'index:fit', startedMs: 1000, startDone: 0 };
    const line = ingestProgressLine({ kind: 'index', stage: 'fit', done: 4000, total: 16000 }, phase, 3000, '');
    assert.equal(line, 'ingest: index fit [#####---------------] 4000/16000 chunks · 2000 chunks/s · ETA 6s');
    assert.equal(progressBar(5, 0, 4), '[----]');
    assert.equal(progressBar(9, 4, 4), '[####]');
  });

  void it("does not count the parser's start-up into the page rate", () => {
    let t = 0;
    const { lines, p } = recordedProgress(() => t);
    p.onProgress({ kind: 'file', index: 1, total: 1, source: 'book.pdf' });
    // The first page comes after 2.5 s of start-up; then 25 pages a second.
    t = 2_500;
    p.onProgress({ kind: 'page', source: 'book.pdf', page: 1, pages: 252 });
    for (let page = 2; page <= 51; page++) {
      t += 40;
      p.onProgress({ kind: 'page', source: 'book.pdf', page, pages: 252 });
    }
    assert.equal(lines.at(-1), 'ingest [1/1] book.pdf: page 51/252, 25 pages/s, ETA 8 s');
  });

  void it('restarts the rate when the phase changes', () => {
    let t = 0;
    const { lines, p } = recordedProgress(() => t);
    p.onProgress({ kind: 'file', index: 1, total: 2, source: 'a.md' });
    t = 10_000;
    p.onProgress({ kind: 'file', index: 2, total: 2, source: 'b.md' });
    p.onProgress({ kind: 'index', stage: 'fts', done: 0, total: 100 });
    t = 11_000;
    p.onProgress({ kind: 'index', stage: 'fts', done: 50, total: 100 });
    assert.match(lines[1]!, /0\.1 files\/s · ETA 10s/);
    assert.match(lines[3]!, /50\/100 chunks · 50 chunks\/s · ETA 1s$/);
  });
});

void describe('ingest summary table', () => {
  /** A library of `n` notes: the first failed, the second warned, the rest unchanged. */
  function library(n: number): IngestResult {
    const files: IngestFileResult[] = Array.from({ length: n }, (_, i) => ({
      source: `rawdoc/law-${String(i).padStart(3, '0')}.md`,
      kind: 'md',
      book: `law-${i}`,
      status: i === 0 ? 'failed' : 'unchanged',
      pages: 0,
      chunks: i === 0 ? 0 : 10,
      tableRows: 0,
      warnings: i === 1 ? [{ where: 'rawdoc/law-001.md', message: 'no body text found' }] : [],
      ...(i === 0 ? { error: 'rawdoc/law-000.md: cannot be read (EACCES); check its permissions' } : {}),
      elapsedMs: 1,
    }));
    const totals = { files: n, failed: 1, pages: 0, chunks: 10 * (n - 1), tableRows: 0, warnings: 1 };
    return { root: '/r', upToDate: false, files, totals, index: null, warnings: [], elapsedMs: 5 };
  }
  function printed(result: IngestResult, verbose: boolean): string[] {
    let out = '';
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    const stderr = new Writable({ write: (_chunk, _encoding, done) => done() });
    const ui = createUi(
      { json: false, quiet: false, verbose },
      { stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream, env: { NO_COLOR: '1' } },
    );
    reportIngest(ui, result);
    return out.trimEnd().split('\n');
  }

  void it('lists every file of a small build', () => {
    const lines = printed(library(40), false);
    assert.equal(lines.length, 1 + 40 + 1);
    assert.match(lines[40]!, /^rawdoc\/law-039\.md +unchanged +0 +10 +0 +0 *$/);
  });

  void it('past 40 files lists only the failed and warned ones and counts the rest; --verbose lists all', () => {
    const lines = printed(library(1512), false);
    assert.deepEqual(
      lines.map((l) => l.split(/\s{2,}/)[0]),
      [
        'file',
        'rawdoc/law-000.md',
        'rawdoc/law-001.md',
        '… 1510 other files not listed (1510 unchanged); --verbose lists every file',
        'total',
      ],
    );
    assert.match(lines[4]!, /^total +1 failed +0 +15110 +0 +1 *$/);
    assert.equal(printed(library(1512), true).length, 1 + 1512 + 1);
  });
});

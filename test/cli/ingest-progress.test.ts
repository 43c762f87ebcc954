import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ingestProgress, ingestProgressLine, progressBar } from '../../src/cli/report/ingest.js';
import type { Ui } from '../../src/cli/report/ui.js';

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

  void it('restarts the rate when the phase changes', () => {
    const lines: string[] = [];
    const ui = {
      spinner: () => ({ update: (t: string) => lines.push(t), succeed: () => undefined, fail: () => undefined, stop: () => undefined }),
    } as unknown as Ui;
    let t = 0;
    const p = ingestProgress(ui, () => t);
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

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runOfflineCli } from '../helpers/run-cli.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { buildFixtureIndex, type FixtureIndex } from './fixture-index.js';

const run = runOfflineCli;

describe('search and toc commands', () => {
  let fx: FixtureIndex;
  before(async () => {
    fx = await buildFixtureIndex();
  });
  after(() => fx.cleanup());

  it('search --json prints the hits in the documented shape', () => {
    const r = run(['--root', fx.root, 'search', '基金托管人的职责', '--mode', 'keyword', '--top-k', '2', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { hits: Record<string, unknown>[] };
    assert.equal(out.hits.length, 2);
    assert.equal(out.hits[0]!.chunk_id, 'shangce-0006');
    assert.equal(out.hits[0]!.page_start, '22');
    assert.equal(typeof out.hits[0]!.score, 'number');
  });

  it('search prints rank, score, location with printed pages, and a snippet', () => {
    const r = run(['--root', fx.root, 'search', '表2-1', '开放式基金', '--pages', '12-14']);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(
      lines[0]!,
      /^ 1\. \d+\.\d{4} {2}上册 \| 第二章 基金的分类 \| 第一节 开放式基金与封闭式基金 \| 表2-1 \| p\.14 \[manual_table_rewrite\]$/,
    );
    assert.match(lines[1]!, /^ {4}表2-1 开放式基金与封闭式基金的比较/);
  });

  it('a terminal escape in a file name is shown escaped in search and ask evidence lines, never sent raw', () => {
    const note = '# 托管笔记\n\n基金托管人负责保管基金财产，基金管理人负责投资管理。\n';
    const tmp = makeTempRoot({ files: { 'rawdoc/esc\u001b[31mred.md': note } });
    try {
      assert.equal(run(['--root', tmp.root, 'ingest']).status, 0);
      const search = run(['--root', tmp.root, 'search', '基金托管人负责保管', '--mode', 'keyword']);
      const ask = run(['--root', tmp.root, 'ask', '基金财产由（ ）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.证券公司']);
      for (const r of [search, ask]) {
        assert.equal(r.status, 0, r.stderr);
        assert.ok(!r.stdout.includes('\u001b'), JSON.stringify(r.stdout));
        assert.match(r.stdout, /esc\\x1b\[31mred \| 托管笔记/u);
      }
    } finally {
      tmp.cleanup();
    }
  });

  it('a Markdown note: search cites it without a page (a note has none), toc lists its headings', () => {
    const note =
      '# 货币基金笔记\n\n## 第一章 投资范围\n\n货币市场基金的平均剩余期限不得超过一百二十天。\n\n### 第一节 禁投品种\n\n不得投资于股票。\n';
    const notes = makeTempRoot({ files: { 'rawdoc/notes.md': note } });
    try {
      assert.equal(run(['--root', notes.root, 'ingest']).status, 0);
      const r = run(['--root', notes.root, 'search', '货币市场基金的平均剩余期限', '--mode', 'keyword']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout.split('\n')[0]!, /^ 1\. \d+\.\d{4} {2}notes \| 货币基金笔记 \| 第一章 投资范围 \[note\]$/);
      const toc = run(['--root', notes.root, 'toc']);
      assert.equal(toc.status, 0, toc.stderr);
      assert.equal(toc.stdout, 'notes  (rawdoc/notes.md)\n  货币基金笔记\n    第一章 投资范围\n      第一节 禁投品种\n');
      const json = JSON.parse(run(['--root', notes.root, 'toc', '--json']).stdout) as { entries: Record<string, unknown>[] };
      assert.deepEqual(json.entries[1], {
        book: 'notes',
        source: 'rawdoc/notes.md',
        title: '第一章 投资范围',
        level: 2,
        page: null,
        pdf_page: null,
      });
    } finally {
      notes.cleanup();
    }
  });

  it('rejects bad options and a missing index with one line', () => {
    const bad = run(['--root', fx.root, 'search', '基金', '--mode', 'fuzzy']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--mode must be one of keyword, vector, hybrid/);
    const empty = makeTempRoot();
    try {
      const r = run(['--root', empty.root, 'search', '基金']);
      assert.equal(r.status, 5);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.match(r.stderr, /no index at .*run `exam-copilot ingest`/);
    } finally {
      empty.cleanup();
    }
  });

  it('toc prints the indented outline with printed pages', () => {
    const r = run(['--root', fx.root, 'toc']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^上册/);
    assert.match(r.stdout, /\n {2}第三章 基金的参与主体 {2}p\.22\n {4}第一节 基金当事人 {2}p\.22\n/);
    const json = JSON.parse(run(['--root', fx.root, 'toc', '--json']).stdout) as { books: string[] };
    assert.deepEqual(json.books, ['上册']);
  });
});

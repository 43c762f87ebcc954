import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { UserError } from '../../src/errors.js';
import { loadQueries } from '../../src/evaluate/load-queries.js';
import { judgeRanking, ndcgAt10, normalizeForJudge, retrievalScores } from '../../src/evaluate/retrieval-metrics.js';
import { runBatchSearch, trecRunLine } from '../../src/evaluate/run-batch-search.js';
import { runOfflineCli } from '../helpers/run-cli.js';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const cli = runOfflineCli;

describe('batch search files', () => {
  let tmp: TempRoot;
  const file = (name: string, content: string | Buffer): string => {
    const f = path.join(tmp.root, name);
    writeFileSync(f, content);
    return f;
  };
  before(() => {
    tmp = makeTempRoot();
  });
  after(() => tmp.cleanup());

  it('reads TSV with gold strings separated by ";"', async () => {
    const q = await loadQueries(
      file('q.tsv', 'query_id\tquery\trelevant\tarticles\n7\t托管人的职责是什么？\t基金托管人的职责;安全保管\t第一条\n8\t申购\t\t\n'),
    );
    assert.equal(q.format, 'tsv');
    assert.deepEqual(
      q.queries.map((x) => [x.id, x.line, x.query, x.relevant]),
      [
        ['7', 2, '托管人的职责是什么？', ['基金托管人的职责', '安全保管']],
        ['8', 3, '申购', []],
      ],
    );
    assert.equal(q.judged, true);
  });

  it('reads CSV with a BOM, and GBK-encoded CSV, like eval', async () => {
    const bom = await loadQueries(file('bom.csv', '\ufeffquery_id,query\na1,"开放式基金, 申购"\n'));
    assert.deepEqual(
      [bom.format, bom.encoding, bom.queries[0]!.id, bom.queries[0]!.query, bom.queries[0]!.relevant],
      ['csv', 'utf-8-bom', 'a1', '开放式基金, 申购', null],
    );
    assert.equal(bom.judged, false);
    const gbk = await loadQueries(file('gbk.csv', iconv.encode('query_id,query,relevant\nq1,夏普比率怎么算,夏普比率是\n', 'gbk')));
    assert.equal(gbk.encoding, 'gb18030');
    assert.deepEqual(gbk.queries[0]!.relevant, ['夏普比率是']);
  });

  it('reads JSONL with the same keys (relevant as string or array)', async () => {
    const q = await loadQueries(
      file(
        'q.jsonl',
        '{"query_id":1,"query":"久期","relevant":["麦考利久期"]}\n\n{"query_id":"b","query":"夏普","relevant":"夏普比率;特雷诺"}\n',
      ),
    );
    assert.equal(q.format, 'jsonl');
    assert.deepEqual(
      q.queries.map((x) => [x.id, x.line, x.relevant]),
      [
        ['1', 1, ['麦考利久期']],
        ['b', 3, ['夏普比率', '特雷诺']],
      ],
    );
  });

  it('skips bad rows with their line numbers and keeps the rest', async () => {
    const tsv = await loadQueries(file('bad.tsv', 'query_id\tquery\trelevant\n1\t\tx\n2\t申购\ty\n2\t赎回\tz\n'));
    assert.equal(tsv.skipped, 1);
    assert.deepEqual(
      tsv.warnings.map((w) => [w.where, w.message]),
      [
        [path.join(tmp.root, 'bad.tsv:2'), 'no query; row skipped'],
        [path.join(tmp.root, 'bad.tsv:4'), 'duplicate query_id "2" (first on line 3); using 2@4'],
      ],
    );
    assert.deepEqual(
      tsv.queries.map((x) => x.id),
      ['2', '2@4'],
    );
    const jsonl = await loadQueries(file('bad.jsonl', '{"query":"申购"}\nnot json\n[1]\n{"query":""}\n'));
    assert.deepEqual(
      jsonl.warnings.map((w) => w.where.split(':').pop()),
      ['2', '3', '4'],
    );
    assert.equal(jsonl.queries[0]!.id, 'L1');
  });

  it('fails with one line for a missing file, an empty file, no query column, or no usable row', async () => {
    const fails = async (f: string, pattern: RegExp): Promise<void> => {
      await assert.rejects(loadQueries(f), (e: unknown) => e instanceof UserError && pattern.test(e.message) && !e.message.includes('\n'));
    };
    await fails(path.join(tmp.root, 'nope.tsv'), /nope\.tsv: cannot read the queries \(no such file\)/);
    await fails(file('empty.csv', ''), /empty\.csv: the file is empty/);
    await fails(file('cols.csv', 'id,stem_text\n1,x\n'), /cols\.csv: no query column .*"stem_text"/);
    await fails(file('none.tsv', 'query_id\tquery\n1\t \n'), /none\.tsv: no usable queries \(1 skipped: first .*none\.tsv:2 no query/);
  });
});

describe('retrieval metrics (hand-made qrels)', () => {
  it('normalises like the judge: NFKC, Kangxi and supplement radicals, letters and digits only', () => {
    // ⼈ is the Kangxi radical (NFKC folds it), ⺠ the supplement radical (mapped), ＡＢ full width.
    assert.equal(normalizeForJudge('⼈⺠法院，依法（ＡＢ 1）！'), '人民法院依法AB1');
  });

  it('computes R@1/5/10, MRR@10, nDCG@10 and R@4k on a tiny set', () => {
    const q1 = judgeRanking(['无关', '第一条，甲方应当付款。', '甲方应当付款'], ['甲方应当付款']);
    assert.equal(q1.firstRelevant, 2);
    assert.deepEqual(q1.newGold, [[], [0], []]);
    // Two gold strings, found at ranks 1 and 3: DCG = 1 + 1/log2(4) = 1.5, ideal = 1 + 1/log2(3).
    const q2 = judgeRanking(['乙方的义务', 'x', '丙方的权利'], ['乙方的义务', '丙方的权利']);
    assert.ok(Math.abs(ndcgAt10(q2) - 1.5 / (1 + 1 / Math.log2(3))) < 1e-12);
    const q3 = judgeRanking(['a', 'b'], ['不存在']);
    const s = retrievalScores([q1, q2, q3]);
    assert.deepEqual(s.recall, { '1': 1 / 3, '5': 2 / 3, '10': 2 / 3 });
    assert.ok(Math.abs(s.mrr10 - (0.5 + 1) / 3) < 1e-12);
    assert.ok(Math.abs(s.ndcg10 - (1 / Math.log2(3) + 1.5 / (1 + 1 / Math.log2(3))) / 3) < 1e-12);
    assert.ok(Math.abs(s.recallBudget - 2 / 3) < 1e-12);
  });

  it('judges R@4k on the first 4,000 characters only, whatever the rank of the hit', () => {
    const filler = '无'.repeat(3995);
    assert.equal(judgeRanking([filler, '甲方应当付款'], ['甲方应当付款']).budgetHit, false);
    assert.equal(judgeRanking(['无'.repeat(3900), '甲方应当付款'], ['甲方应当付款']).budgetHit, true);
    // A rank beyond 10 still counts when the text fits the budget.
    assert.equal(judgeRanking([...Array.from({ length: 11 }, () => '无'), '甲方应当付款'], ['甲方应当付款']).budgetHit, true);
  });
});

describe('runBatchSearch on a real index', () => {
  let fx: FixtureIndex;
  before(async () => {
    fx = await buildFixtureIndex();
  });
  after(() => fx.cleanup());

  it('writes TREC run files per mode and judges each mode', async () => {
    const queries = path.join(fx.root, 'q.tsv');
    writeFileSync(
      queries,
      'query_id\tquery\trelevant\nq1\t基金托管人的职责有哪些\t安全保管基金财产\nq2\t麦考利久期是什么\t麦考利久期是债券各期现金流\nq3\t夏普比率\t\n',
    );
    const runDir = path.join(fx.root, 'runs');
    const reportJson = path.join(fx.root, 'report.json');
    const report = await runBatchSearch({
      root: fx.root,
      config: fx.config,
      file: queries,
      modes: ['keyword', 'hybrid'],
      k: 3,
      runDir,
      reportJson,
    });
    assert.equal(report.total, 3);
    assert.equal(report.judged, 2);
    assert.deepEqual(
      report.modes.map((m) => m.mode),
      ['keyword', 'hybrid'],
    );
    const kw = report.modes[0]!;
    assert.deepEqual(kw.scores?.recall, { '1': 1, '5': 1, '10': 1 });
    assert.equal(kw.scores?.mrr10, 1);
    const lines = readFileSync(path.join(runDir, 'q.keyword.trec'), 'utf8').trimEnd().split('\n');
    for (const l of lines) assert.match(l, /^q[123] Q0 \S+ [123] -?\d+\.\d{6} exam-copilot-keyword$/);
    for (const qid of ['q1', 'q2', 'q3']) {
      const ranks = lines.filter((l) => l.startsWith(`${qid} `)).map((l) => Number(l.split(' ')[3]));
      assert.deepEqual(
        ranks,
        ranks.map((_, i) => i + 1),
        qid,
      );
    }
    assert.equal(lines.filter((l) => l.startsWith('q1 ')).length, 3);
    assert.deepEqual(lines[0]!.split(' ').slice(0, 4), ['q1', 'Q0', 'shangce-0006', '1']);
    const q2 = lines.filter((l) => l.startsWith('q2 ')).map((l) => Number(l.split(' ')[4]));
    assert.deepEqual(
      q2,
      [...q2].sort((a, b) => b - a),
    );
    assert.ok(readFileSync(path.join(runDir, 'q.hybrid.trec'), 'utf8').includes(' exam-copilot-hybrid\n'));
    const json = JSON.parse(readFileSync(reportJson, 'utf8')) as {
      dataset: string;
      total: number;
      modes: Record<string, unknown>[];
      config: Record<string, unknown>;
    };
    assert.equal(json.total, 3);
    assert.deepEqual(Object.keys(json.modes[0]!).sort(), ['mode', 'mrr10', 'ndcg10', 'p50_ms', 'p95_ms', 'r4k', 'recall', 'run_file']);
    assert.deepEqual(json.modes[0]!.recall, { '1': 1, '5': 1, '10': 1 });
    assert.equal(json.config.budget_chars, 4000);
  });

  it('keeps whitespace out of run-file columns', () => {
    assert.equal(trecRunLine('q 1', 'c\t2', 1, 0.5, 'my tag'), 'q_1 Q0 c_2 1 0.500000 my_tag');
  });

  it('search --queries prints the table, and --json the report; a bad file is one line and exit 1', () => {
    const queries = path.join(fx.root, 'cli.jsonl');
    writeFileSync(queries, '{"query_id":"a","query":"封闭式基金份额固定","relevant":"封闭式基金是指"}\n{"query_id":"b","query":""}\n');
    const r = cli(['--root', fx.root, 'search', '--queries', queries, '--modes', 'keyword,vector', '-k', '5']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /cli\.jsonl:2: no query; row skipped/);
    assert.match(r.stdout, /: 1 query \(1 judged, 1 skipped\), k = 5/);
    assert.match(r.stdout, /^mode +R@1 +R@5 +R@10 +MRR@10 +nDCG@10 +R@4k +p50 ms +p95 ms$/m);
    // The table transcription comparing both fund types ranks first, the defining sentence second.
    assert.match(r.stdout, /^keyword +0\.000 +1\.000 +1\.000 +0\.500 +0\.631 +1\.000 /m);
    // A `relevant` column left empty judges nothing: latency only, said of the rows.
    const unjudged = path.join(fx.root, 'unjudged.tsv');
    writeFileSync(unjudged, 'query_id\tquery\trelevant\nq1\t封闭式基金份额固定\t\nq2\t开放式基金\t\n');
    const u = cli(['--root', fx.root, 'search', '--queries', unjudged, '--modes', 'keyword']);
    assert.equal(u.status, 0, u.stderr);
    assert.match(u.stdout, /: 2 queries \(0 judged\), k = 10/);
    assert.match(u.stdout, /^no query gives gold strings: latency only/m);
    const j = cli(['--root', fx.root, '--json', 'search', '--queries', queries, '--modes', 'vector']);
    assert.equal(j.status, 0, j.stderr);
    const out = JSON.parse(j.stdout) as { total: number; modes: { mode: string }[] };
    assert.deepEqual([out.total, out.modes.map((m) => m.mode)], [1, ['vector']]);
    const bad = cli(['--root', fx.root, 'search', '--queries', path.join(fx.root, 'missing.tsv')]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr.trim(), /^.*missing\.tsv: cannot read the queries \(no such file\); check the path$/);
    const usage = cli(['--root', fx.root, 'search', '--queries', queries, '--modes', 'keyword,bm25']);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--modes must be one of keyword, vector, hybrid, got "bm25"/);
  });
});

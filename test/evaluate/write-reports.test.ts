import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { EvalReport, RunRecord } from '../../src/evaluate/eval-types.js';
import { modeMetrics } from '../../src/evaluate/metrics.js';
import { renderHtmlReport } from '../../src/evaluate/render-html.js';
import { reportJson, reportJunit, reportMarkdown, reportPredictionsCsv, writeReports } from '../../src/evaluate/write-reports.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { parseXml } from './xml-check.js';

const tmp = makeTempRoot();
after(() => tmp.cleanup());

function rec(id: string, over: Partial<RunRecord>): RunRecord {
  return {
    id,
    mode: 'hybrid',
    fingerprint: 'f',
    answerer: 'offline',
    question: `题目${id}`,
    predicted: 'A',
    gold: 'A',
    correct: true,
    fallback: null,
    message: null,
    confidence: 0.7,
    type: 'text',
    type_source: 'dataset',
    gold_evidence: null,
    latency_ms: 12,
    tokens: null,
    finished_at: '2025-01-01T00:00:00Z',
    retrieved: [],
    evidence: [
      {
        chunk_id: 'c1',
        book: '上册',
        chapter: '第一章 <概述> & "引言"',
        section: "第一节 基金's",
        figure_ref: '表1-1',
        page_start: '3',
        page_end: '4',
        chunk_type: 'text',
      },
    ],
    ...over,
  };
}

function sampleReport(): EvalReport {
  const records = [
    rec('1', {}),
    rec('2', { question: '下列说法<不正确>的是 & "引号" \u0001控制符', predicted: 'B', gold: 'C', correct: false, confidence: 0.4 }),
    rec('3', { predicted: '', gold: 'D', correct: false, fallback: 'off_topic', message: '与本知识库内容不符，无法回答', confidence: 0 }),
  ];
  const mode = modeMetrics('hybrid', records, { k: 5, runFile: 'x.hybrid.jsonl', answeredNow: 3, answerer: 'offline' });
  return {
    dataset: 'set.csv',
    total: 3,
    skipped: 1,
    row_issues: { empty_question: 1 },
    warnings: [{ where: 'set.csv:5', message: 'empty question; row skipped' }],
    modes: [mode],
    skipped_modes: [{ mode: 'baseline', reason: 'no LLM' }],
    comparisons: [],
    wall_ms: 1234,
    records: { hybrid: records },
    config: {
      answerer: 'offline',
      llm_model: null,
      embedder: 'lsa',
      top_k: 5,
      limit: null,
      sample: null,
      seed: null,
      concurrency: 1,
      resume: false,
      run_dir: '/tmp',
      encoding: 'utf-8',
    },
  };
}

void describe('reports', () => {
  void it('JUnit: the gate checks are the test cases that fail; wrong answers are skipped cases carrying predicted, gold and evidence', () => {
    const root = parseXml(
      reportJunit(sampleReport(), {
        checks: [
          { kind: 'fail-under', mode: 'hybrid', name: 'hybrid accuracy ≥ 30.0%', passed: true, message: 'hybrid: accuracy 33.3%' },
          {
            kind: 'max-drop',
            mode: 'hybrid',
            name: 'hybrid accuracy drop ≤ 2 points (was 66.7%)',
            passed: false,
            message: 'hybrid: accuracy fell 33.3 points (66.7% → 33.3%), more than --max-drop 2',
          },
        ],
      }),
    );
    assert.equal(root.name, 'testsuites');
    assert.equal(root.attrs.tests, '5');
    assert.equal(root.attrs.failures, '1');
    assert.equal(root.attrs.skipped, '2');
    const [gate, suite] = root.children.filter((c) => c.name === 'testsuite');
    assert.equal(gate?.attrs.name, 'eval.gate');
    const checks = gate?.children.filter((c) => c.name === 'testcase') ?? [];
    assert.deepEqual(
      checks.map((c) => [c.attrs.name, c.children[0]?.name]),
      [
        ['hybrid accuracy ≥ 30.0%', 'system-out'],
        ['hybrid accuracy drop ≤ 2 points (was 66.7%)', 'failure'],
      ],
    );
    assert.equal(checks[1]?.children[0]?.attrs.message, 'hybrid: accuracy fell 33.3 points (66.7% → 33.3%), more than --max-drop 2');
    assert.equal(suite?.attrs.name, 'eval.hybrid');
    assert.equal(suite?.attrs.failures, '0');
    assert.equal(suite?.attrs.skipped, '2');
    const cases = suite?.children.filter((c) => c.name === 'testcase') ?? [];
    assert.equal(cases.length, 3);
    assert.equal(cases[0]?.children.length, 0);
    const skipped = cases[1]?.children[0];
    assert.equal(skipped?.name, 'skipped');
    assert.equal(skipped?.attrs.message, 'not right: predicted B, gold C (wrong answer)');
    const out = cases[1]?.children[1];
    assert.equal(out?.name, 'system-out');
    assert.match(out?.text ?? '', /question: 下列说法<不正确>的是 & "引号" 控制符/);
    assert.match(out?.text ?? '', /evidence 1: 上册 \| 第一章 <概述> & "引言" \| 第一节 基金's \| 表1-1 \| p\.3-4/);
    assert.match(cases[2]?.children[0]?.attrs.message ?? '', /\(abstained\)$/);
    assert.match(cases[2]?.children[1]?.text ?? '', /fallback: off_topic/);
    // Without a gate nothing can fail: the wrong answers alone never turn CI's test view red.
    const ungated = parseXml(reportJunit(sampleReport()));
    assert.equal(ungated.attrs.failures, '0');
    assert.deepEqual(
      ungated.children.map((c) => c.attrs.name),
      ['eval.hybrid'],
    );
  });

  void it('the XML checker rejects what CI parsers reject', () => {
    assert.throws(() => parseXml('<a><b></a></b>'), /closes/);
    assert.throws(() => parseXml('<a x="1 & 2"/>'), /bare &/);
    assert.throws(() => parseXml('<a>\u0001</a>'), /forbidden character/);
  });

  void it("JSON has the issue's shape; predictions CSV has one row per question per mode", () => {
    const json = reportJson(sampleReport()) as { modes: Record<string, unknown>[] } & Record<string, unknown>;
    for (const key of ['dataset', 'total', 'skipped', 'warnings', 'modes', 'comparisons', 'config']) assert.ok(key in json, key);
    const m = json.modes[0] ?? {};
    for (const key of [
      'mode',
      'answerer',
      'accuracy',
      'ci95',
      'correct',
      'incorrect',
      'abstained',
      'evidence_hit_rate',
      'by_type',
      'brier',
      'ece',
      'latency_ms',
    ])
      assert.ok(key in m, key);
    assert.deepEqual([m.correct, m.incorrect, m.abstained], [1, 1, 1]);
    const csv = reportPredictionsCsv(sampleReport());
    assert.ok(csv.startsWith('\ufeffid,mode,answerer,question,gold,predicted,correct'));
    assert.equal(csv.trim().split('\r\n').length, 4);
  });

  void it('predictions CSV neutralises spreadsheet formulas (OWASP): =, +, -, @, tab and CR get a leading quote', () => {
    const hostile = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd', '基金 = 财产'];
    const records = hostile.map((q, i) => rec(`${i === 0 ? '=1' : String(i)}`, { question: q }));
    const report = { ...sampleReport(), records: { hybrid: records } };
    const rows = parse<Record<string, string>>(reportPredictionsCsv(report).replace(/^\ufeff/, ''), { columns: true });
    assert.deepEqual(
      rows.map((r) => r.question),
      ['\'=HYPERLINK("http://evil.example","x")', "'+1+1", "'-2+3", "'@SUM(A1)", "'\tcmd", "'\rcmd", '基金 = 财产'],
    );
    assert.equal(rows[0]?.id, "'=1");
    // Numbers stay numbers.
    assert.equal(rows[0]?.confidence, '0.7000');
  });

  void it('HTML is self-contained: inline SVG charts, one inline script allowed by its hash, no external URLs', () => {
    const html = renderHtmlReport(sampleReport());
    assert.equal((html.match(/<svg /g) ?? []).length, 3); // accuracy, reliability, risk–coverage
    assert.match(html, /aria-label="risk–coverage curve per mode"/);
    assert.match(html, /<h3>选择性作答 Selective answering<\/h3>/);
    assert.match(reportMarkdown(sampleReport()), /## Selective answering[\s\S]*\| 25% \| 50% \| 75% \| 100% \| AURC \|/);
    const json = reportJson(sampleReport()) as { modes: Array<{ aurc: number; selective_accuracy: Array<{ coverage: number }> }> };
    assert.deepEqual(
      json.modes[0]?.selective_accuracy.map((x) => x.coverage),
      [0.25, 0.5, 0.75, 1],
    );
    assert.equal(typeof json.modes[0]?.aurc, 'number');
    assert.doesNotMatch(html, /<script[^>]*\bsrc=|<link|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    assert.equal(scripts.length, 1);
    // The Content-Security-Policy allows that script by hash and nothing else: no other script could run.
    const hash = createHash('sha256')
      .update(scripts[0] ?? '')
      .digest('base64');
    assert.ok(html.includes(`default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${hash}'`));
    assert.match(html, /下列说法&lt;不正确&gt;的是/);
    const written = writeReports(sampleReport(), {
      html: path.join(tmp.root, 'out', 'r.html'),
      json: path.join(tmp.root, 'out', 'r.json'),
    });
    assert.equal(written.length, 2);
    assert.equal((JSON.parse(readFileSync(path.join(tmp.root, 'out', 'r.json'), 'utf8')) as { total: number }).total, 3);
  });
});

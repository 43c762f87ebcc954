import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerResult, OptionVerdict } from '../../src/answer/answer-types.js';
import type { EvalReport, EvalRow, RecordVerdict, RunRecord } from '../../src/evaluate/eval-types.js';
import { renderHtmlReport } from '../../src/evaluate/render-html.js';
import { toRecord } from '../../src/evaluate/run-record.js';
import { reportJunit, reportMarkdown } from '../../src/evaluate/write-reports.js';
import { fixtureReport } from './report-fixture.js';
import { parseXml } from './xml-check.js';

/** Verdicts as an answer gives them, built by hand (the answerers' own verdicts are tested with them). */
const VERDICTS: OptionVerdict[] = [
  {
    label: 'A',
    target: 'option',
    text: '基金托管人',
    verdict: 'supported',
    evidence: {
      chunk_id: 'c1',
      book: '上册',
      headings: ['第一章 概述', '第二节 <当事人>'],
      chapter: '第一章 概述',
      section: '第二节 <当事人>',
      figure_ref: '',
      page_start: '12',
      page_end: '12',
      quote: '基金财产由基金托管人负责保管 & "独立"。',
    },
  },
  {
    label: 'B',
    target: 'option',
    text: '基金管理人',
    verdict: 'contradicted',
    reason: '主体不同：基金托管人',
    evidence: {
      chunk_id: 'c1',
      book: '上册',
      headings: ['第一章 概述'],
      chapter: '第一章 概述',
      section: '',
      figure_ref: '',
      page_start: '12',
      page_end: '13',
      quote: '基金管理人负责投资运作。',
    },
  },
  { label: 'Ⅲ', target: 'statement', text: '托管人可以是管理人', verdict: 'not_found' },
];

const ROW: EvalRow = {
  id: 'Q9',
  line: 2,
  question: '基金财产由（　）负责保管。',
  options: [
    { letter: 'A', text: '基金托管人' },
    { letter: 'B', text: '基金管理人' },
  ],
  answer: 'A',
  type: null,
  gold: null,
};

function answer(over: Partial<AnswerResult>): AnswerResult {
  return {
    question: { raw: ROW.question, stem: ROW.question, options: ROW.options, kind: 'single', negated: false, statements: [] },
    answer: 'B',
    confidence: 0.4,
    evidence: [],
    mode: 'hybrid',
    answerer: 'offline',
    fallback: null,
    context: [],
    latencyMs: 5,
    ...over,
  };
}

/** The fixture report with `verdicts` on some records of question Q3 (wrong in keyword and hybrid, abstained in vector). */
function reportWithVerdicts(byMode: Partial<Record<'keyword' | 'vector' | 'hybrid', RecordVerdict[]>>, id = 'Q3'): EvalReport {
  const report = fixtureReport();
  for (const [mode, verdicts] of Object.entries(byMode)) {
    const records = report.records[mode as 'keyword'] as RunRecord[];
    report.records[mode as 'keyword'] = records.map((r) => (r.id === id ? { ...r, verdicts } : r));
  }
  return report;
}

void describe('per-option verdicts in the run records and the reports', () => {
  const compact = toRecord(ROW, answer({ verdicts: VERDICTS }), 'f', 5, () => undefined).verdicts ?? [];

  void it('a run record keeps each verdict compactly: verdict, reason, quote and its citation line', () => {
    assert.deepEqual(compact, [
      {
        label: 'A',
        verdict: 'supported',
        quote: '基金财产由基金托管人负责保管 & "独立"。',
        citation: '上册 | 第一章 概述 | 第二节 <当事人> | p.12',
        chunk_id: 'c1',
      },
      {
        label: 'B',
        verdict: 'contradicted',
        reason: '主体不同：基金托管人',
        quote: '基金管理人负责投资运作。',
        citation: '上册 | 第一章 概述 | p.12-13',
        chunk_id: 'c1',
      },
      { label: 'Ⅲ', target: 'statement', text: '托管人可以是管理人', verdict: 'not_found' },
    ]);
    // An answer without verdicts (an older answerer, an LLM reply without them) leaves the field out.
    assert.equal('verdicts' in toRecord(ROW, answer({}), 'f', 5, () => undefined), false);
  });

  void it('HTML: the wrong and abstaining modes show their verdicts per option, modes with the same verdicts once', () => {
    const other: RecordVerdict[] = [{ label: 'A', verdict: 'not_found' }];
    const html = renderHtmlReport(reportWithVerdicts({ keyword: compact, hybrid: compact, vector: other }));
    const q3 = /<article[^>]*id="q-Q3"[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    const blocks = [...q3.matchAll(/<div class="verdicts" data-modes="([^"]*)">/g)].map((m) => m[1]);
    assert.deepEqual(blocks, ['keyword hybrid', 'vector']);
    assert.match(
      q3,
      /<tr class="v-contradicted" data-label="B"><td class="letter">B<\/td><td class="verdict">✗ 与教材矛盾 contradicted<\/td><td><span class="reason">主体不同：基金托管人<\/span> <span class="quote">“基金管理人负责投资运作。”<\/span> <span class="loc">上册 \| 第一章 概述 \| p\.12-13<\/span><\/td><\/tr>/,
    );
    // Quotes and citations are escaped; a statement shows its own text; not found has no quote.
    assert.match(
      q3,
      /“基金财产由基金托管人负责保管 &amp; &quot;独立&quot;。”<\/span> <span class="loc">上册 \| 第一章 概述 \| 第二节 &lt;当事人&gt; \| p\.12/,
    );
    assert.match(
      q3,
      /<td class="letter">Ⅲ <span class="vt">托管人可以是管理人<\/span><\/td><td class="verdict">\? 未找到 not found<\/td><td><\/td>/,
    );
    // The verdicts come before the evidence list of the card.
    assert.ok(q3.indexOf('class="verdicts"') < q3.indexOf('class="ev"'));
  });

  void it('HTML: a mode that got the question right shows no verdicts', () => {
    const html = renderHtmlReport(reportWithVerdicts({ keyword: compact, vector: compact, hybrid: compact }, 'Q1'));
    const q1 = /<article[^>]*id="q-Q1"[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    assert.doesNotMatch(q1, /class="verdicts"/);
  });

  void it('Markdown and JUnit: the wrong answers carry their verdicts', () => {
    const report = reportWithVerdicts({ keyword: compact, hybrid: compact });
    const md = reportMarkdown(report);
    const q3 = /### Q3 [\s\S]*?(?=### Q4)/.exec(md)?.[0] ?? '';
    assert.match(
      q3,
      /Per-option verdicts \(keyword, hybrid\):\n\n- A ✓ supported — “基金财产由基金托管人负责保管 & "独立"。” \(上册 \\\| 第一章 概述 \\\| 第二节 \\<当事人\\> \\\| p\.12\)\n- B ✗ contradicted — 主体不同：基金托管人 — “基金管理人负责投资运作。” \(上册 \\\| 第一章 概述 \\\| p\.12-13\)\n- Ⅲ 托管人可以是管理人 \? not found\n/,
    );
    const junit = parseXml(reportJunit(report));
    const hybrid = junit.children.find((c) => c.attrs.name === 'eval.hybrid');
    const q3Case = hybrid?.children.find((c) => c.attrs.name?.startsWith('Q3:'));
    const out = q3Case?.children.find((c) => c.name === 'system-out')?.text ?? '';
    assert.match(out, /verdict B: contradicted \(主体不同：基金托管人\) “基金管理人负责投资运作。” 上册 \| 第一章 概述 \| p\.12-13/);
  });
});

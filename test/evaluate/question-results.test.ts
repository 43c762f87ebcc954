import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chanceAccuracy,
  chanceOf,
  chapterBreakdown,
  chapterOfHeadings,
  questionEvidence,
  questionFilters,
  questionResults,
  recordConfidenceWords,
} from '../../src/evaluate/question-results.js';
import { renderHtmlReport } from '../../src/evaluate/render-html.js';
import { reportMarkdown } from '../../src/evaluate/write-reports.js';
import { FIXTURE_MODES, fixtureReport } from './report-fixture.js';

void describe('per-question view of an eval report', () => {
  const questions = questionResults(fixtureReport());

  void it('groups the records of every mode into one result per question, in dataset order', () => {
    assert.deepEqual(
      questions.map((q) => q.id),
      ['Q1', 'Q2', 'Q3', 'Q4', 'Q5'],
    );
    assert.deepEqual(
      questions.map((q) => FIXTURE_MODES.map((m) => q.outcomes[m]).join(' ')),
      ['right right right', 'right right wrong', 'wrong abstained wrong', 'right wrong right', 'wrong right right'],
    );
    assert.equal(questions[3]?.options.length, 4);
    assert.equal(questions[4]?.kind, 'judge');
  });

  void it('filters: all, wrong in any mode, wrong in each mode only, all modes wrong, right in all modes, abstained', () => {
    const filters = questionFilters(questions, FIXTURE_MODES);
    assert.deepEqual(
      filters.map((f) => [f.key, f.label, f.ids.join(',')]),
      [
        ['all', 'all', 'Q1,Q2,Q3,Q4,Q5'],
        ['wrong-any', 'wrong in any mode', 'Q2,Q3,Q4,Q5'],
        ['wrong-only-keyword', 'wrong in keyword only', 'Q5'],
        ['wrong-only-vector', 'wrong in vector only', 'Q4'],
        ['wrong-only-hybrid', 'wrong in hybrid only', 'Q2'],
        ['wrong-all', 'all modes wrong', 'Q3'],
        ['disagree', 'modes disagree', 'Q2,Q4,Q5'],
        ['right-all', 'right in all modes', 'Q1'],
        ['abstained-any', 'abstained in any mode', 'Q3'],
      ],
    );
    // One mode: no "only" filters, and "right" instead of "right in all modes".
    assert.deepEqual(
      questionFilters(questions, ['hybrid']).map((f) => `${f.key}=${f.ids.length}`),
      ['all=5', 'wrong-any=2', 'right-all=3'],
    );
  });

  void it('chapter: gold evidence first, else the top evidence of hybrid (cited, else retrieved); numbered chapters in order', () => {
    assert.deepEqual(
      questions.map((q) => `${q.chapter} [${q.chapterSource}]`),
      [
        '上册 › 第三章 概述 [gold]',
        '上册 › 第二章 类型 [evidence]',
        '下册 › 第三章 运作 [evidence]',
        '上册 › 第二章 类型 [gold]',
        '(no chapter) [none]',
      ],
    );
    const rows = chapterBreakdown(questions, FIXTURE_MODES);
    assert.deepEqual(
      rows.map((r) => [
        r.chapter,
        r.total,
        r.fromGold,
        r.fromEvidence,
        FIXTURE_MODES.map((m) => `${r.byMode[m]?.correct}/${r.byMode[m]?.total}`).join(' '),
      ]),
      [
        ['上册 › 第二章 类型', 2, 1, 1, '2/2 1/2 1/2'],
        ['上册 › 第三章 概述', 1, 1, 0, '1/1 1/1 1/1'],
        ['下册 › 第三章 运作', 1, 0, 1, '0/1 0/1 0/1'],
        ['(no chapter)', 1, 0, 0, '0/1 1/1 1/1'],
      ],
    );
    assert.equal(rows[0]?.byMode.vector?.accuracy, 0.5);
  });

  void it('the chapter of a heading path: the first 第X章 under its numbered parts, without an unnumbered title above it', () => {
    assert.deepEqual(chapterOfHeadings(['第二章 证券投资基金的类型', '第一节 开放式基金与封闭式基金']), ['第二章 证券投资基金的类型']);
    assert.deepEqual(chapterOfHeadings(['中华人民共和国证券投资基金法', '第三章 基金托管人', '第十二条']), ['第三章 基金托管人']);
    assert.deepEqual(chapterOfHeadings(['第五编 婚姻家庭编', '第二章 结婚']), ['第五编 婚姻家庭编', '第二章 结婚']);
    assert.deepEqual(chapterOfHeadings(['第一章 证券投资基金法', '第一章 总则']), ['第一章 证券投资基金法']);
    assert.deepEqual(chapterOfHeadings(['附录 常用术语', '一、基金']), ['附录 常用术语']);
    assert.deepEqual(chapterOfHeadings([]), []);
  });

  void it('chance: 1/n options, 1/(2^n − 1) for multi-answer questions, averaged over the set', () => {
    assert.deepEqual(
      questions.map((q) => q.chance),
      [0.25, 0.25, 0.25, 1 / 15, 0.5],
    );
    assert.equal(chanceOf({ options: [1, 2, 3, 4], gold: 'AB', kind: null }), 1 / 15);
    assert.ok(Math.abs((chanceAccuracy(questions) ?? 0) - (0.75 + 1 / 15 + 0.5) / 5) < 1e-12);
    assert.equal(chanceAccuracy([]), null);
  });

  void it('evidence: each cited quote once with the modes citing it; the closest passages of modes that cited none', () => {
    const q2 = questions[1];
    const q3 = questions[2];
    assert.ok(q2 && q3);
    assert.deepEqual(
      questionEvidence(q2, FIXTURE_MODES).map((e) => `${e.ref.chunk_id} ${e.cited} ${e.modes.join('+')}`),
      ['c2 true keyword+vector', 'c9 true keyword+vector', 'c5 true hybrid'],
    );
    assert.deepEqual(
      questionEvidence(q3, FIXTURE_MODES).map((e) => `${e.ref.chunk_id} ${e.cited} ${e.modes.join('+')}`),
      ['r1 false vector+hybrid', 'r2 false vector', 'r3 false vector'],
    );
  });

  void it('confidence words: stored, else as ask says them (a guess is "guess")', () => {
    assert.equal(recordConfidenceWords({ confidence: 0.8, guess: null, confidence_words: 'low' }), 'low');
    assert.equal(recordConfidenceWords({ confidence: 0.8, guess: null }), 'high');
    assert.equal(recordConfidenceWords({ confidence: 0.6 }), 'medium');
    assert.equal(recordConfidenceWords({ confidence: 0.2, guess: 'A' }), 'guess');
  });

  void it('HTML: one card per question with picks, gold, quotes escaped and marked; filter counts; chance line; chapter table', () => {
    const html = renderHtmlReport(fixtureReport());
    assert.equal((html.match(/<article class="card/g) ?? []).length, 5);
    const q2 = /<article[^>]*id="q-Q2"[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    // Its status filters, then its chapter (the first row of the chapter table).
    assert.match(q2, /data-filters="all wrong-any wrong-only-hybrid disagree chapter-1"/);
    assert.match(
      q2,
      /<li class="opt gold" data-letter="B"><b>B\.<\/b> 基金管理人 <span class="gold-tag">✓ 答案 gold<\/span><span class="pick right" data-mode="keyword">keyword<\/span><span class="pick right" data-mode="vector">vector<\/span><\/li>/,
    );
    assert.match(
      q2,
      /<li class="opt" data-letter="C"><b>C\.<\/b> 基金销售机构<span class="pick wrong" data-mode="hybrid">hybrid<\/span><\/li>/,
    );
    assert.match(q2, /<mark>基金管理人<\/mark>负责&lt;投资&gt;运作/);
    assert.match(q2, /<mark>销售机构<\/mark> &amp; &quot;代销&quot;/);
    assert.match(q2, /题目Q2：下列&lt;说法&gt;正确的是/);
    assert.match(
      q2,
      /<tr class="wrong" data-mode="hybrid"><td>hybrid<\/td><td class="letter">C<\/td><td class="outcome">✗ 错 wrong<\/td><td class="n">0\.40 low<\/td><\/tr>/,
    );
    const q3 = /<article[^>]*id="q-Q3"[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
    assert.match(q3, /<td class="letter">— \(guess A\)<\/td><td class="outcome">∅ 弃答 abstained <span class="fb"/);
    assert.match(q3, /<span class="pick guess" data-mode="vector"/);
    assert.match(q3, /最接近的段落 closest passage for vector, hybrid/);
    assert.match(
      html,
      /<button type="button" data-filter="wrong-only-hybrid" aria-pressed="false">仅 hybrid 错 wrong in hybrid only <span class="count">1<\/span><\/button>/,
    );
    assert.match(html, /<g class="chance" data-chance="0\.2633">/);
    assert.match(
      html,
      /chance level 26\.3%: the mean over the questions of 1\/\(number of options\), and 1\/\(2\^n − 1\) for the 1 multi-answer questions/,
    );
    assert.match(
      html,
      /<tr><td><button type="button" data-filter="chapter-1" aria-pressed="false" title="只看本章的题 show this chapter's questions">上册 › 第二章 类型<\/button><\/td><td class="n">2<\/td><td>gold 1, evidence 1<\/td><td class="n" data-mode="keyword">100\.0% <small>\(2\/2\)<\/small><\/td>/,
    );
  });

  void it('Markdown: chance, chapter table, one row per question, and the wrong ones with options and quotes', () => {
    const md = reportMarkdown(fixtureReport());
    assert.match(md, /Chance level 26\.3%/);
    assert.match(md, /\| 上册 › 第二章 类型 \| 2 \| gold 1, evidence 1 \| 100\.0% \(2\/2\) \| 50\.0% \(1\/2\) \| 50\.0% \(1\/2\) \|/);
    assert.match(md, /\| Q2 \| 上册 › 第二章 类型 \| B \| B ✓ 0\.60 medium \| B ✓ 0\.55 medium \| C ✗ 0\.40 low \|/);
    assert.match(
      md,
      /\| Q3 \| 下册 › 第三章 运作 \| C \| D ✗ 0\.35 low \| — \(guess A\) ∅ 0\.20 guess \(no\\_evidence\) \| D ✗ 0\.30 low \(conflict\) \|/,
    );
    assert.match(md, /## Wrong answers \(4 questions wrong in at least one mode\)/);
    assert.doesNotMatch(md, /### Q1 /);
    assert.match(
      md,
      /### Q2 · 上册 › 第二章 类型\n\n题目Q2：下列\\<说法\\>正确的是（\u3000）\n\n- A\. 基金托管人\n- B\. 基金管理人 \*\*✓ gold\*\* ← keyword, vector\n- C\. 基金销售机构 ← hybrid\n/,
    );
    assert.match(md, /> “\*\*基金管理人\*\*负责\\<投资\\>运作” — 上册 \\\| 第五章 其他 \\\| p\.7 \(cited by keyword, vector\)/);
    assert.match(md, /- A\. 基金托管人 ← guess of vector/);
    // Each mode's own top quote: keyword's c2, vector's c9, hybrid's c5, so nothing of Q2 is left out.
    const q2 = /### Q2 [\s\S]*?(?=### Q3)/.exec(md)?.[0] ?? '';
    assert.deepEqual(
      [...q2.matchAll(/^> “(.*?)” — /gm)].map((m) => m[1]),
      ['**基金管理人**负责\\<投资\\>运作', '管理人职责', '**销售机构** & "代销"'],
    );
    assert.doesNotMatch(q2, /more passages/);
    // Compact: each mode's top passage once; the rest are counted, not shown.
    assert.match(md, /> 下册 \\\| 第三章 运作 \\\| p\.7 \(closest passage for vector, hybrid\)\n\n\(2 more passages in the HTML report\)/);
    assert.equal((md.match(/^\| Q\d \|/gm) ?? []).length, 5);
  });
});

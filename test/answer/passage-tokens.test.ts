import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { answerQuestion, type AnswerDeps } from '../../src/answer/answer-question.js';
import type { AnswerResult } from '../../src/answer/answer-types.js';
import { questionFromParts } from '../../src/answer/parse-question.js';
import { loadConfig } from '../../src/config/load-config.js';
import { projectPaths } from '../../src/paths.js';
import { openRetriever, type OpenedRetriever } from '../../src/retrieve/open-retriever.js';
import type { Retriever } from '../../src/retrieve/retriever.js';
import { analyzerFromConfig } from '../../src/text/analyzer-from-config.js';
import type { Analyzer } from '../../src/text/analyzer.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { decodePassageTokens, encodePassageTokens, headingText, planWindows, segmentPassage } from '../../src/text/passage-windows.js';
import { repoRoot, type TempRoot } from '../helpers/temp-root.js';
import { sampleRoot } from '../helpers/sample-root.js';

describe('window plan', () => {
  it('cuts clauses, sentences and sentence pairs, bridging a sentence cut at a bare line break', () => {
    const plan = planWindows('基金财产由托管人保管，由管理人运作。销售结\n算资金，应当及时划付');
    assert.deepEqual(plan.pieces, ['基金财产由托管人保管，', '由管理人运作。', '销售结', '算资金，', '应当及时划付', '销售结算资金，']);
    assert.equal(plan.clauses, 5);
    assert.deepEqual(
      plan.windows.map((w) => [w.text, w.pieces, w.bridged]),
      [
        ['基金财产由托管人保管，', [0], false],
        ['由管理人运作。', [1], false],
        ['算资金，', [3], false],
        ['应当及时划付', [4], false],
        ['基金财产由托管人保管，由管理人运作。', [0, 1], false],
        ['基金财产由托管人保管，由管理人运作。销售结', [0, 1, 2], false],
        ['销售结', [2], false],
        ['销售结算资金，应当及时划付', [5, 4], true],
        ['算资金，应当及时划付', [3, 4], false],
      ],
    );
  });

  it('reads each item of a list with its lead, however many items stand between them', () => {
    const plan = planWindows(
      '有下列情形之一的，劳动者可以解除劳动合同：（一）未及时支付劳动报酬的；（二）未缴纳社会保险费的；（三）其他情形。另行约定的除外。',
    );
    const withLead = plan.windows
      .filter((w) => w.text.startsWith('有下列情形之一的，劳动者可以解除劳动合同：（'))
      .map((w) => [w.text, w.pieces]);
    assert.deepEqual(withLead, [
      // The lead's own sentence (it holds item 1), its pair with item 2, then items 2 and 3 each read with the lead.
      ['有下列情形之一的，劳动者可以解除劳动合同：（一）未及时支付劳动报酬的；', [0, 1, 2]],
      ['有下列情形之一的，劳动者可以解除劳动合同：（一）未及时支付劳动报酬的；（二）未缴纳社会保险费的；', [0, 1, 2, 3]],
      ['有下列情形之一的，劳动者可以解除劳动合同：（二）未缴纳社会保险费的；', [0, 1, 3]],
      ['有下列情形之一的，劳动者可以解除劳动合同：（三）其他情形。', [0, 1, 4]],
    ]);
    // Read with its lead, an item quotes the run from the lead to it (`span`); the other windows stand in their own text.
    assert.deepEqual(
      plan.windows.filter((w) => w.span !== undefined).map((w) => w.span),
      [
        '有下列情形之一的，劳动者可以解除劳动合同：（一）未及时支付劳动报酬的；（二）未缴纳社会保险费的；',
        '有下列情形之一的，劳动者可以解除劳动合同：（一）未及时支付劳动报酬的；（二）未缴纳社会保险费的；（三）其他情形。',
      ],
    );
    // A sentence that is not an item ends the list: it is not read with the lead.
    assert.ok(!plan.windows.some((w) => w.text.includes('：另行约定')));
    // A lead that is a sentence of its own (items as sentences after it) counts too; text without a list gains nothing.
    assert.ok(
      planWindows('基金管理人应当履行下列职责：\n1. 依法募集资金；\n2. 办理基金备案手续。').windows.some(
        (w) => w.text === '基金管理人应当履行下列职责：2. 办理基金备案手续。',
      ),
    );
    assert.equal(planWindows('基金财产独立于管理人。基金财产独立于托管人。').windows.length, 3);
  });

  it('gives a blank text one window of itself', () => {
    assert.deepEqual(planWindows('  \n'), { pieces: ['  \n'], clauses: 1, windows: [{ text: '  \n', pieces: [0], bridged: false }] });
  });

  it('segments each piece as if its window were segmented whole, and the text as if cut at once', () => {
    const analyzer = createAnalyzer();
    const chunk = {
      text: '销售结\n算资金安全、及时划付。基金托管人应当在三个月内报告。',
      chapter: '第一章',
      section: '',
      subsection: '',
      figure_ref: '',
    };
    const s = segmentPassage(chunk, analyzer);
    assert.deepEqual(s.text, analyzer.tokens(chunk.text));
    const plan = planWindows(chunk.text);
    for (const w of plan.windows)
      assert.deepEqual(new Set(w.pieces.flatMap((p) => s.pieces[p] ?? [])), new Set(analyzer.tokens(w.text)), w.text);
    assert.ok(
      s.pieces.some((p) => p.includes('结算')),
      'the bridge reads the word the line break cut',
    );
    assert.deepEqual(decodePassageTokens(encodePassageTokens(s)), { heading: s.heading, pieces: s.pieces });
    assert.deepEqual(decodePassageTokens(encodePassageTokens({ heading: [], pieces: [[], ['a']] })), { heading: [], pieces: [[], ['a']] });
  });
});

// The real pipeline over the sample textbook: ingest stores the tokens, the answerer reads them instead of cutting.
const hasSample = existsSync(path.join(repoRoot, 'rawdoc', 'validation.csv'));
describe('passage tokens stored at ingest', { skip: !hasSample && 'no sample textbook' }, () => {
  let tr: TempRoot;
  let retriever: OpenedRetriever;
  let analyzer: Analyzer;
  before(async () => {
    tr = await sampleRoot();
    const { config } = loadConfig({ root: tr.root, env: {} });
    analyzer = analyzerFromConfig(tr.root, config).analyzer;
    retriever = await openRetriever({ root: tr.root, config });
  });
  after(() => {
    retriever?.close();
    tr?.cleanup();
  });

  it('holds every chunk’s pieces and headings as the analyzer cuts them, by text', () => {
    for (const chunk of retriever.chunks) {
      const known = retriever.passageTokens?.(chunk);
      assert.ok(known);
      for (const piece of planWindows(chunk.text).pieces) assert.deepEqual(known.get(piece), analyzer.tokens(piece), piece);
      assert.deepEqual(known.get(headingText(chunk)), analyzer.tokens(headingText(chunk)));
    }
  });

  it('gives a hit merged from two overlapping chunks the pieces of both', () => {
    const [a, b] = retriever.chunks.filter((c, i, all) => i > 0 && all[i - 1]?.source === c.source && all[i - 1]!.char_end > c.char_start);
    assert.ok(a && b, 'the sample has overlapping windows');
    const merged = { ...a, text: `${a.text}\n${b.text}`, char_end: b.char_end };
    const known = retriever.passageTokens?.(merged);
    assert.ok(known);
    for (const piece of [...planWindows(a.text).pieces, ...planWindows(b.text).pieces]) assert.ok(known.has(piece), piece);
  });

  const questions = (): { question: string; options: Record<string, string> }[] =>
    parse<Record<string, string>>(readFileSync(path.join(repoRoot, 'rawdoc', 'validation.csv'), 'utf8'), { columns: true, bom: true })
      .slice(0, 12)
      .map((r) => ({
        question: r.question ?? '',
        options: Object.fromEntries(['A', 'B', 'C', 'D'].map((l) => [l, r[l] ?? ''])),
      }));

  /** Answers the first sample questions, recording every text the analyzer is asked to cut. */
  const answerAll = async (r: Retriever): Promise<{ results: AnswerResult[]; cut: string[] }> => {
    const cut: string[] = [];
    const counting: Analyzer = { fingerprint: analyzer.fingerprint, tokens: (text) => (cut.push(text), analyzer.tokens(text)) };
    const results: AnswerResult[] = [];
    for (const q of questions()) {
      const deps: AnswerDeps = {
        retriever: r,
        llm: null,
        answerer: 'offline',
        mode: 'hybrid',
        topK: 8,
        rerank: false,
        prompts: projectPaths(tr.root).prompts,
        analyzer: counting,
      };
      results.push({ ...(await answerQuestion(questionFromParts(q.question, q.options), deps)), latencyMs: 0 });
    }
    return { results, cut };
  };

  it('gives the same answers as cutting every passage at question time, without cutting any passage', async () => {
    const stored = await answerAll(retriever);
    // The same index without the stored tokens, as an index built before they were stored is read.
    const withoutStored: Retriever = {
      chunks: retriever.chunks,
      size: retriever.size,
      embedderId: retriever.embedderId,
      vectorBackend: retriever.vectorBackend,
      search: (q, o) => retriever.search(q, o),
      chunk: (id) => retriever.chunk(id),
      close: () => undefined,
    };
    const cutting = await answerAll(withoutStored);
    assert.deepEqual(stored.results, cutting.results);
    // Every piece and heading the index holds tokens for; the questions' texts are none of them.
    const held = new Set(retriever.chunks.flatMap((c) => [...planWindows(c.text).pieces, headingText(c)]));
    assert.ok(cutting.cut.filter((t) => held.has(t)).length > 100, 'without stored tokens the answerer cuts passages');
    assert.deepEqual(
      stored.cut.filter((t) => held.has(t)),
      [],
      'with them it never cuts a text the index holds',
    );
  });

  it('ignores the stored tokens of an index built with other window rules', async () => {
    const file = projectPaths(tr.root).ftsDb;
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = 'other' WHERE key = 'window_plan'").run();
    db.close();
    const { config } = loadConfig({ root: tr.root, env: {} });
    const reopened = await openRetriever({ root: tr.root, config });
    try {
      const first = reopened.chunks[0];
      assert.ok(first);
      assert.equal(reopened.passageTokens?.(first).size, 0);
      // The reader is told why answers got slower, and how to get them back.
      assert.ok(
        reopened.warnings.some((w) => /segmented passages/.test(w.message) && /ingest --force/.test(w.message)),
        JSON.stringify(reopened.warnings),
      );
      assert.ok(!retriever.warnings.some((w) => /earlier version/.test(w.message)), 'a current index gets no such warning');
    } finally {
      reopened.close();
    }
  });
});

import type { AnswerMode } from '../../src/answer/answer-types.js';
import type { EvalReport, EvidenceRef, RunRecord } from '../../src/evaluate/eval-types.js';
import { modeMetrics } from '../../src/evaluate/metrics.js';

/** A piece of evidence in `book`, under `headings`, optionally quoted with marked terms. */
export function ev(chunk: string, book: string, headings: string[], quote?: string, highlights?: Array<[number, number]>): EvidenceRef {
  return {
    chunk_id: chunk,
    book,
    headings,
    chapter: headings[0] ?? '',
    section: headings[1] ?? '',
    figure_ref: '',
    page_start: '7',
    page_end: '7',
    chunk_type: 'text',
    ...(quote !== undefined ? { quote } : {}),
    ...(highlights ? { highlights } : {}),
  };
}

const FOUR = [
  { letter: 'A', text: '基金托管人' },
  { letter: 'B', text: '基金管理人' },
  { letter: 'C', text: '基金销售机构' },
  { letter: 'D', text: '基金份额登记机构' },
];

interface Q {
  id: string;
  gold: string;
  options?: { letter: string; text: string }[];
  kind?: RunRecord['kind'];
  gold_evidence?: RunRecord['gold_evidence'];
  /** Per mode: the letters predicted ('' = abstained), and what it cites / retrieved. */
  modes: Record<'keyword' | 'vector' | 'hybrid', Partial<RunRecord> & { predicted: string }>;
}

/**
 * Five questions answered in three modes, each a case of the per-question view:
 * Q1 right everywhere (gold chapter 第三章); Q2 wrong in hybrid only (chapter from hybrid's evidence, not keyword's);
 * Q3 wrong in every mode, vector abstaining (chapter from hybrid's retrieved passages, in 下册); Q4 a multi-answer
 * question wrong in vector only (gold chapter 第二章); Q5 a judge question wrong in keyword only, with no evidence at all.
 */
const QUESTIONS: Q[] = [
  {
    id: 'Q1',
    gold: 'A',
    gold_evidence: { book: '上册', chapter: '第三章 概述' },
    modes: {
      keyword: { predicted: 'A', confidence: 0.8 },
      vector: { predicted: 'A', confidence: 0.7 },
      hybrid: { predicted: 'A', confidence: 0.9 },
    },
  },
  {
    id: 'Q2',
    gold: 'B',
    modes: {
      keyword: {
        predicted: 'B',
        confidence: 0.6,
        evidence: [
          ev('c2', '上册', ['第五章 其他'], '基金管理人负责<投资>运作', [[0, 5]]),
          ev('c9', '上册', ['第五章 其他'], '管理人职责'),
        ],
      },
      // The same two quotes, in the other order: vector's top quote is c9.
      vector: {
        predicted: 'B',
        confidence: 0.55,
        evidence: [
          ev('c9', '上册', ['第五章 其他'], '管理人职责'),
          ev('c2', '上册', ['第五章 其他'], '基金管理人负责<投资>运作', [[0, 5]]),
        ],
      },
      hybrid: {
        predicted: 'C',
        confidence: 0.4,
        evidence: [ev('c5', '上册', ['第二章 类型', '第一节 开放式'], '销售机构 & "代销"', [[0, 4]])],
      },
    },
  },
  {
    id: 'Q3',
    gold: 'C',
    modes: {
      keyword: { predicted: 'D', confidence: 0.35 },
      vector: {
        predicted: '',
        guess: 'A',
        confidence: 0.2,
        fallback: 'no_evidence',
        retrieved: [
          ev('r1', '下册', ['第三章 运作']),
          ev('r2', '下册', ['第四章 估值']),
          ev('r3', '下册', ['第四章 估值']),
          ev('r4', '下册', ['第九章']),
        ],
      },
      hybrid: { predicted: 'D', confidence: 0.3, fallback: 'conflict', retrieved: [ev('r1', '下册', ['第三章 运作'])] },
    },
  },
  {
    id: 'Q4',
    gold: 'ACD',
    kind: 'multi',
    gold_evidence: { book: '上册', chapter: '第二章 类型', page: '5' },
    modes: {
      keyword: { predicted: 'ACD', confidence: 0.5 },
      vector: { predicted: 'AC', confidence: 0.45 },
      hybrid: { predicted: 'ACD', confidence: 0.5 },
    },
  },
  {
    id: 'Q5',
    gold: 'A',
    kind: 'judge',
    options: [
      { letter: 'A', text: '正确' },
      { letter: 'B', text: '错误' },
    ],
    modes: {
      keyword: { predicted: 'B', confidence: 0.52 },
      vector: { predicted: 'A', confidence: 0.51 },
      hybrid: { predicted: 'A', confidence: 0.53 },
    },
  },
];

export const FIXTURE_MODES: AnswerMode[] = ['keyword', 'vector', 'hybrid'];

/** The run records of the five questions in one mode, as a run file holds them. */
export function fixtureRecords(mode: 'keyword' | 'vector' | 'hybrid'): RunRecord[] {
  return QUESTIONS.map((q) => {
    const m = q.modes[mode];
    const options = q.options ?? FOUR;
    return {
      id: q.id,
      mode,
      fingerprint: 'f',
      answerer: 'offline',
      question: `题目${q.id}：下列<说法>正确的是（\u3000）`,
      options,
      kind: q.kind ?? 'single',
      negated: false,
      gold: q.gold,
      correct: (m.fallback ?? null) === null && m.predicted === q.gold,
      fallback: null,
      message: null,
      confidence: 0.5,
      guess: null,
      type: 'text',
      type_source: 'dataset',
      gold_evidence: q.gold_evidence ?? null,
      evidence: [],
      retrieved: [],
      latency_ms: 10,
      tokens: null,
      finished_at: '2026-01-01T00:00:00Z',
      ...m,
    } satisfies RunRecord;
  });
}

/** A whole report over the fixture, with metrics computed by the real `modeMetrics`. */
export function fixtureReport(): EvalReport {
  const records = Object.fromEntries(FIXTURE_MODES.map((m) => [m, fixtureRecords(m as 'keyword' | 'vector' | 'hybrid')]));
  return {
    dataset: 'fixture.csv',
    total: QUESTIONS.length,
    skipped: 0,
    row_issues: {},
    warnings: [],
    modes: FIXTURE_MODES.map((m) =>
      modeMetrics(m, records[m] as RunRecord[], { k: 5, runFile: `x.${m}.jsonl`, answeredNow: QUESTIONS.length, answerer: 'offline' }),
    ),
    skipped_modes: [],
    comparisons: [],
    wall_ms: 100,
    records,
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

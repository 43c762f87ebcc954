import type { Hit } from '../types.js';
import { promoteHits } from './post-process.js';

/**
 * Words that make a question about a figure or table. Single 表/图 are not enough (代表, 表述, 意图),
 * so the cues are whole words or a figure reference.
 */
const TABLE_CUES = /图表|表格|下表|上表|如表|见表|表中|该表|下图|上图|如图|图中|图示|数据|比较|对比|figure|table|chart/i;
/** 表2-1, 图 3.2, 表 10－3 … (any dash or dot between numbers). */
const FIGURE_REF = /([表图])\s*(\d+(?:\s*[-－—–.．]\s*\d+)*)/g;

/** How much a table transcription's score is multiplied by per priority point above 1 when the question is about a table. */
export const PRIORITY_BOOST_PER_POINT = 0.25;

/** Canonical form of a figure reference, so `表 2－1` in a question matches `表2-1` in the CSV. */
export function normalizeFigureRef(ref: string): string {
  return ref
    .normalize('NFKC')
    .replace(/\s+/g, '')
    .replace(/[－—–.．]/g, '-');
}

/** The figure references a question names, normalised. */
export function figureRefsIn(query: string): string[] {
  return [...query.normalize('NFKC').matchAll(FIGURE_REF)].map((m) => normalizeFigureRef(`${m[1]}${m[2]}`));
}

/** Whether a question is about a figure or a table (a cue word or a figure reference). */
export function isTableQuestion(query: string): boolean {
  return TABLE_CUES.test(query) || figureRefsIn(query).length > 0;
}

/**
 * The exam-priority rule, applied after retrieval in every mode:
 * 1. if the question names a figure reference (表2-1) and a hit carries exactly that reference, that hit
 *    goes first (several: in score order; scores lifted to stay falling, `promoteHits`);
 * 2. otherwise, when the question is about a figure or table (`isTableQuestion`), each
 *    `manual_table_rewrite` hit's score is multiplied by 1 + 0.25 × (exam_priority − 1)
 *    (priority 3 → ×1.5; negative scores are divided instead so the boost still helps);
 * 3. other questions keep the retriever's order.
 * Scores of every mode are higher-is-better, so a multiplicative boost works for BM25, cosine and RRF alike.
 */
export function applyExamPriority(query: string, hits: readonly Hit[]): Hit[] {
  const refs = new Set(figureRefsIn(query));
  const tableQuestion = isTableQuestion(query);
  const scored = hits.map((hit, i) => {
    let score = hit.score;
    if (tableQuestion && hit.chunk.chunk_type === 'manual_table_rewrite') {
      const factor = 1 + PRIORITY_BOOST_PER_POINT * Math.max(0, hit.chunk.exam_priority - 1);
      score = score >= 0 ? score * factor : score / factor;
    }
    const named = hit.chunk.figure_ref !== '' && refs.has(normalizeFigureRef(hit.chunk.figure_ref));
    return { hit: { chunk: hit.chunk, score }, named, i };
  });
  scored.sort((a, b) => Number(b.named) - Number(a.named) || b.hit.score - a.hit.score || a.i - b.i);
  return promoteHits(
    scored.filter((s) => s.named).map((s) => s.hit),
    scored.filter((s) => !s.named).map((s) => s.hit),
  );
}

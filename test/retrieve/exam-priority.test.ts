import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyExamPriority, figureRefsIn, isTableQuestion } from '../../src/retrieve/exam-priority.js';
import { dedupeHits, expandNeighbours, PROMOTION_STEP, promoteHits } from '../../src/retrieve/post-process.js';
import { quoteLocation } from '../../src/text/citation.js';
import type { Hit } from '../../src/types.js';
import { chunk } from './make-chunk.js';

const table = (id: string, ref: string, priority = 3) =>
  chunk(id, { chunk_type: 'manual_table_rewrite', figure_ref: ref, exam_priority: priority, source: 't.csv' });

describe('exam priority rule', () => {
  it('recognises table questions and figure references', () => {
    assert.deepEqual(figureRefsIn('根据表 2－1 和图3.2，比较'), ['表2-1', '图3-2']);
    assert.ok(isTableQuestion('下表中数据说明'));
    assert.ok(isTableQuestion('比较开放式基金与封闭式基金'));
    assert.ok(!isTableQuestion('下列表述正确的是')); // 表述 is not a table
    assert.ok(!isTableQuestion('基金管理人代表基金'));
  });

  it('boosts table transcriptions by 1 + 0.25 × (priority − 1) on table questions only', () => {
    const hits: Hit[] = [
      { chunk: chunk('text'), score: 1.2 },
      { chunk: table('t', '表9-9'), score: 1.0 },
    ];
    const boosted = applyExamPriority('比较两类基金的数据', hits);
    assert.deepEqual(
      boosted.map((h) => h.chunk.chunk_id),
      ['t', 'text'],
    );
    assert.equal(boosted[0]!.score, 1.5);
    assert.deepEqual(
      applyExamPriority('两类基金的区别', hits).map((h) => h.chunk.chunk_id),
      ['text', 't'],
    );
    // Priority 1 tables get no boost; negative scores are divided so the boost still helps.
    assert.deepEqual(
      applyExamPriority('比较', [
        { chunk: chunk('x'), score: 1.2 },
        { chunk: table('t1', '', 1), score: 1 },
      ]).map((h) => h.chunk.chunk_id),
      ['x', 't1'],
    );
    assert.equal(applyExamPriority('比较', [{ chunk: table('t', ''), score: -3 }])[0]!.score, -2);
  });

  it('puts the chunk whose figure_ref the question names first', () => {
    const hits: Hit[] = [
      { chunk: chunk('a'), score: 9 },
      { chunk: table('t21', '表2-1'), score: 0.1 },
      { chunk: table('t22', '表2-2'), score: 5 },
    ];
    const named = applyExamPriority('表2－1所示的内容', hits);
    assert.deepEqual(
      named.map((h) => [h.chunk.chunk_id, h.score]),
      // Lifted a step above the best score below it, so the scores fall with the rank (run files are read by score).
      [
        ['t21', 9 + PROMOTION_STEP],
        ['a', 9],
        ['t22', 7.5], // a table question: the transcription's boost (×1.5)
      ],
    );
  });

  it('promoteHits keeps the chosen order with falling scores and leaves the rest alone', () => {
    const hit = (id: string, score: number): Hit => ({ chunk: chunk(id), score });
    const out = promoteHits([hit('p1', 0.2), hit('p2', 0.9), hit('p3', 0.1)], [hit('r1', 0.5), hit('r2', 0.7)]);
    assert.deepEqual(
      out.map((h) => [h.chunk.chunk_id, h.score]),
      [
        ['p1', 0.9 + PROMOTION_STEP],
        ['p2', 0.9],
        ['p3', 0.7 + PROMOTION_STEP],
        ['r1', 0.5],
        ['r2', 0.7],
      ],
    );
    assert.deepEqual(
      promoteHits([hit('only', 0.3)], []).map((h) => h.score),
      [0.3],
    );
  });
});

describe('dedupe and neighbour expansion', () => {
  it('drops identical texts and merges overlapping chunks of one source into the better ranked', () => {
    const hits: Hit[] = [
      { chunk: chunk('a', { char_start: 0, char_end: 5, text: 'ABCDE', page_start: '1', page_end: '1' }), score: 3 },
      // Shares the chunking overlap (DE) with a: merged into a, so the text cut at the boundary is whole once.
      { chunk: chunk('b', { char_start: 3, char_end: 9, text: 'DEFGHI', page_start: '2', page_end: '2' }), score: 2 },
      // Inside a and b: nothing new.
      { chunk: chunk('h', { char_start: 1, char_end: 4, text: 'BCD' }), score: 1.5 },
      { chunk: chunk('c', { char_start: 9, char_end: 12, text: 'JKL' }), score: 1 },
      { chunk: chunk('d', { source: 'other.pdf', char_start: 0, char_end: 5, text: 'delta' }), score: 1 },
      { chunk: chunk('e', { source: 'x.pdf', char_start: 0, char_end: 5, text: 'A BCDE' }), score: 0.5 },
      // CSV rows each count offsets from 0; they never overlap each other.
      { chunk: table('t1', '表1-1'), score: 0.4 },
      { chunk: { ...table('t2', '表1-2'), text: 'other row' }, score: 0.3 },
    ];
    const out = dedupeHits(hits);
    assert.deepEqual(
      out.map((h) => h.chunk.chunk_id),
      ['a', 'c', 'd', 't1', 't2'],
    );
    assert.deepEqual([out[0]!.chunk.text, out[0]!.score, out[0]!.chunk.char_start, out[0]!.chunk.char_end], ['ABCDEFGHI', 3, 0, 9]);
    assert.deepEqual([out[0]!.chunk.page_start, out[0]!.chunk.page_end], ['1', '2']);
    // A lower neighbour merged before the better hit's text (it starts earlier) still lands in order.
    const [m] = dedupeHits([hits[1]!, hits[0]!]);
    assert.deepEqual([m!.chunk.chunk_id, m!.chunk.text], ['b', 'ABCDEFGHI']);
  });

  it("keeps every part's page breaks in the merged text, so a quote from the later part cites its own page", () => {
    const a = chunk('a', { char_start: 0, char_end: 5, text: 'ABCDE', page_start: '3', page_end: '3', pdf_page_start: 5, pdf_page_end: 5 });
    const b = chunk('b', {
      char_start: 3,
      char_end: 9,
      text: 'DEFGHI',
      page_start: '4',
      page_end: '5',
      pdf_page_start: 6,
      pdf_page_end: 7,
      // H starts page 5.
      page_breaks: [{ offset: 4, page: '5', pdf_page: 7 }],
    });
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const [m] = dedupeHits(order.map((c, i) => ({ chunk: c, score: 2 - i })));
      assert.equal(m!.chunk.text, 'ABCDEFGHI');
      assert.deepEqual(m!.chunk.page_breaks, [
        { offset: 5, page: '4', pdf_page: 6 },
        { offset: 7, page: '5', pdf_page: 7 },
      ]);
      assert.deepEqual([m!.chunk.page_start, m!.chunk.page_end], ['3', '5']);
      assert.deepEqual(
        ['BC', 'FG', 'HI', 'DEF'].map((q) => {
          const at = quoteLocation(m!.chunk, q);
          return `${at.page_start}-${at.page_end}`;
        }),
        ['3-3', '4-4', '5-5', '3-4'],
      );
    }
  });

  it('expands within source and section only, merging overlapping text once', () => {
    const all = [
      chunk('s0', { seq: 0, section: 'S1', char_start: 0, char_end: 6, text: 'ABCDEF' }),
      chunk('s1', { seq: 1, section: 'S2', char_start: 4, char_end: 10, text: 'EFGHIJ', page_start: '2', page_end: '2' }),
      chunk('s2', { seq: 2, section: 'S2', char_start: 8, char_end: 14, text: 'IJKLMN', page_start: '3', page_end: '3' }),
      chunk('s3', { seq: 3, section: 'S2', char_start: 14, char_end: 16, text: 'OP', page_start: '3', page_end: '3' }),
    ];
    const [out] = expandNeighbours([{ chunk: all[2]!, score: 7 }], all, 1);
    assert.equal(out!.chunk.chunk_id, 's2');
    assert.equal(out!.score, 7);
    assert.equal(out!.chunk.text, 'EFGHIJKLMNOP');
    assert.deepEqual([out!.chunk.page_start, out!.chunk.page_end, out!.chunk.char_start, out!.chunk.char_end], ['2', '3', 4, 16]);
    const [edge] = expandNeighbours([{ chunk: all[1]!, score: 1 }], all, 1);
    assert.equal(edge!.chunk.text, 'EFGHIJKLMN'); // s0 is another section
  });
});

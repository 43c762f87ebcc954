import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import {
  characterCounts,
  characterFrequency,
  hanCharacters,
  okapiBm25,
  rescoreByCharacters,
  type CharacterStatistics,
} from '../../src/indexing/character-rescorer.js';
import { openFtsIndex } from '../../src/indexing/fts-index.js';
import { writeFtsIndex } from '../../src/indexing/fts-writer.js';
import { openFtsRankThread } from '../../src/indexing/fts-rank-thread.js';
import { KeywordSearcher, ThreadedKeywordSearcher } from '../../src/retrieve/keyword-searcher.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import type { Chunk } from '../../src/types.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { chunk } from '../retrieve/make-chunk.js';

/** Eight Civil Code articles from four chapters, each under its real heading path. */
function article(id: string, chapter: string, text: string, seq: number): Chunk {
  const headings = ['第三编 合同编', '第二分编 典型合同', chapter];
  return chunk(id, { headings, chapter: headings[0], section: headings[1], subsection: chapter, text, seq, source: 'code.pdf' });
}
const GIFT = '第十一章 赠与合同';
const LEASE = '第十五章 融资租赁合同';
const CUSTODY = '第二十一章 保管合同';
const ARTICLES = [
  article('a657', GIFT, '第六百五十七条 赠与合同是赠与人将自己的财产无偿给予受赠人，受赠人表示接受赠与的合同。', 0),
  article('a658', GIFT, '第六百五十八条 赠与人在赠与财产的权利转移之前可以撤销赠与。', 1),
  article(
    'a742',
    LEASE,
    '第七百四十二条 承租人对出卖人行使索赔权利，不影响其履行支付租金的义务。但是，承租人依赖出租人的技能确定租赁物或者出租人干预选择租赁物的，承租人可以请求减免相应租金。',
    2,
  ),
  article(
    'a746',
    LEASE,
    '第七百四十六条 融资租赁合同的租金，除当事人另有约定外，应当根据购买租赁物的大部分或者全部成本以及出租人的合理利润确定。',
    3,
  ),
  article(
    'a747',
    LEASE,
    '第七百四十七条 租赁物不符合约定或者不符合使用目的的，出租人不承担责任。但是，承租人依赖出租人的技能确定租赁物或者出租人干预选择租赁物的除外。',
    4,
  ),
  article(
    'a901',
    CUSTODY,
    '第九百零一条 保管人保管货币的，可以返还相同种类、数量的货币；保管其他可替代物的，可以按照约定返还相同种类、品质、数量的物品。',
    5,
  ),
  article('a902', CUSTODY, '第九百零二条 有偿的保管合同，寄存人应当按照约定的期限向保管人支付保管费。', 6),
  article('a904', '第二十二章 仓储合同', '第九百零四条 仓储合同是保管人储存存货人交付的仓储物，存货人支付仓储费的合同。', 7),
];
/** A lay question: the article that answers it names 融资租赁合同's 租金, its neighbour repeats 租金 and 租赁物. */
const QUESTION = '融资租赁合同租金如何确定？';

void describe('character re-scoring of the keyword ranking', () => {
  const analyzer = createAnalyzer([]);
  let tmp: ReturnType<typeof makeTempRoot>;
  let file: string;
  before(() => {
    tmp = makeTempRoot();
    file = path.join(tmp.root, 'fts.db');
    writeFtsIndex(file, ARTICLES, analyzer);
  });
  after(() => tmp.cleanup());

  void it('puts the article whose own text holds the question first, where words alone put its neighbour first', () => {
    const fts = openFtsIndex(file, analyzer);
    const wordsOnly = openFtsIndex(file, analyzer, { characters: null });
    try {
      // Every row of the chapter holds 融资租赁合同 in its heading, so the word score barely separates them.
      assert.deepEqual(
        wordsOnly.search(QUESTION, 2).map((h) => h.chunk.chunk_id),
        ['a742', 'a746'],
      );
      assert.deepEqual(
        fts.search(QUESTION, 2).map((h) => h.chunk.chunk_id),
        ['a746', 'a742'],
      );
      // Scores stay higher-is-better and descending; the first k hits are the same for every k.
      const five = fts.search(QUESTION, 5);
      assert.deepEqual(
        five.map((h) => h.score),
        [...five.map((h) => h.score)].sort((a, b) => b - a),
      );
      assert.deepEqual(
        fts.search(QUESTION, 1).map((h) => h.chunk.chunk_id),
        five.slice(0, 1).map((h) => h.chunk.chunk_id),
      );
    } finally {
      fts.close();
      wordsOnly.close();
    }
  });

  void it('ranks the same on the keyword thread as in-process', async () => {
    const fts = openFtsIndex(file, analyzer);
    const thread = await openFtsRankThread(file, fts.rankerOptions);
    try {
      const local = await new KeywordSearcher(fts).search(QUESTION, 3);
      const threaded = await new ThreadedKeywordSearcher(fts, thread).search(QUESTION, 3);
      assert.deepEqual(
        threaded.map((h) => [h.chunk.chunk_id, h.score]),
        local.map((h) => [h.chunk.chunk_id, h.score]),
      );
      assert.equal(threaded[0]?.chunk.chunk_id, 'a746');
    } finally {
      await thread.close();
      fts.close();
    }
  });

  void it('leaves an index written before the character counts ranked by words, as when it was built', () => {
    const old = path.join(tmp.root, 'old.db');
    writeFtsIndex(old, ARTICLES, analyzer);
    const db = new Database(old);
    db.exec('DROP TABLE character_df');
    db.close();
    const fts = openFtsIndex(old, analyzer);
    try {
      assert.deepEqual(
        fts.search(QUESTION, 2).map((h) => h.chunk.chunk_id),
        ['a742', 'a746'],
      );
    } finally {
      fts.close();
    }
  });

  void it('re-scores only the first `depth` hits and keeps the order of a question without Han characters', () => {
    const stats: CharacterStatistics = { documents: 100, averageLength: 10, docFrequency: () => 2 };
    const options = { depth: 2, weight: 1, k1: 1.2, b: 0.75, maxRepeat: 2 };
    const rows = [
      { id: 'x', text: '甲乙丙', score: 3 },
      { id: 'y', text: '保理合同', score: 2 },
      { id: 'z', text: '保理合同保理', score: 1 },
    ];
    assert.deepEqual(
      rescoreByCharacters('保理', rows, stats, options).map((r) => r.id),
      ['y', 'x', 'z'],
    );
    assert.deepEqual(
      rescoreByCharacters('fund NAV 2024', rows, stats, options).map((r) => [r.id, r.score]),
      rows.map((r) => [r.id, r.score]),
    );
    // Compatibility ideographs and Kangxi radicals fold to the standard characters (NFKC); Latin letters are not counted.
    assert.deepEqual(hanCharacters('⺠⽂法 a1，民'), ['⺠', '文', '法', '民']);
  });
});

void describe('okapiBm25', () => {
  void it('sums weight · f (k1 + 1) / (f + k1 (1 − b + b · length / average)) over the terms a text holds (golden value)', () => {
    const frequency = (key: string): number => ({ a: 2, b: 1 })[key] ?? 0;
    const terms = [
      { key: 'a', weight: 1.5 },
      { key: 'b', weight: 0.5 },
      { key: 'missing', weight: 9 },
    ];
    const norm = 1.2 * (1 - 0.75 + (0.75 * 20) / 10);
    const expected = (1.5 * 2 * 2.2) / (2 + norm) + (0.5 * 1 * 2.2) / (1 + norm);
    assert.ok(Math.abs(okapiBm25(terms, frequency, 20, 10, { k1: 1.2, b: 0.75 }) - expected) < 1e-12);
    assert.equal(
      okapiBm25(terms, () => 0, 20, 10, { k1: 1.2, b: 0.75 }),
      0,
    );
  });
});

void describe('characterCounts', () => {
  void it("counts a text's Han characters by code point, after NFKC, beyond the BMP too, and nothing else", () => {
    // ⼈ (a Kangxi radical) folds to 人; 𠀀 is one character of two code units; Latin, digits and punctuation are not Han.
    const counts = characterCounts('人⼈民，abc 12 𠀀𠀀人');
    assert.equal(counts.length, 6);
    assert.deepEqual(Array.from(counts.pairs), [0x4eba, 3, 0x6c11, 1, 0x20000, 2]);
    for (const [ch, n] of [
      ['人', 3],
      ['民', 1],
      ['𠀀', 2],
      ['国', 0],
      ['a', 0],
    ] as const) {
      assert.equal(characterFrequency(counts, ch), n, ch);
    }
    assert.equal(characterFrequency(characterCounts('abc'), '人'), 0);
  });
});

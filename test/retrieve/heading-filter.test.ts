import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openFtsIndex } from '../../src/indexing/fts-index.js';
import { writeFtsIndex } from '../../src/indexing/fts-writer.js';
import { matchesFilter } from '../../src/retrieve/chunk-filter.js';
import { createAnalyzer } from '../../src/text/analyzer.js';
import { makeTempRoot } from '../helpers/temp-root.js';
import { chunk } from './make-chunk.js';

const marriage = chunk('c1042', {
  headings: ['第五编 婚姻家庭编', '第一章 一般规定'],
  chapter: '第五编 婚姻家庭编',
  section: '第一章 一般规定',
  articles: ['第一千零四十二条'],
  page_breaks: [{ offset: 5, page: '88', pdf_page: 88 }],
  text: '第一千零四十二条 禁止包办、买卖婚姻和其他干涉婚姻自由的行为。',
});
const contract = chunk('c463', {
  headings: ['第三编 合同编', '第一分编 通则', '第一章 一般规定', '第一节 通则'],
  chapter: '第三编 合同编',
  section: '第一分编 通则',
  subsection: '第一节 通则',
  text: '第四百六十三条 本编调整因合同产生的民事关系。',
});

void describe('--chapter matches any level of the heading path', () => {
  void it('in memory', () => {
    assert.equal(matchesFilter(marriage, { chapter: '婚姻家庭编' }), true);
    assert.equal(matchesFilter(contract, { chapter: '第一章 一般规定' }), true);
    assert.equal(matchesFilter(contract, { chapter: '婚姻家庭编' }), false);
  });
  void it('in the keyword index, which also round-trips the path, articles and page breaks', () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'fts.db');
      const analyzer = createAnalyzer([]);
      writeFtsIndex(file, [marriage, contract], analyzer);
      const fts = openFtsIndex(file, analyzer);
      try {
        assert.deepEqual(
          fts.search('一般规定', 5, { chapter: '婚姻家庭编' }).map((h) => h.chunk.chunk_id),
          ['c1042'],
        );
        // 第一分编 is the second level of the contract chunk's path, 第一章 its third.
        assert.deepEqual(
          fts.search('民事关系', 5, { chapter: '第一章 一般规定' }).map((h) => h.chunk.chunk_id),
          ['c463'],
        );
        assert.deepEqual(
          fts.search('民事关系', 5, { chapter: '第一分编' }).map((h) => h.chunk.chunk_id),
          ['c463'],
        );
        const loaded = fts.loadChunks().find((c) => c.chunk_id === 'c1042');
        assert.deepEqual(
          [loaded?.headings, loaded?.articles, loaded?.page_breaks],
          [marriage.headings, marriage.articles, marriage.page_breaks],
        );
      } finally {
        fts.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});

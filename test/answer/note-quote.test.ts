import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { markedQuote, toEvidence } from '../../src/answer/evidence.js';
import { readNote } from '../../src/ingest/load-notes.js';
import { segmentsToChunks } from '../../src/ingest/make-chunks.js';
import { markdownPlain } from '../../src/text/markdown-plain.js';
import type { Chunk } from '../../src/types.js';
import { fixturesDir } from '../helpers/temp-root.js';

const NOTE = path.join(fixturesDir, 'notes', '开放式基金笔记.md');
const CHUNKING = { minChars: 300, maxChars: 800, overlap: 100, articleUnits: true };

/** The fixture note's chunks, as ingest cuts them. */
function noteChunks(): Chunk[] {
  const note = readNote(readFileSync(NOTE, 'utf8'), true);
  return segmentsToChunks(note.segments, { book: '笔记', source: 'rawdoc/开放式基金笔记.md', chunkType: 'note', labels: [] }, CHUNKING);
}

function chunkHolding(text: string): Chunk {
  const chunk = noteChunks().find((c) => c.text.includes(text));
  assert.ok(chunk, `no chunk holds ${text}`);
  return chunk;
}

void describe('quotes from Markdown notes', () => {
  void it('quotes emphasis as the reader sees it, with the highlight on the plain words', () => {
    const chunk = chunkHolding('**T+2日**');
    const item = toEvidence(chunk, '赎回款项一般在 **T+2日** 内划出', ['T+2日']);
    assert.equal(item.quote, '基金份额持有人赎回基金份额时，赎回款项一般在 T+2日 内划出，最长不超过 T+7日。');
    assert.equal(markedQuote(item), '基金份额持有人赎回基金份额时，赎回款项一般在 **T+2日** 内划出，最长不超过 T+7日。');
    assert.doesNotMatch(item.quote, /:::|warning|\*/u);
  });

  void it('quotes a table row as its cells, without pipes, and marks a percentage the note set in bold', () => {
    const chunk = chunkHolding('赎回费率上限');
    const item = toEvidence(chunk, '| 赎回费率上限 | 不超过赎回金额的 **5%** |', ['赎回费率', '5%']);
    assert.doesNotMatch(item.quote, /\||\*|---/u);
    assert.match(item.quote, /赎回费率上限 +不超过赎回金额的 5%/u);
    assert.match(markedQuote(item), /\*\*赎回费率\*\*上限 +不超过赎回金额的 \*\*5%\*\*/u);
  });

  void it('quotes a tip block without its fence and a figure set in bold without tangled marks', () => {
    const chunk = chunkHolding('销售服务费');
    const item = toEvidence(chunk, '不超过 **1.5%**。', ['1.5%']);
    assert.doesNotMatch(item.quote, /:::|tip|\*/u);
    assert.match(markedQuote(item), /不超过 \*\*1\.5%\*\*。/u);
    // Without an anchor the quote is the chunk's start, plain too.
    assert.doesNotMatch(toEvidence(chunk).quote, /:::|\*\*|\|/u);
  });

  void it('keeps every character of the plain text mapped to its place in the Markdown', () => {
    const source = '# 标题\n::: warning 注意\n| a | **b** |\n|---|---|\n- 列表 [链接](http://x) *斜体* `代码`\n:::';
    const plain = markdownPlain(source);
    assert.equal(plain.text, '标题\n\n a   b \n\n列表 链接 斜体 代码\n');
    plain.map.forEach((o, i) => {
      const ch = plain.text[i];
      assert.ok(ch === ' ' ? [' ', '|'].includes(source[o] ?? '') : source[o] === ch, `char ${i}`);
    });
  });

  void it('leaves PDF text alone', () => {
    const pdfChunk = { ...chunkHolding('**T+2日**'), source: 'rawdoc/a.pdf', chunk_type: 'text' as const };
    assert.match(toEvidence(pdfChunk, '赎回款项一般在 **T+2日** 内划出', ['T+2日']).quote, /\*\*T\+2日\*\*/u);
  });
});

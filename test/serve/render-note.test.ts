import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderNote } from '../../src/serve/render-note.js';
import { markQuote } from '../../src/serve/view-pages.js';
import { fixturesDir } from '../helpers/temp-root.js';

const NOTE = readFileSync(path.join(fixturesDir, 'notes', '开放式基金笔记.md'), 'utf8');

void describe('renderNote', () => {
  void it('renders boxes, tables and emphasis, and marks a plain quote across the bold words', () => {
    const { html, marked } = renderNote(NOTE, '赎回款项一般在 T+2日 内划出');
    assert.ok(marked);
    assert.match(html, /<div class="callout warning">\s*<p class="callout-title">注意<\/p>/u);
    assert.match(html, /<td>赎回费率上限<\/td>/u);
    assert.match(
      html,
      /<mark class="quote" id="hl">赎回款项一般在<\/mark> <strong><mark class="quote">T\+2日<\/mark><\/strong> <mark class="quote">内划出<\/mark>/u,
    );
    assert.equal(html.match(/id="hl"/gu)?.length, 1, 'one anchor');
    assert.doesNotMatch(html, /:::|\*\*/u);
  });

  void it('finds a quote still carrying the note markup, and marks the part found of a quote cut differently', () => {
    assert.match(
      renderNote(NOTE, '不超过 **1.5%**。').html,
      /<mark class="quote" id="hl">不超过<\/mark> <strong><mark class="quote">1\.5%<\/mark><\/strong><mark class="quote">。/u,
    );
    const partial = renderNote(NOTE, '复习时先记住时间，再记住比例。这一句不在笔记里');
    assert.ok(partial.marked);
    assert.match(partial.html, /<mark class="quote" id="hl">复习时先记住<\/mark><em><mark class="quote">时间<\/mark><\/em>/u);
    assert.equal(renderNote(NOTE, '完全不在笔记里的一句话').marked, false);
  });

  void it('marks each part of a quote with an inner ellipsis, and not what the ellipsis leaves out', () => {
    // A table row quoted under its header: the first row, between them, is not part of the quote.
    const { html, marked } = renderNote(NOTE, '项目 规定…巨额赎回认定 单个开放日净赎回申请超过基金总份额的 10%');
    assert.ok(marked);
    assert.match(html, /<th><mark class="quote" id="hl">项目<\/mark><\/th>/u);
    assert.match(html, /<td><mark class="quote">巨额赎回认定<\/mark><\/td>/u);
    assert.doesNotMatch(html, /<mark class="quote">赎回费率上限/u);
    assert.doesNotMatch(html, /<mark class="quote">不超过赎回金额的/u);
    assert.equal(html.match(/id="hl"/gu)?.length, 1, 'one anchor');
    // Two parts in one line of text: both marked in that line, the words between them not.
    const line = renderNote(NOTE, '基金份额持有人赎回基金份额时，…最长不超过').html;
    assert.match(
      line,
      /<mark class="quote" id="hl">基金份额持有人赎回基金份额时，<\/mark>赎回款项一般在 <strong>T\+2日<\/strong> 内划出，<mark class="quote">最长不超过<\/mark>/u,
    );
  });

  void it('runs nothing from the note and loads nothing from elsewhere', () => {
    const { html } = renderNote(
      '# 标题\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n[点我](javascript:alert(1)) ![图](http://example.com/a.png) [官网](https://example.com)',
      '',
    );
    // Raw HTML is shown as text; a javascript: link stays text; an image is its description.
    assert.doesNotMatch(html, /<script|<img|href="javascript/iu);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/u);
    assert.match(html, /\[点我\]\(javascript:alert\(1\)\) 图 /u);
    assert.match(html, /<a href="https:\/\/example.com">官网<\/a>/u);
    assert.match(html, /图/u);
  });
});

void describe('markQuote (a plain-text note)', () => {
  void it('marks a list item with its lead (not the items between), and a plain quote where it stands', () => {
    const text = '基金托管人应当履行下列职责：\n（一）安全保管基金财产；\n（二）开设账户；\n（三）复核基金资产净值。\n其他。';
    assert.equal(
      markQuote(text, '基金托管人应当履行下列职责：…（三）复核基金资产净值。', 'hl'),
      '<mark id="hl">基金托管人应当履行下列职责：</mark>\n（一）安全保管基金财产；\n（二）开设账户；\n<mark>（三）复核基金资产净值。</mark>\n其他。',
    );
    assert.equal(
      markQuote(text, '（二）开设账户；'),
      '基金托管人应当履行下列职责：\n（一）安全保管基金财产；\n<mark>（二）开设账户；</mark>\n（三）复核基金资产净值。\n其他。',
    );
    assert.equal(markQuote(text, '不在其中…的话'), text);
  });
});

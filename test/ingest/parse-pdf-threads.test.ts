import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { parsePdf } from '../../src/ingest/parse-pdf.js';
import type { RawPdf } from '../../src/ingest/pdf-types.js';
import { rawPdf } from '../helpers/raw-pdf.js';
import { makeTempRoot } from '../helpers/temp-root.js';

/** A book of `pages` pages, each with a heading and a few lines, and an outline entry per page. */
function bookPdf(pages: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false });
    const parts: Buffer[] = [];
    doc.on('data', (c: Buffer) => parts.push(c));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    for (let p = 1; p <= pages; p++) {
      doc.addPage();
      doc.fontSize(18).text(`Chapter ${p}`);
      doc
        .fontSize(11)
        .text(`Line one of page ${p}.`)
        .text(`Line two of page ${p}, with the number ${p * 7}.`);
      doc.outline.addItem(`Chapter ${p}`);
    }
    doc.end();
  });
}

/**
 * A PDF written by hand whose page `slow` draws a form that draws a form … ten times at each of eight levels:
 * reading its text would take hours, so the page always runs out of time. The other pages say `Page N`.
 */
function slowPagePdf(pages: number, slow: number): Buffer {
  const bodies: string[] = [];
  const add = (body: string): number => bodies.push(body);
  const stream = (dict: string, data: string): string => `<< ${dict} /Length ${Buffer.byteLength(data)} >>\nstream\n${data}\nendstream`;
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const box = '/Type /XObject /Subtype /Form /BBox [0 0 600 800]';
  let form = add(stream(`${box} /Resources << /Font << /F1 ${font} 0 R >> >>`, 'BT /F1 12 Tf 10 10 Td (a) Tj ET'));
  for (let level = 1; level < 8; level++)
    form = add(stream(`${box} /Resources << /XObject << /X ${form} 0 R >> >>`, Array<string>(10).fill('/X Do').join(' ')));
  const pagesId = bodies.length + 2 * pages + 1;
  const kids: number[] = [];
  for (let p = 1; p <= pages; p++) {
    const content = add(stream('', `BT /F1 24 Tf 72 700 Td (Page ${p}) Tj ET${p === slow ? ' /X Do' : ''}`));
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << /F1 ${font} 0 R >> /XObject << /X ${form} 0 R >> >> >>`,
      ),
    );
  }
  add(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${pages} >>`);
  const catalog = add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`);
  return rawPdf(bodies, catalog);
}

const pageTexts = (raw: RawPdf): string[] => raw.pages.map((p) => p.lines.map((l) => l.text).join(' | ') || `(${p.error ?? 'empty'})`);

void describe('parsePdf with several worker threads', () => {
  void it('reads a long document into the same pages, labels and bookmarks as one worker, counting pages as they come', async () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'book.pdf');
      writeFileSync(file, await bookPdf(12));
      const limits = { pageTimeoutMs: 20_000, fileTimeoutMs: 60_000 };
      const one = await parsePdf(file, { ...limits, threads: 1 });
      const counts: number[] = [];
      const three = await parsePdf(file, { ...limits, threads: 3, pagesPerThread: 2, onPage: (read, total) => counts.push(read, total) });
      assert.equal(one.numPages, 12);
      assert.equal(one.bookmarks.length, 12);
      assert.equal(pageTexts(one)[4], 'Chapter 5 | Line one of page 5. | Line two of page 5, with the number 35.');
      assert.deepEqual(three, one);
      assert.deepEqual(counts, Array.from({ length: 12 }, (_, i) => [i + 1, 12]).flat());
    } finally {
      tmp.cleanup();
    }
  });

  void it('skips a page over its time limit while another worker reads the rest, as one worker would after it', async () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'slow.pdf');
      writeFileSync(file, slowPagePdf(6, 1));
      const limits = { pageTimeoutMs: 3_000, fileTimeoutMs: 60_000 };
      const started = Date.now();
      const readAt: number[] = [];
      const two = await parsePdf(file, { ...limits, threads: 2, pagesPerThread: 1, onPage: () => readAt.push(Date.now() - started) });
      const expected = ['(time limit)', 'Page 2', 'Page 3', 'Page 4', 'Page 5', 'Page 6'];
      assert.deepEqual(pageTexts(two), expected);
      assert.deepEqual(two.warnings, ['page 1 skipped: it took longer than 3000 ms']);
      // The second worker read pages 2 to 6 while the first was stuck on page 1, not after its limit.
      assert.equal(readAt.length, 5);
      assert.ok(
        readAt.every((ms) => ms < limits.pageTimeoutMs),
        `pages read at ${readAt.join(', ')} ms`,
      );
      const one = await parsePdf(file, { ...limits, threads: 1 });
      assert.deepEqual(pageTexts(one), expected);
      assert.deepEqual(one.warnings, two.warnings);
    } finally {
      tmp.cleanup();
    }
  });
});

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { loadConfig } from '../../src/config/load-config.js';
import { ocrPackagesPresent } from '../../src/ingest/ocr/ocr-engine.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { projectPaths } from '../../src/paths.js';
import { makeTempRoot } from '../helpers/temp-root.js';

/** A book of `pages` empty A4 pages: no text layer, nothing drawn. */
function blankPdf(pages: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, size: [595, 842], margin: 0 });
    const parts: Buffer[] = [];
    doc.on('data', (c) => parts.push(c));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    for (let i = 0; i < pages; i++) doc.addPage({ size: [595, 842], margin: 0 });
    doc.end();
  });
}

const ocr = ocrPackagesPresent();

void describe('a book of 2,000 blank pages with --ocr auto', { skip: ocr.ok ? false : `OCR packages absent: ${ocr.reason}` }, () => {
  void it('renders no page for OCR (a page that paints nothing needs no picture) and says there is no text', async () => {
    const tmp = makeTempRoot();
    try {
      mkdirSync(path.join(tmp.root, 'rawdoc'));
      writeFileSync(path.join(tmp.root, 'rawdoc', 'blank.pdf'), await blankPdf(2000));
      const { config } = loadConfig({ root: tmp.root, env: {} });
      const result = await runIngest({ root: tmp.root, config, ocr: 'auto' });
      assert.equal(result.totals.pages, 2000);
      assert.equal(result.totals.chunks, 0);
      assert.match(JSON.stringify(result.files[0]?.warnings), /no text found on 2000 of 2000 pages/u);
      // Each rendered page left an OCR result behind (and held a page-sized canvas while it was drawn): none now.
      const cache = projectPaths(tmp.root).ocrCache;
      const entries = existsSync(cache) ? readdirSync(cache, { recursive: true }).filter((f) => String(f).endsWith('.json')) : [];
      assert.deepEqual(entries, []);
    } finally {
      tmp.cleanup();
    }
  });
});

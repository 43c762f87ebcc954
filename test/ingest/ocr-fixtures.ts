import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';

/** Wraps one image into a one-page PDF with no text layer, the way scanners and img2pdf do. */
export function imageOnlyPdf(png: Buffer, widthPt: number, heightPt: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: [widthPt, heightPt], margin: 0 });
    const parts: Buffer[] = [];
    doc.on('data', (c) => parts.push(c));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    doc.image(png, 0, 0, { width: widthPt, height: heightPt });
    doc.end();
  });
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A grayscale PNG of a page with a few dark bars where lines of print would be (no canvas needed): enough
 * to stand for a scan when OCR is off.
 */
export function barsPng(width: number, height: number): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(width + 1, 255);
    row[0] = 0;
    if (y % 30 >= 10 && y % 30 < 22) row.fill(40, 1 + Math.floor(width * 0.1), 1 + Math.floor(width * 0.9));
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

interface PdfJs {
  getDocument(params: Record<string, unknown>): {
    promise: Promise<{
      getPage(n: number): Promise<{
        getViewport(p: { scale: number }): { width: number; height: number };
        render(p: { canvasContext: unknown; viewport: unknown }): { promise: Promise<void> };
      }>;
      canvasFactory: {
        create(
          w: number,
          h: number,
        ): {
          canvas: { encode(f: 'png'): Promise<Buffer> };
          context: { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void };
        };
      };
      destroy(): Promise<void>;
    }>;
  };
}

/**
 * Renders the top `fraction` of one page of a text PDF at `dpi` with pdf.js (and its own canvas), as a
 * scanner would see it. Returns the PNG and its size in points.
 */
export async function renderTopOfPage(
  file: string,
  pageNumber: number,
  dpi: number,
  fraction: number,
): Promise<{ png: Buffer; widthPt: number; heightPt: number }> {
  const require = createRequire(import.meta.url);
  const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));
  const pdfjs = (await import(pathToFileURL(path.join(pdfjsRoot, 'legacy', 'build', 'pdf.mjs')).href)) as PdfJs;
  const { readFileSync } = await import('node:fs');
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(readFileSync(file)),
    cMapUrl: `${path.join(pdfjsRoot, 'cmaps')}/`,
    cMapPacked: true,
    standardFontDataUrl: `${path.join(pdfjsRoot, 'standard_fonts')}/`,
    isEvalSupported: false,
    verbosity: 0,
  }).promise;
  try {
    const page = await doc.getPage(pageNumber);
    const viewport = page.getViewport({ scale: dpi / 72 });
    const width = Math.ceil(viewport.width);
    const height = Math.ceil(viewport.height * fraction);
    const { canvas, context } = doc.canvasFactory.create(width, height);
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    // Drawing beyond the canvas is clipped: only the top of the page lands on it.
    await page.render({ canvasContext: context, viewport }).promise;
    return { png: await canvas.encode('png'), widthPt: (width * 72) / dpi, heightPt: (height * 72) / dpi };
  } finally {
    await doc.destroy();
  }
}

/**
 * Worker-thread entry that runs pdf.js on one PDF. It lives in its own thread so the main thread can
 * terminate it when a page or the whole file exceeds its time budget, or when it exhausts its memory cap:
 * a decompression bomb blocks the thread it runs on, and no timer on that thread could fire.
 *
 * Several workers may read one PDF at once: each opens the file and takes the next unread page from a counter
 * they share (`claim`), so pages are handed out without the parent, whose thread may be busy meanwhile.
 *
 * Messages to the parent: `open` (page count; labels and bookmarks from the primary worker), `page-start`,
 * `ocr-start` (the page is being OCR'd, which has its own time limit), `ocr-unavailable` (once), `page`, `done`,
 * `error`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { OcrOutcome } from './ocr/ocr-client.js';
import { cleanOcrLine, ocrBoxesToPieces, meaningfulChars, usableTextLayer, type OcrPageResult } from './ocr/ocr-lines.js';
import type { RenderableDocument, RenderablePage } from './ocr/render-page.js';
import { rebuildLines } from './rebuild-lines.js';
import type { OcrMode, PdfBookmark, PdfFailureKind, PdfPage, TextPiece } from './pdf-types.js';

/** What the parent passes in `workerData`. */
export interface PdfWorkerInput {
  file: string;
  password?: string | undefined;
  /**
   * A shared 32-bit counter of pages taken: a worker adds one to take the next page. The pages are 1 to the page
   * count in order, or `pages` when given (the parent's second pass over pages no worker delivered).
   */
  claim: SharedArrayBuffer;
  pages?: number[] | undefined;
  /** Reads the page labels and the outline, which the other workers of the file skip. */
  primary: boolean;
  /** OCR of pages without a usable text layer; absent means `never`. */
  ocr?: { mode: OcrMode; cacheDir: string; sha256: string; dpi: number } | undefined;
}

export type PdfWorkerMessage =
  | { type: 'open'; numPages: number; pageLabels: string[] | null; bookmarks: PdfBookmark[] }
  | { type: 'page-start'; index: number }
  | { type: 'ocr-start'; index: number }
  | { type: 'ocr-request'; index: number; image: Uint8Array }
  | { type: 'ocr-unavailable'; reason: string }
  | { type: 'page'; page: PdfPage }
  | { type: 'done' }
  | { type: 'error'; kind: PdfFailureKind; message: string };

/** What the parent sends back: the OCR outcome of a page the worker asked for. */
export type PdfWorkerReply = { type: 'ocr-result'; index: number; outcome: OcrOutcome };

interface PdfJsTextItem {
  str?: string;
  transform?: number[];
  width?: number;
  fontName?: string;
}
interface PdfJsOutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: PdfJsOutlineNode[];
}
interface PdfJsPage extends RenderablePage {
  view: number[];
  getTextContent(): Promise<{ items: PdfJsTextItem[]; styles: Record<string, { fontFamily?: string }> }>;
  getOperatorList(): Promise<{ fnArray: number[] }>;
  cleanup(): void;
}
interface PdfJsDocument extends RenderableDocument {
  numPages: number;
  getPage(n: number): Promise<PdfJsPage>;
  getPageLabels(): Promise<string[] | null>;
  getOutline(): Promise<PdfJsOutlineNode[] | null>;
  getDestination(name: string): Promise<unknown[] | null>;
  getPageIndex(ref: unknown): Promise<number>;
  destroy(): Promise<void>;
}
interface PdfJsModule {
  getDocument(params: Record<string, unknown>): { promise: Promise<PdfJsDocument> };
  OPS: Record<string, number>;
}

/** pdf.js operators that put ink on a page: painting paths, text, shadings, images, forms and annotations. */
const PAINTING_OPS = [
  'stroke',
  'closeStroke',
  'fill',
  'eoFill',
  'fillStroke',
  'eoFillStroke',
  'closeFillStroke',
  'closeEOFillStroke',
  'constructPath',
  'rawFillPath',
  'showText',
  'showSpacedText',
  'nextLineShowText',
  'nextLineSetSpacingShowText',
  'shadingFill',
  'paintXObject',
  'paintFormXObjectBegin',
  'beginAnnotation',
  'paintImageMaskXObject',
  'paintImageMaskXObjectGroup',
  'paintImageXObject',
  'paintInlineImageXObject',
  'paintInlineImageXObjectGroup',
  'paintImageXObjectRepeat',
  'paintImageMaskXObjectRepeat',
  'paintSolidColorImageMask',
];

/**
 * Whether a page draws nothing at all (no path, text, image or form): such a page needs no rendering to know OCR
 * would find nothing. Rendering it cost a page-sized canvas (~0.3 s and tens of MB at 150 dpi) per blank page.
 */
async function drawsNothing(page: PdfJsPage, ops: ReadonlySet<number>): Promise<boolean> {
  const list = await page.getOperatorList();
  return !list.fnArray.some((fn) => ops.has(fn));
}

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

const send = (message: PdfWorkerMessage): void => parentPort?.postMessage(message);

async function flattenOutline(doc: PdfJsDocument, nodes: readonly PdfJsOutlineNode[], level: number, out: PdfBookmark[]): Promise<void> {
  for (const node of nodes) {
    let pdfPage: number | null = null;
    try {
      const dest = typeof node.dest === 'string' ? await doc.getDestination(node.dest) : node.dest;
      const ref = Array.isArray(dest) ? dest[0] : undefined;
      if (typeof ref === 'number') pdfPage = ref + 1;
      else if (ref !== undefined && ref !== null) pdfPage = (await doc.getPageIndex(ref)) + 1;
    } catch {
      pdfPage = null;
    }
    out.push({ title: node.title.replace(/\s+/gu, ' ').trim(), level, pdfPage });
    if (node.items.length > 0) await flattenOutline(doc, node.items, level + 1, out);
  }
}

function classify(error: unknown, password: string | undefined): { kind: PdfFailureKind; message: string } {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'PasswordException') {
    // pdf.js: code 1 = password needed, 2 = incorrect password.
    const code = (error as { code?: number }).code;
    if (code === 2 || password !== undefined) return { kind: 'wrong-password', message: 'wrong password' };
    return { kind: 'password', message: 'password-protected' };
  }
  return { kind: 'corrupt', message: message.split('\n')[0] ?? message };
}

/**
 * Loads pdf.js's legacy build (the one that runs on Node 20) and its worker half, then puts back the built-ins its
 * bundled core-js replaced with JavaScript versions: Array.prototype.push (fixing an edge case of arrays with a
 * read-only length, a quarter of a second of a 252-page book's parse here), JSON.parse and JSON.stringify. pdf.js
 * needs none of those fixes, and the natives are several times faster. The worker half is loaded here, not by
 * pdf.js on the first document, because loading it would replace them again (it carries its own core-js); once
 * `globalThis.pdfjsWorker` is set, pdf.js runs it in this thread without loading anything.
 */
async function loadPdfJs(): Promise<PdfJsModule> {
  const natives = [
    [Array.prototype, 'push'],
    [JSON, 'parse'],
    [JSON, 'stringify'],
  ].map(([owner, name]) => ({
    owner: owner as object,
    name: name as string,
    descriptor: Object.getOwnPropertyDescriptor(owner, name as string),
  }));
  const build = path.join(pdfjsRoot, 'legacy', 'build');
  const pdfjs = (await import(pathToFileURL(path.join(build, 'pdf.mjs')).href)) as PdfJsModule;
  await import(pathToFileURL(path.join(build, 'pdf.worker.mjs')).href);
  for (const { owner, name, descriptor } of natives) if (descriptor) Object.defineProperty(owner, name, descriptor);
  return pdfjs;
}

async function run(input: PdfWorkerInput): Promise<void> {
  const pdfjs = await loadPdfJs();
  let data: Uint8Array;
  try {
    data = new Uint8Array(readFileSync(input.file));
  } catch (error) {
    send({ type: 'error', kind: 'io', message: (error as Error).message });
    return;
  }
  let doc: PdfJsDocument;
  try {
    doc = await pdfjs.getDocument({
      data,
      password: input.password,
      cMapUrl: `${path.join(pdfjsRoot, 'cmaps')}/`,
      cMapPacked: true,
      standardFontDataUrl: `${path.join(pdfjsRoot, 'standard_fonts')}/`,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
  } catch (error) {
    send({ type: 'error', ...classify(error, input.password) });
    return;
  }
  let pageLabels: string[] | null = null;
  const bookmarks: PdfBookmark[] = [];
  if (input.primary)
    try {
      pageLabels = await doc.getPageLabels();
      const outline = await doc.getOutline();
      if (outline) await flattenOutline(doc, outline, 1, bookmarks);
    } catch {
      // Labels and bookmarks are optional aids; a broken outline must not lose the text.
    }
  send({ type: 'open', numPages: doc.numPages, pageLabels, bookmarks });
  const paintingOps = new Set(PAINTING_OPS.map((name) => pdfjs.OPS[name]).filter((v): v is number => v !== undefined));
  const ocr: OcrSession = { options: input.ocr, unavailable: null, paintingOps };
  const taken = new Int32Array(input.claim);
  const count = input.pages?.length ?? doc.numPages;
  for (;;) {
    const next = Atomics.add(taken, 0, 1);
    if (next >= count) break;
    const index = input.pages?.[next] ?? next + 1;
    send({ type: 'page-start', index });
    try {
      const page = await doc.getPage(index);
      const [x0 = 0, , x1 = 0, y1 = 0] = page.view;
      const content = await page.getTextContent();
      const pieces: TextPiece[] = [];
      for (const item of content.items) {
        if (typeof item.str !== 'string' || !item.transform) continue;
        const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = item.transform;
        const fontName = item.fontName ?? '';
        const family = content.styles[fontName]?.fontFamily ?? '';
        pieces.push({
          str: item.str,
          x: e,
          y: f,
          width: item.width ?? 0,
          size: Math.hypot(c, d) || Math.hypot(a, b),
          bold: /bold|heavy|black|semibold/iu.test(`${fontName} ${family}`),
        });
      }
      const read = await maybeOcr(ocr, doc, page, index, pieces, y1);
      const lines = rebuildLines(read.pieces, x1 - x0);
      if (read.ocr) for (const line of lines) line.text = cleanOcrLine(line.text);
      const itemCount = read.pieces.filter((p) => p.str.trim() !== '').length;
      send({
        type: 'page',
        page: {
          index,
          width: x1 - x0,
          height: y1,
          lines,
          itemCount,
          ...(read.ocr ? { ocr: read.ocr } : {}),
          ...(read.needsOcr ? { needsOcr: true } : {}),
        },
      });
      page.cleanup();
    } catch (error) {
      // One unreadable page is a warning, not a lost book.
      const message = error instanceof Error ? error.message : String(error);
      send({ type: 'page', page: { index, width: 0, height: 0, lines: [], itemCount: 0, error: message.split('\n')[0] ?? message } });
    }
  }
  send({ type: 'done' });
  await doc.destroy();
}

const input = workerData as PdfWorkerInput;

/** OCR state of one worker run: why OCR cannot run, once that is known. */
interface OcrSession {
  options: NonNullable<PdfWorkerInput['ocr']> | undefined;
  unavailable: string | null;
  /** pdf.js operator codes that paint (see {@link drawsNothing}). */
  paintingOps: ReadonlySet<number>;
}

const waiting = new Map<number, (outcome: OcrOutcome) => void>();
parentPort?.on('message', (reply: PdfWorkerReply) => {
  if (reply.type !== 'ocr-result') return;
  waiting.get(reply.index)?.(reply.outcome);
  waiting.delete(reply.index);
});

/** Asks the parent to OCR a page image; the parent runs the engine in a child process it can kill on timeout. */
function requestOcr(index: number, image: Buffer): Promise<OcrOutcome> {
  return new Promise((resolve) => {
    waiting.set(index, resolve);
    const bytes = new Uint8Array(image.buffer, image.byteOffset, image.byteLength);
    send({ type: 'ocr-request', index, image: bytes });
  });
}

/**
 * Decides whether a page is read from its text layer or by OCR. A page without a usable text layer (or
 * every page, with `always`) is OCR'd: from the cache when this file's page was read before, else rendered
 * and recognised. OCR lines replace the text layer when they carry more text (with `always`, whenever there are any).
 */
async function maybeOcr(
  session: OcrSession,
  doc: PdfJsDocument,
  page: PdfJsPage,
  index: number,
  pieces: TextPiece[],
  pageHeight: number,
): Promise<{ pieces: TextPiece[]; ocr?: 'recognized' | 'cached'; needsOcr?: boolean }> {
  const usable = usableTextLayer(pieces);
  const options = session.options;
  if (!options || options.mode === 'never' || (options.mode === 'auto' && usable)) return usable ? { pieces } : { pieces, needsOcr: true };
  if (session.unavailable !== null) return usable ? { pieces } : { pieces, needsOcr: true };
  send({ type: 'ocr-start', index });
  const { openOcrCache } = await import('./ocr/ocr-cache.js');
  const cache = openOcrCache(options.cacheDir, options.sha256, options.dpi);
  let result = cache.read(index);
  let how: 'recognized' | 'cached' = 'cached';
  if (!result) {
    // Rendering needs the canvas package and recognition the engine: say which is missing before trying.
    const present = (await import('./ocr/ocr-engine.js')).ocrPackagesPresent();
    if (!present.ok) {
      session.unavailable = `OCR is not installed (${present.reason})`;
      send({ type: 'ocr-unavailable', reason: session.unavailable });
      return usable ? { pieces } : { pieces, needsOcr: true };
    }
    // A page that paints nothing reads as it would after OCR found nothing on its render.
    if (await drawsNothing(page, session.paintingOps)) return { pieces };
    const { renderPage } = await import('./ocr/render-page.js');
    const rendered = await renderPage(doc, page, options.dpi);
    let boxes: OcrPageResult['boxes'] = [];
    if (rendered.png) {
      const outcome = await requestOcr(index, rendered.png);
      if ('unavailable' in outcome) {
        session.unavailable = outcome.unavailable;
        send({ type: 'ocr-unavailable', reason: outcome.unavailable });
        return usable ? { pieces } : { pieces, needsOcr: true };
      }
      // A page the engine failed on is read as it is; the failure is not cached, so a later run retries it.
      if ('error' in outcome) throw new Error(outcome.error);
      boxes = outcome.boxes;
    }
    result = { dpi: rendered.dpi, width: rendered.width, height: rendered.height, boxes } satisfies OcrPageResult;
    cache.write(index, result);
    how = 'recognized';
  }
  const ocrPieces = ocrBoxesToPieces(result, pageHeight);
  const better = options.mode === 'always' ? ocrPieces.length > 0 : meaningfulChars(ocrPieces) > meaningfulChars(pieces);
  return better ? { pieces: ocrPieces, ocr: how } : { pieces };
}
run(input).catch((error: unknown) => {
  send({ type: 'error', ...classify(error, input.password) });
});

/**
 * Renders a PDF page to a PNG with pdf.js's own Node canvas (`@napi-rs/canvas`). The canvas must be the one
 * pdf.js resolved: pdf.js draws with its classes (Path2D, DOMMatrix), and mixing two builds of the native
 * canvas crashes the process.
 */

interface RenderCanvas {
  width: number;
  height: number;
  encode(format: 'png'): Promise<Buffer>;
}
interface RenderContext {
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}
/** The parts of a pdf.js page that rendering uses. */
export interface RenderablePage {
  getViewport(params: { scale: number }): { width: number; height: number };
  render(params: { canvasContext: unknown; viewport: unknown }): { promise: Promise<void> };
}
/** The parts of a pdf.js document that rendering uses. */
export interface RenderableDocument {
  canvasFactory: { create(width: number, height: number): { canvas: unknown; context: unknown } };
}

/** The longest side of a rendered page, in pixels: posters and scans of huge sheets stay affordable to OCR. */
const MAX_SIDE_PX = 2600;

/** A rendered page: PNG bytes, or `blank` when nothing is printed on it (no OCR needed). */
export interface RenderedPage {
  png: Buffer | null;
  blank: boolean;
  dpi: number;
  width: number;
  height: number;
}

/** Renders `page` at `dpi` (lowered for very large pages) on white, and tells a blank page apart. */
export async function renderPage(doc: RenderableDocument, page: RenderablePage, dpi: number): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  const effective = Math.min(dpi, (MAX_SIDE_PX * 72) / Math.max(1, base.width, base.height));
  const viewport = page.getViewport({ scale: effective / 72 });
  const width = Math.max(1, Math.ceil(viewport.width));
  const height = Math.max(1, Math.ceil(viewport.height));
  const { canvas, context } = doc.canvasFactory.create(width, height) as { canvas: RenderCanvas; context: RenderContext };
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  await page.render({ canvasContext: context, viewport }).promise;
  const { data } = context.getImageData(0, 0, width, height);
  // Ink: pixels clearly darker than paper. Fewer than 1 in 5,000 means an empty page (or a speck).
  let ink = 0;
  for (let i = 0; i < data.length; i += 16) if ((data[i] ?? 255) + (data[i + 1] ?? 255) + (data[i + 2] ?? 255) < 480) ink++;
  const blank = ink < data.length / 16 / 5000;
  const png = blank ? null : await canvas.encode('png');
  // Free the page-sized pixel buffer now (as pdf.js's own canvas factory does), not whenever a collection finds it:
  // its memory is native, so the JS heap that paces collections barely sees it.
  canvas.width = 0;
  canvas.height = 0;
  return { png, blank, dpi: effective, width, height };
}

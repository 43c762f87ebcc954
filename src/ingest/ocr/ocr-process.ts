/**
 * Child-process entry that runs the OCR engine for the PDF parser. OCR runs in a process of its own, not in
 * the PDF worker thread: onnxruntime and sharp are C++ addons, and terminating a thread while one of them is
 * working aborts the whole program, whereas a process can always be killed when a page exceeds its time limit.
 *
 * Messages in: `{ id, image }` (PNG bytes). Out: `{ id, boxes }`, `{ id, unavailable }` (the engine cannot
 * load: missing package or broken binary) or `{ id, error }` (this page could not be read).
 */
import { loadOcrEngine } from './ocr-engine.js';
import type { OcrBox } from './ocr-lines.js';

/** A request from the parser. */
export interface OcrRequest {
  id: number;
  image: Uint8Array;
}

/** The answer to one request. */
export type OcrReply = { id: number; boxes: OcrBox[] } | { id: number; unavailable: string } | { id: number; error: string };

const engine = loadOcrEngine();

async function handle(request: OcrRequest): Promise<OcrReply> {
  const loaded = await engine;
  if ('error' in loaded) return { id: request.id, unavailable: loaded.error };
  try {
    return { id: request.id, boxes: await loaded.engine.recognize(Buffer.from(request.image)) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { id: request.id, error: `OCR failed (${message.split('\n')[0] ?? message})` };
  }
}

process.on('message', (request: OcrRequest) => {
  void handle(request).then((reply) => process.send?.(reply));
});
// The parser went away (finished, or killed): nothing is left to do.
process.on('disconnect', () => process.exit(0));

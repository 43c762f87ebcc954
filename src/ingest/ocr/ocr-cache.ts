import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../write-atomic.js';
import { OCR_ENGINE_ID } from './ocr-engine.js';
import type { OcrPageResult } from './ocr-lines.js';

/**
 * OCR results on disk, one JSON file per PDF page under `<cacheDir>/<sha256>/`, keyed by the file's
 * content hash, the page, the rendering resolution and the engine id. OCR is by far the slowest step of
 * ingest (seconds per page), and a re-ingest (`--force`, a changed config, a renamed file) must not repeat it.
 */
export interface OcrCache {
  read(page: number): OcrPageResult | null;
  write(page: number, result: OcrPageResult): void;
}

/** Opens the cache of one PDF (by its sha256) at one resolution. Unreadable entries count as misses. */
export function openOcrCache(cacheDir: string, sha256: string, dpi: number): OcrCache {
  const dir = path.join(cacheDir, sha256);
  const file = (page: number): string => path.join(dir, `p${page}-${dpi}dpi.json`);
  return {
    read(page) {
      try {
        const entry = JSON.parse(readFileSync(file(page), 'utf8')) as { engine?: string; result?: OcrPageResult };
        if (entry.engine !== OCR_ENGINE_ID || !entry.result || !Array.isArray(entry.result.boxes)) return null;
        return entry.result;
      } catch {
        return null;
      }
    },
    write(page, result) {
      try {
        // Write then rename, so a killed ingest never leaves a half-written entry behind.
        writeFileAtomic(file(page), JSON.stringify({ engine: OCR_ENGINE_ID, result }));
      } catch {
        // A cache that cannot be written only costs time on the next run.
      }
    },
  };
}

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The repository root (tests run compiled from dist/test/…). */
export const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');

/** Committed test fixtures (not compiled). */
export const fixturesDir = path.join(repoRoot, 'test', 'fixtures');

/** Golden outputs checked by tests. */
export const goldenDir = path.join(repoRoot, 'test', 'golden');

export interface TempRoot {
  root: string;
  cleanup(): void;
}

/**
 * A fresh project root in the OS temp folder. With `sample: true` it gets a copy of the repository's
 * `rawdoc/` (the sample textbook), so tests never write into the checkout. `files` are written into it (path relative
 * to the root → text).
 */
export function makeTempRoot(options: { sample?: boolean; files?: Record<string, string> } = {}): TempRoot {
  const root = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-test-'));
  if (options.sample) cpSync(path.join(repoRoot, 'rawdoc'), path.join(root, 'rawdoc'), { recursive: true });
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return {
    root,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

import { statSync } from 'node:fs';
import path from 'node:path';
import { UserError } from './errors.js';

/** Every location the tool reads or writes, derived from one root folder. */
export interface ProjectPaths {
  root: string;
  rawdoc: string;
  tableCsv: string;
  data: string;
  chunks: string;
  docsForIndex: string;
  outline: string;
  manifest: string;
  index: string;
  ftsDb: string;
  faissDir: string;
  /** Private state that survives rebuilds: caches, lock, staging area. Git-ignored. */
  state: string;
  lock: string;
  staging: string;
  previous: string;
  embeddingCache: string;
  llmCache: string;
  /** OCR results per PDF (by sha256) and page. */
  ocrCache: string;
  /** jieba's default dictionary as a lookup table, so a command starts without loading all of it. */
  segmenterCache: string;
  configFile: string;
  envFile: string;
  prompts: string;
  /** The starter dictionary of exam terms shipped with the package (always loaded before the user's). */
  starterDictionary: string;
}

/** The folder holding the packaged `prompts/`: two levels above this module, in `dist/src/` or `dist/bundle/`. */
const packageRoot = path.resolve(import.meta.dirname, '..', '..');

/** A file the package ships outside `dist/` (`wasm/`, `prompts/`, `dict/`), by its path in the package. */
export function packageFile(...parts: string[]): string {
  return path.join(packageRoot, ...parts);
}

export function projectPaths(root: string): ProjectPaths {
  const r = path.resolve(root);
  const state = path.join(r, '.exam-copilot');
  const data = path.join(r, 'data');
  const index = path.join(r, 'index');
  return {
    root: r,
    rawdoc: path.join(r, 'rawdoc'),
    tableCsv: path.join(r, 'rawdoc', 'table_explain.csv'),
    data,
    chunks: path.join(data, 'chunks.jsonl'),
    docsForIndex: path.join(data, 'docs_for_index.jsonl'),
    outline: path.join(data, 'outline.json'),
    manifest: path.join(data, 'manifest.json'),
    index,
    ftsDb: path.join(index, 'sqlite_fts.db'),
    faissDir: path.join(index, 'faiss'),
    state,
    lock: path.join(state, 'lock'),
    staging: path.join(state, 'staging'),
    previous: path.join(state, 'previous'),
    embeddingCache: path.join(state, 'cache', 'embeddings.db'),
    llmCache: path.join(state, 'cache', 'llm.db'),
    ocrCache: path.join(state, 'cache', 'ocr'),
    segmenterCache: path.join(state, 'cache', 'jieba-dictionary.bin'),
    configFile: path.join(r, 'exam-copilot.config.json'),
    envFile: path.join(r, '.env'),
    prompts: packageFile('prompts'),
    starterDictionary: packageFile('dict', 'exam-terms.txt'),
  };
}

/**
 * Fails with a one-line error (exit 1) unless `root` is an existing folder, so a mistyped `--root` is named as
 * such instead of being reported as "run ingest", and nothing gets created there.
 */
export function assertRootFolder(root: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    throw new UserError(
      `root folder ${root} does not exist; check --root (or EXAM_COPILOT_ROOT), or create the folder with a rawdoc/ inside`,
    );
  }
  if (!isDirectory) throw new UserError(`root ${root} is a file, not a folder; point --root at the folder that holds rawdoc/`);
}

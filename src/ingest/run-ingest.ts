import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { UserError } from '../errors.js';
import { publishRunEvent } from '../run-events.js';
import { assertRootFolder, projectPaths, type ProjectPaths } from '../paths.js';
import { markStagingComplete, repairInterruptedSwap, swapIntoPlace } from '../store/atomic-swap.js';
import { dictionaryHash } from '../store/freshness.js';
import { acquireIngestLock } from '../store/lock.js';
import { scanSources, type SourceFile } from '../store/scan-sources.js';
import { analyzerFromConfig } from '../text/analyzer-from-config.js';
import { prepareDictionaryTable } from '../text/prepare-dictionary-table.js';
import type { Warning } from '../types.js';
import type { IngestFileResult, IngestOptions, IngestResult } from './ingest-types.js';
import { loadPrevious, upToDateFiles } from './previous-build.js';
import { parseSources, readTableTranscriptions } from './read-source.js';
import { buildStagedIndexes, syncStaging, writeStagedData, type StagedData } from './stage-build.js';
import { diskFullError, isDiskFull, makeStateFolder } from './write-errors.js';

/** Step: lists the sources (every input, or `rawdoc/`), by real path. */
function scanInputs(input: { root: string; paths: ProjectPaths; config: ExamCopilotConfig; explicit?: readonly string[] | undefined }): {
  sources: SourceFile[];
  warnings: Warning[];
} {
  const { root, paths, config } = input;
  const inputs =
    input.explicit && input.explicit.length > 0
      ? input.explicit.map((p) => ({ path: path.resolve(root, p), explicit: true }))
      : [{ path: paths.rawdoc, explicit: false }];
  if (!input.explicit?.length && !existsSync(paths.rawdoc)) {
    throw new UserError(
      `${paths.rawdoc} does not exist; put your textbook PDFs or .md/.txt notes (and table_explain.csv) there, or pass files to ingest`,
    );
  }
  const exclude = new Set(config.userDict.map((f) => path.resolve(root, f)));
  const scanned = scanSources(root, inputs, exclude);
  if (scanned.sources.length === 0)
    throw new UserError(`no sources to ingest in ${inputs.map((i) => i.path).join(', ')}; add .pdf, .md, .txt files or table_explain.csv`);
  return scanned;
}

function summarise(
  root: string,
  started: number,
  built: readonly IngestFileResult[],
  upToDate: boolean,
  index: IngestResult['index'],
  warnings: Warning[],
): IngestResult {
  const files = [...built].sort((a, b) => a.source.localeCompare(b.source));
  const totals = {
    files: files.length,
    failed: files.filter((f) => f.status === 'failed').length,
    pages: files.reduce((n, f) => n + f.pages, 0),
    chunks: files.reduce((n, f) => n + f.chunks, 0),
    tableRows: files.reduce((n, f) => n + f.tableRows, 0),
    warnings: files.reduce((n, f) => n + f.warnings.length, 0) + warnings.length,
  };
  return { root, upToDate, files, totals, index, warnings, elapsedMs: Date.now() - started };
}

/**
 * Turns the sources under `rawdoc/` (or `paths`) into `data/` and `index/`. The steps, in order, each taking
 * its inputs and returning its outputs: take the lock and repair an interrupted run; scan the sources; load
 * the previous build; stop if nothing changed; parse new and changed files; read table transcriptions; write the
 * data into staging; build the indexes there; swap staging into place. A file that fails keeps its previous
 * chunks and is reported (or, with `strict`, thrown); a run in which nothing could be read changes nothing.
 */
export async function runIngest(options: IngestOptions): Promise<IngestResult> {
  const started = Date.now();
  assertRootFolder(path.resolve(options.root));
  const paths = projectPaths(options.root);
  const { root } = paths;
  const { config, onProgress } = options;
  makeStateFolder(root, paths.state);
  const lock = acquireIngestLock(root, paths.lock, `exam-copilot ingest${options.force ? ' --force' : ''}`);
  let staged: StagedData | null = null;
  try {
    const warnings: Warning[] = [...lock.warnings];
    repairInterruptedSwap(root);
    onProgress?.({ kind: 'stage', stage: 'scan' });
    const scanned = scanInputs({ root, paths, config, explicit: options.paths });
    warnings.push(...scanned.warnings);
    const previous = loadPrevious({ paths, config });
    const dictionary = dictionaryHash(root, config);
    const unchanged = options.force ? null : upToDateFiles({ sources: scanned.sources, previous, dictionaryHash: dictionary, paths });
    if (unchanged) return summarise(root, started, unchanged, true, null, warnings);
    const strict = options.strict === true;
    const parsing = parseSources({
      sources: scanned.sources,
      previous,
      reuse: !options.force,
      config,
      password: options.password ?? config.pdf.password,
      strict,
      onProgress,
      ocr: {
        mode: options.ocr ?? config.ingest?.ocr ?? 'auto',
        cacheDir: projectPaths(root).ocrCache,
        pageTimeoutMs: config.ingest?.ocrPageTimeoutMs ?? 120_000,
      },
    });
    // Settled below; a failure while the analyzer is built must not leave it unhandled.
    parsing.catch(() => undefined);
    // jieba's dictionary is loaded while the first PDF is parsed in its worker threads, where this thread would only
    // wait.
    const prepared = analyzerFromConfig(root, config, { wholeCorpus: true });
    warnings.push(...prepared.warnings);
    // Later commands' jieba lookup table (this build cuts with the whole dictionary), on another thread, started once
    // this one has nothing left to do but wait for the parse.
    const table = prepareDictionaryTable(paths.segmenterCache);
    const parsed = await parsing;
    const tables = readTableTranscriptions({ sources: scanned.sources, parsed, previous, config, strict });
    const built = [...parsed, ...tables];
    const files = built.map((b) => b.file);
    if (!built.some((b) => b.file.status !== 'failed')) {
      // Nothing could be read: an empty build would replace a good index with nothing.
      const what = existsSync(paths.ftsDb) ? 'the previous index is kept unchanged' : 'no index was built';
      warnings.push({ where: root, message: `nothing could be read (${files.length} of ${files.length} files failed); ${what}` });
      warnings.push(...(await table));
      return summarise(root, started, files, false, null, warnings);
    }
    onProgress?.({ kind: 'stage', stage: 'write' });
    staged = writeStagedData({ root, config, built, dictionaryHash: dictionary });
    publishRunEvent({ command: 'ingest', point: 'index' });
    const indexed = await buildStagedIndexes({ root, config, staged, liveIndex: paths.index, analyzer: prepared.analyzer, onProgress });
    warnings.push(...indexed.warnings, ...(await table));
    onProgress?.({ kind: 'stage', stage: 'swap' });
    syncStaging(paths.staging);
    markStagingComplete(root);
    swapIntoPlace(root, () => publishRunEvent({ command: 'ingest', point: 'swap' }));
    staged = null;
    return summarise(root, started, files, false, indexed.index, warnings);
  } catch (error) {
    // A full disk is the user's to fix, not a bug: say so on one line (the staging area is dropped below).
    if (isDiskFull(error)) {
      // The half-written staging area holds space the user needs back, whether or not it got as far as `staged`.
      rmSync(paths.staging, { recursive: true, force: true });
      throw diskFullError(root, existsSync(paths.ftsDb), error);
    }
    throw error;
  } finally {
    // An unfinished staging area is never swapped in; drop it so the next run starts clean.
    if (staged) rmSync(paths.staging, { recursive: true, force: true });
    lock.release();
  }
}

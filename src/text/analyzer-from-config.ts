import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_USER_DICT, type ExamCopilotConfig } from '../config/load-config.js';
import { projectPaths } from '../paths.js';
import type { Warning } from '../types.js';
import { createAnalyzer, readUserDictionary, type Analyzer } from './analyzer.js';
import { loadDictionaryTable } from './dictionary-cache.js';

/**
 * The analyzer for a configuration: jieba plus the packaged starter list of exam terms plus the configured
 * user dictionaries. A missing file is a warning, except the default `rawdoc/userdict.txt`, which is optional.
 * jieba's dictionary comes from the root's lookup-table cache (see `loadDictionaryTable`), which is built on the
 * first call in a root ingest has prepared; `wholeCorpus` (ingest) loads the whole dictionary at once instead and
 * leaves the table alone.
 * Lives next to the analyzer so that indexing, retrieval and answering all build it the same way without
 * importing each other.
 */
export function analyzerFromConfig(
  root: string,
  config: ExamCopilotConfig,
  options: { wholeCorpus?: boolean } = {},
): { analyzer: Analyzer; warnings: Warning[] } {
  const files = [projectPaths(root).starterDictionary, ...config.userDict.map((f) => path.resolve(root, f))];
  const { lines, missing } = readUserDictionary(files);
  const optional = path.resolve(root, DEFAULT_USER_DICT);
  const warnings = missing
    .filter((file) => file !== optional)
    .map((file) => ({
      where: path.relative(root, file) || file,
      message: 'user dictionary not found; exam terms may be cut into smaller words (create it or remove it from userDict)',
    }));
  // A whole corpus (ingest) meets most of the dictionary anyway: it loads it in full, and ingest has the table built
  // for later queries on another thread (`prepareDictionaryTable`).
  if (options.wholeCorpus) return { analyzer: createAnalyzer(lines), warnings };
  // Only where ingest has made the state folder: a command run on any other folder must not create files there.
  const paths = projectPaths(root);
  const dictionary = loadDictionaryTable(paths.segmenterCache, { write: existsSync(paths.state) });
  warnings.push(...dictionary.warnings);
  return { analyzer: createAnalyzer(lines, dictionary.table ? { table: dictionary.table } : {}), warnings };
}

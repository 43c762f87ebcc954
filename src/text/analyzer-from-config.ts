import path from 'node:path';
import { DEFAULT_USER_DICT, type ExamCopilotConfig } from '../config/load-config.js';
import { projectPaths } from '../paths.js';
import type { Warning } from '../types.js';
import { createAnalyzer, readUserDictionary, type Analyzer } from './analyzer.js';

/**
 * The analyzer for a configuration: jieba plus the packaged starter list of exam terms plus the configured
 * user dictionaries. A missing file is a warning, except the default `rawdoc/userdict.txt`, which is optional.
 * Lives next to the analyzer so that indexing, retrieval and answering all build it the same way without
 * importing each other.
 */
export function analyzerFromConfig(root: string, config: ExamCopilotConfig): { analyzer: Analyzer; warnings: Warning[] } {
  const files = [projectPaths(root).starterDictionary, ...config.userDict.map((f) => path.resolve(root, f))];
  const { lines, missing } = readUserDictionary(files);
  const optional = path.resolve(root, DEFAULT_USER_DICT);
  const warnings = missing
    .filter((file) => file !== optional)
    .map((file) => ({
      where: path.relative(root, file) || file,
      message: 'user dictionary not found; exam terms may be cut into smaller words (create it or remove it from userDict)',
    }));
  return { analyzer: createAnalyzer(lines), warnings };
}

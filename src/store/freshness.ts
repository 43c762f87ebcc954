import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { projectPaths } from '../paths.js';
import { readUserDictionary } from '../text/analyzer.js';
import type { Warning } from '../types.js';
import { openReadableRoot } from './atomic-swap.js';
import { configFingerprint, PARSER_VERSION, readManifest } from './manifest.js';
import { scanSources } from './scan-sources.js';

/** How far the built data is behind `rawdoc/`. */
export interface Freshness {
  /** One line per difference (`new: rawdoc/x.pdf`, `changed: …`, `removed: …`, `config changed`, `user dictionary changed`). */
  stale: string[];
  sources: number;
  chunks: number;
  /** What the scan noticed (links to files already found, links leaving the root). */
  warnings: Warning[];
}

/**
 * Hash of the dictionaries that shape segmentation (the packaged starter list and the configured user
 * dictionaries, as read). Stored in the manifest at ingest, so an edited `rawdoc/userdict.txt` is noticed.
 */
export function dictionaryHash(root: string, config: ExamCopilotConfig): string {
  const paths = projectPaths(root);
  const files = [paths.starterDictionary, ...config.userDict.map((f) => path.resolve(paths.root, f))];
  const { lines } = readUserDictionary(files);
  return createHash('sha256')
    .update([...new Set(lines)].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/**
 * Compares `rawdoc/`, the configuration and the dictionaries with `data/manifest.json` without parsing anything.
 * The one freshness check: `ingest` skips work only when it finds nothing stale, and `doctor` reports it.
 * Repairs an interrupted swap first, like every reader.
 */
export function checkFreshness(options: { root: string; config: ExamCopilotConfig }): Promise<Freshness> {
  const paths = openReadableRoot(options.root);
  const manifest = readManifest(paths.manifest);
  const stale: string[] = [];
  if (!manifest) return Promise.resolve({ stale: ['no data/manifest.json'], sources: 0, chunks: 0, warnings: [] });
  // The fingerprint holds the parser version too: name the cause the user can act on.
  if (manifest.parserVersion !== PARSER_VERSION) stale.push(`built by an earlier version of ingest (${manifest.parserVersion})`);
  else if (manifest.configFingerprint !== configFingerprint(options.config)) stale.push('chunking or book settings changed');
  if (manifest.dictionaryHash !== dictionaryHash(paths.root, options.config))
    stale.push('user dictionary changed (rawdoc/userdict.txt or userDict)');
  const exclude = new Set(options.config.userDict.map((f) => path.resolve(paths.root, f)));
  const { sources, warnings } = scanSources(paths.root, [{ path: paths.rawdoc, explicit: false }], exclude);
  for (const s of sources) {
    const m = manifest.sources.find((x) => x.source === s.source);
    if (!m) stale.push(`new: ${s.source}`);
    else if (m.sha256 !== s.sha256) stale.push(`changed: ${s.source}`);
    else if (m.status !== 'ok') stale.push(`failed last time: ${s.source}`);
  }
  for (const m of manifest.sources) if (!sources.some((s) => s.source === m.source)) stale.push(`removed: ${m.source}`);
  return Promise.resolve({ stale, sources: manifest.sources.length, chunks: manifest.sources.reduce((n, s) => n + s.chunks, 0), warnings });
}

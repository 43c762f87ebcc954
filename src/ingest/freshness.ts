import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { projectPaths } from '../paths.js';
import { configFingerprint, readManifest } from './manifest.js';
import { scanSources } from './scan-sources.js';

/** How far the built data is behind `rawdoc/`. */
export interface Freshness {
  /** One line per difference (`new: rawdoc/x.pdf`, `changed: …`, `removed: …`, `config changed`). */
  stale: string[];
  sources: number;
  chunks: number;
}

/** Compares `rawdoc/` with `data/manifest.json` without parsing anything (used by `doctor`). */
export function checkFreshness(options: { root: string; config: ExamCopilotConfig }): Promise<Freshness> {
  const paths = projectPaths(options.root);
  const manifest = readManifest(paths.manifest);
  const stale: string[] = [];
  if (!manifest) return Promise.resolve({ stale: ['no data/manifest.json'], sources: 0, chunks: 0 });
  if (manifest.configFingerprint !== configFingerprint(options.config)) stale.push('chunking or book settings changed');
  const exclude = new Set(options.config.userDict.map((f) => path.resolve(paths.root, f)));
  const sources = scanSources(paths.root, [{ path: paths.rawdoc, explicit: false }], exclude);
  for (const s of sources) {
    const m = manifest.sources.find((x) => x.source === s.source);
    if (!m) stale.push(`new: ${s.source}`);
    else if (m.sha256 !== s.sha256) stale.push(`changed: ${s.source}`);
  }
  for (const m of manifest.sources) if (!sources.some((s) => s.source === m.source)) stale.push(`removed: ${m.source}`);
  return Promise.resolve({ stale, sources: manifest.sources.length, chunks: manifest.sources.reduce((n, s) => n + s.chunks, 0) });
}

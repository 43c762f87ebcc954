import { existsSync, readFileSync } from 'node:fs';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { jsonLines } from '../json-lines.js';
import type { ProjectPaths } from '../paths.js';
import { configFingerprint, readManifest, type Manifest } from '../store/manifest.js';
import type { SourceFile } from '../store/scan-sources.js';
import type { Chunk, OutlineEntry } from '../types.js';
import type { IngestFileResult } from './ingest-types.js';
import { fileResult } from './source-results.js';

/** The last good build, as far as it can be reused (same chunking settings and parser), indexed by source. */
export interface PreviousBuild {
  manifest: Manifest;
  /** Chunks and outline entries of each source, in build order: looking one source up does not scan every chunk. */
  bySource: Map<string, { chunks: Chunk[]; outline: OutlineEntry[] }>;
}

/** The previous build's chunks and outline of one source (empty when it had none). */
export function previousOf(previous: PreviousBuild, source: string): { chunks: Chunk[]; outline: OutlineEntry[] } {
  return previous.bySource.get(source) ?? { chunks: [], outline: [] };
}

/** Step: loads the previous build when its chunks are still valid under the current chunking settings. */
export function loadPrevious(input: { paths: ProjectPaths; config: ExamCopilotConfig }): PreviousBuild | null {
  const manifest = readManifest(input.paths.manifest);
  if (!manifest || manifest.configFingerprint !== configFingerprint(input.config)) return null;
  try {
    const outline = existsSync(input.paths.outline) ? (JSON.parse(readFileSync(input.paths.outline, 'utf8')) as OutlineEntry[]) : [];
    const bySource = new Map<string, { chunks: Chunk[]; outline: OutlineEntry[] }>();
    const entry = (source: string): { chunks: Chunk[]; outline: OutlineEntry[] } => {
      let e = bySource.get(source);
      if (!e) bySource.set(source, (e = { chunks: [], outline: [] }));
      return e;
    };
    if (existsSync(input.paths.chunks)) for (const c of jsonLines<Chunk>(input.paths.chunks)) entry(c.source).chunks.push(c);
    for (const o of outline) entry(o.source).outline.push(o);
    return { manifest, bySource };
  } catch {
    return null;
  }
}

/**
 * Step: the per-file results of a run with nothing to do (every source unchanged and read fine last time, none
 * removed, same dictionaries, index present), or null when there is work.
 */
export function upToDateFiles(input: {
  sources: readonly SourceFile[];
  previous: PreviousBuild | null;
  dictionaryHash: string;
  paths: ProjectPaths;
}): IngestFileResult[] | null {
  const manifest = input.previous?.manifest;
  if (!manifest || manifest.dictionaryHash !== input.dictionaryHash) return null;
  const usable = input.sources.filter((s) => !s.skipped);
  const same =
    usable.length === manifest.sources.length &&
    usable.every((s) => {
      const m = manifest.sources.find((x) => x.source === s.source);
      return m !== undefined && m.status === 'ok' && !s.error && m.sha256 === s.sha256 && m.size === s.size;
    });
  if (!same || !existsSync(input.paths.chunks) || !existsSync(input.paths.ftsDb)) return null;
  return manifest.sources.map((m) => fileResult(m, m, { status: 'unchanged', chunks: m.chunks, elapsedMs: 0 }));
}

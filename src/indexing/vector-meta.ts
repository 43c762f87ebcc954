import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError } from '../errors.js';

/** `index/faiss/meta.json`: what the vector index was built with. */
export interface VectorMeta {
  embedderId: string;
  embedderKind: ExamCopilotConfig['embedder']['kind'];
  /** Model name (transformers/openai) or `lsa`; compared with the configuration before anything is loaded. */
  embedderModel: string;
  /** LSA: the configured dimension (the fitted one may be smaller on a small corpus). */
  requestedDimension: number;
  dimension: number;
  normalized: true;
  count: number;
  indexKind: 'flat' | 'hnsw';
  backend: 'faiss' | 'js';
  builtAt: string;
  /**
   * Vector row r is the keyword index's row r + 1: both were written in the chunks' order, so a reader maps rows
   * without ids.json (1.3 MB of JSON on a 66k-chunk library, 12 ms of a one-shot ask to parse). Absent in an index
   * written before this was recorded: ids.json maps them.
   */
  keywordRows?: true;
}

/** The files of `index/faiss/`; `quantized` (a large flat index's 8-bit codes) is written only from `vector.quantizeAbove` vectors. */
export const VECTOR_FILES = { index: 'index.faiss', ids: 'ids.json', meta: 'meta.json', quantized: 'index-sq8.faiss' } as const;

/** The model name a configuration asks for, as recorded in meta.json. */
export function configuredModel(config: ExamCopilotConfig): string {
  const e = config.embedder;
  if (e.kind === 'lsa') return 'lsa';
  if (e.kind === 'openai') return e.endpoint?.model ?? e.model ?? '';
  return e.model ?? (e.modelPath ? path.basename(path.resolve(e.modelPath)) : '');
}

/** A short human name for an embedder configuration (`lsa (256 dims)`, `transformers Xenova/bge-small-zh-v1.5`). */
export function describeEmbedder(kind: string, model: string, dimension: number): string {
  return kind === 'lsa' ? `lsa (${dimension} dims)` : `${kind} ${model}`;
}

export function writeVectorMeta(faissDir: string, meta: VectorMeta, ids: readonly string[]): void {
  writeFileSync(path.join(faissDir, VECTOR_FILES.meta), JSON.stringify(meta, null, 2) + '\n');
  writeFileSync(path.join(faissDir, VECTOR_FILES.ids), JSON.stringify(ids));
}

/**
 * Reads meta.json, and ids.json unless the rows follow the keyword index's (`keywordRows`: then `ids` is null);
 * NotReadyError when missing or inconsistent.
 */
export function readVectorMeta(faissDir: string): { meta: VectorMeta; ids: string[] | null } {
  let meta: VectorMeta;
  let ids: string[];
  try {
    meta = JSON.parse(readFileSync(path.join(faissDir, VECTOR_FILES.meta), 'utf8')) as VectorMeta;
    if (meta.keywordRows === true && Number.isInteger(meta.count)) return { meta, ids: null };
    ids = JSON.parse(readFileSync(path.join(faissDir, VECTOR_FILES.ids), 'utf8')) as string[];
  } catch {
    throw new NotReadyError(`no vector index at ${faissDir}; run \`exam-copilot ingest\``);
  }
  if (!Array.isArray(ids) || ids.length !== meta.count) {
    throw new NotReadyError(
      `${faissDir}: ids.json has ${Array.isArray(ids) ? ids.length : '?'} ids but meta.json says ${meta.count}; run \`exam-copilot ingest --force\``,
    );
  }
  return { meta, ids };
}

/** The vector count meta.json records, without reading ids.json; null when it cannot be read. */
export function readVectorCount(faissDir: string): number | null {
  try {
    const meta: unknown = JSON.parse(readFileSync(path.join(faissDir, VECTOR_FILES.meta), 'utf8'));
    const count = typeof meta === 'object' && meta !== null && 'count' in meta ? meta.count : null;
    return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : null;
  } catch {
    return null;
  }
}

/**
 * Fails with one actionable line when the configured embedder is not the one the index was built with
 * (vectors from different models live in unrelated spaces, so the search would silently return noise).
 * Checked before loading the embedder; the loaded embedder's id is compared afterwards by `assertSameEmbedderId`.
 */
export function assertEmbedderMatches(meta: VectorMeta, config: ExamCopilotConfig): void {
  const kind = config.embedder.kind;
  const model = configuredModel(config);
  const same =
    meta.embedderKind === kind && meta.embedderModel === model && (kind !== 'lsa' || meta.requestedDimension === config.embedder.dimension);
  if (!same) {
    throw new NotReadyError(
      `the index was built with ${describeEmbedder(meta.embedderKind, meta.embedderModel, meta.requestedDimension)}; you configured ${describeEmbedder(kind, model, config.embedder.dimension)}; run \`exam-copilot ingest --force\``,
    );
  }
}

export function assertSameEmbedderId(meta: VectorMeta, embedderId: string): void {
  if (meta.embedderId !== embedderId) {
    throw new NotReadyError(
      `the index was built with embedder ${meta.embedderId}; the configured one is ${embedderId}; run \`exam-copilot ingest --force\``,
    );
  }
}

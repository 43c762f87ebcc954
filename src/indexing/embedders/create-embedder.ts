import path from 'node:path';
import type { ExamCopilotConfig } from '../../config/load-config.js';
import { NotReadyError } from '../../errors.js';
import { projectPaths } from '../../paths.js';
import type { Analyzer } from '../../text/analyzer.js';
import type { Embedder } from '../../types.js';
import type { LsaFitOptions } from './lsa-fit.js';
import { loadLsa, saveLsa, savedLsaCorpusHash } from './lsa-store.js';

/** Where a fitted embedder keeps its state inside an index folder. */
export function embedderStateDir(indexDir: string): string {
  return path.join(indexDir, 'faiss', 'embedder');
}

export interface CreateEmbedderOptions {
  root: string;
  /** The `index/` folder (staging at ingest, live at query time). */
  indexDir: string;
  analyzer: Analyzer;
  /**
   * Ingest passes the corpus: LSA is fitted on it and saved under `indexDir`. At query time this is
   * absent and LSA loads the fitted state instead.
   */
  textsForFit?: readonly string[];
  /** The index being replaced; an LSA fit of the identical corpus is reused from it rather than refitted. */
  previousIndexDir?: string;
  /** LSA fitting progress (documents read), for ingest's progress line. */
  onFitProgress?: (done: number, total: number) => void;
}

export interface CreatedEmbedder {
  embedder: Embedder;
  /** True when LSA reused the previous fit. */
  reused: boolean;
  /**
   * Embeddings of `textsForFit`, in order, when fitting produced them anyway (a fresh LSA fit): the caller
   * need not embed the corpus again.
   */
  corpusVectors?: Float32Array[];
}

/**
 * Builds the configured embedder (`config.embedder.kind`). Model-backed embedders are imported lazily
 * so commands that never embed do not load onnxruntime or the HTTP client.
 */
export async function createEmbedder(config: ExamCopilotConfig, options: CreateEmbedderOptions): Promise<CreatedEmbedder> {
  const e = config.embedder;
  switch (e.kind) {
    case 'lsa': {
      const dir = embedderStateDir(options.indexDir);
      if (!options.textsForFit) return { embedder: loadLsa(dir, options.analyzer), reused: false };
      // The fit (SVD, dense kernels) is ingest's: a query loads the saved state only, without importing it.
      const { fitLsa, lsaCorpusHash } = await import('./lsa-fit.js');
      const fitOptions: LsaFitOptions = { dimension: e.dimension };
      if (options.previousIndexDir) {
        const previousDir = embedderStateDir(options.previousIndexDir);
        if (savedLsaCorpusHash(previousDir) === lsaCorpusHash(options.analyzer, options.textsForFit, fitOptions)) {
          try {
            const model = loadLsa(previousDir, options.analyzer);
            saveLsa(model, dir);
            return { embedder: model, reused: true };
          } catch {
            // An unreadable previous fit is simply refitted.
          }
        }
      }
      const { model, vectors } = fitLsa(options.analyzer, options.textsForFit, fitOptions, options.onFitProgress);
      saveLsa(model, dir);
      return { embedder: model, reused: false, corpusVectors: vectors };
    }
    case 'transformers': {
      const { createTransformersEmbedder } = await import('./transformers-embedder.js');
      const modelPath = e.modelPath ? path.resolve(options.root, e.modelPath) : undefined;
      const embedder = await createTransformersEmbedder({
        model: e.model,
        modelPath,
        cacheDir: path.join(projectPaths(options.root).state, 'cache', 'models'),
        queryPrefix: e.queryPrefix,
        passagePrefix: e.passagePrefix,
      });
      return { embedder, reused: false };
    }
    case 'openai': {
      if (!e.endpoint) {
        throw new NotReadyError(
          'embedder.kind is "openai" but no endpoint: set embedder.endpoint (baseURL + model) or EXAM_COPILOT_EMBEDDING_BASE_URL / EXAM_COPILOT_EMBEDDING_MODEL',
        );
      }
      const { createOpenAiEmbedder } = await import('./openai-embedder.js');
      const embedder = await createOpenAiEmbedder({ ...e.endpoint, queryPrefix: e.queryPrefix, passagePrefix: e.passagePrefix });
      return { embedder, reused: false };
    }
  }
}

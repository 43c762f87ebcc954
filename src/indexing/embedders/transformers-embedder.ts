import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { NotReadyError } from '../../errors.js';
import type { Embedder } from '../../types.js';
import { l2normalize } from './vector-math.js';
import { importPackage } from '../../import-package.js';
import type * as Transformers from '@huggingface/transformers';

/** Settings for a local transformers.js sentence-embedding model. */
export interface TransformersEmbedderOptions {
  /** Hugging Face id (e.g. `Xenova/bge-small-zh-v1.5`); with `modelPath`, the folder name is used when unset. */
  model?: string | undefined;
  /** Local folder holding `config.json`, `tokenizer.json` and `onnx/model.onnx`; when set, nothing is downloaded. */
  modelPath?: string | undefined;
  /** Where downloaded models are cached (only used when no modelPath is configured). */
  cacheDir: string;
  queryPrefix?: string | undefined;
  passagePrefix?: string | undefined;
  /** Texts per forward pass. */
  batchSize?: number;
}

/** Query/passage prefixes the model families were trained with; config values win. */
export function knownPrefixes(model: string): { query: string; passage: string; pooling: 'mean' | 'cls' } {
  const m = model.toLowerCase();
  if (m.includes('e5')) return { query: 'query: ', passage: 'passage: ', pooling: 'mean' };
  // BGE models are trained with CLS pooling and a retrieval instruction on queries only.
  if (m.includes('bge') && m.includes('zh')) return { query: '为这个句子生成表示以用于检索相关文章：', passage: '', pooling: 'cls' };
  if (m.includes('bge')) return { query: 'Represent this sentence for searching relevant passages: ', passage: '', pooling: 'cls' };
  return { query: '', passage: '', pooling: 'mean' };
}

type Extractor = (
  texts: string[],
  options: { pooling: 'mean' | 'cls'; normalize: boolean },
) => Promise<{ data: ArrayLike<number>; dims: number[] }>;

/**
 * Loads the model through transformers.js's real `pipeline('feature-extraction', …)`. The library is
 * imported lazily so `--help` and keyword-only runs never load onnxruntime. transformers.js keeps its
 * settings in a module-level `env`; they are set right before the pipeline is created.
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  const local = options.modelPath ? path.resolve(options.modelPath) : undefined;
  const model = options.model ?? (local ? path.basename(local) : undefined);
  if (!model)
    throw new NotReadyError(
      'embedder.kind is "transformers" but neither embedder.model nor embedder.modelPath is set; set one in exam-copilot.config.json',
    );
  if (local && !existsSync(path.join(local, 'config.json'))) {
    throw new NotReadyError(
      `embedder.modelPath ${local} has no config.json; point it at a folder with config.json, tokenizer.json and onnx/model.onnx`,
    );
  }
  const { env, pipeline } = await importPackage<typeof Transformers>('@huggingface/transformers');
  env.allowLocalModels = true;
  // A configured local folder means "never download"; otherwise the hub is allowed and files are cached.
  env.allowRemoteModels = local === undefined;
  if (local) env.localModelPath = path.dirname(local) + path.sep;
  env.cacheDir = options.cacheDir;
  const modelId = local ? path.basename(local) : model;
  let extractor: Extractor;
  try {
    const pipe = await pipeline('feature-extraction', modelId, { local_files_only: local !== undefined, dtype: 'fp32' });
    extractor = pipe;
  } catch (error) {
    const where = local ?? `${model} (cache ${options.cacheDir})`;
    throw new NotReadyError(
      `cannot load the embedding model ${where}: ${(error as Error).message.split('\n')[0]}; download it while online or set embedder.modelPath`,
    );
  }
  const known = knownPrefixes(model);
  const queryPrefix = options.queryPrefix ?? known.query;
  const passagePrefix = options.passagePrefix ?? known.passage;
  const batchSize = options.batchSize ?? 16;
  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize);
      const tensor = await extractor(batch, { pooling: known.pooling, normalize: true });
      const dim = tensor.dims[tensor.dims.length - 1] ?? 0;
      for (let r = 0; r < batch.length; r++)
        out.push(l2normalize(Float32Array.from(Array.prototype.slice.call(tensor.data, r * dim, (r + 1) * dim) as number[])));
    }
    return out;
  };
  const [probe] = await run([`${passagePrefix}probe`]);
  const dimension = probe?.length ?? 0;
  const prefixHash = createHash('sha256').update(`${queryPrefix}\u0000${passagePrefix}\u0000${known.pooling}`).digest('hex').slice(0, 8);
  return {
    id: `transformers:${model}:d${dimension}:${prefixHash}`,
    dimension,
    embedDocuments: (texts) => run(texts.map((t) => passagePrefix + t)),
    embedQuery: async (text) => (await run([queryPrefix + text]))[0]!,
  };
}

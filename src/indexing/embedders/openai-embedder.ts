import OpenAI from 'openai';
import { NotReadyError } from '../../errors.js';
import type { Embedder } from '../../types.js';
import { l2normalize } from './vector-math.js';

/** An OpenAI-compatible `/embeddings` endpoint (OpenAI, DeepSeek, GLM, Qwen, Ollama, vLLM …). */
export interface OpenAiEmbedderOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  queryPrefix?: string | undefined;
  passagePrefix?: string | undefined;
  /** Inputs per request; most providers cap a request at a few hundred inputs. */
  batchSize?: number;
  timeoutMs?: number;
  maxRetries?: number;
}

/**
 * Embeds through the `openai` client's `embeddings.create`, in batches, asking for floats (the client
 * otherwise requests base64, which some compatible servers do not implement). One probe request at
 * creation learns the dimension and fails early, with one line, when the endpoint is unreachable.
 */
export async function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Promise<Embedder> {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    timeout: options.timeoutMs ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
  });
  const batchSize = options.batchSize ?? 64;
  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batchSize) {
      const batch = texts.slice(i, i + batchSize);
      let response: OpenAI.Embeddings.CreateEmbeddingResponse;
      try {
        response = await client.embeddings.create({ model: options.model, input: batch, encoding_format: 'float' });
      } catch (error) {
        throw new NotReadyError(
          `embedding endpoint ${options.baseURL} (model ${options.model}) failed: ${(error as Error).message.split('\n')[0]}; check embedder.endpoint or use the lsa embedder`,
        );
      }
      const rows = [...response.data].sort((a, b) => a.index - b.index);
      if (rows.length !== batch.length)
        throw new NotReadyError(`embedding endpoint ${options.baseURL} returned ${rows.length} vectors for ${batch.length} inputs`);
      for (const row of rows) out.push(l2normalize(Float32Array.from(row.embedding)));
    }
    return out;
  };
  const [probe] = await run(['probe']);
  const dimension = probe?.length ?? 0;
  const queryPrefix = options.queryPrefix ?? '';
  const passagePrefix = options.passagePrefix ?? '';
  return {
    id: `openai:${options.model}:d${dimension}`,
    dimension,
    embedDocuments: (texts) => run(texts.map((t) => passagePrefix + t)),
    embedQuery: async (text) => (await run([queryPrefix + text]))[0]!,
  };
}

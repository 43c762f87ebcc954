import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { projectPaths } from '../paths.js';
import type { Warning } from '../types.js';

/** Connection settings for an OpenAI-compatible endpoint (chat or embeddings). */
export interface EndpointConfig {
  baseURL: string;
  /** Never printed; `describeEndpoint` redacts it. */
  apiKey: string;
  model: string;
}

/** Everything the commands read from configuration; built once by `loadConfig` and passed down. */
export interface ExamCopilotConfig {
  /** File name (e.g. `证券投资基金_上册.pdf`) to book name overrides. */
  books: Record<string, string>;
  chunking: { minChars: number; maxChars: number; overlap: number };
  pdf: { pageTimeoutMs: number; fileTimeoutMs: number; password?: string | undefined };
  embedder: {
    kind: 'lsa' | 'transformers' | 'openai';
    /** LSA: number of latent dimensions. */
    dimension: number;
    /** transformers: Hugging Face model id (e.g. `Xenova/bge-small-zh-v1.5`); openai: embedding model name. */
    model?: string | undefined;
    /** transformers: local folder holding the model (`config.json`, `tokenizer.json`, `onnx/model.onnx`). */
    modelPath?: string | undefined;
    /** Prefixes some models expect (e5: `query: ` / `passage: `; bge-zh: an instruction on queries). */
    queryPrefix?: string | undefined;
    passagePrefix?: string | undefined;
    /** openai: endpoint for `/embeddings`; defaults to the LLM endpoint. */
    endpoint?: EndpointConfig | undefined;
  };
  vector: { index: 'flat' | 'hnsw'; backend: 'auto' | 'faiss' | 'js'; hnswM: number };
  retrieval: { rrfK: number; weights: { keyword: number; vector: number }; depth: number; neighbours: number };
  /** User dictionary files for jieba, relative to the root or absolute. */
  userDict: string[];
  /** The LLM endpoint, or null when none is configured (offline answerer). */
  llm: (EndpointConfig & { timeoutMs: number; maxRetries: number; concurrency: number }) | null;
}

export interface LoadedConfig {
  config: ExamCopilotConfig;
  warnings: Warning[];
}

const endpointFile = z.object({ baseURL: z.string().url().optional(), apiKey: z.string().optional(), model: z.string().optional() }).strict();

const fileSchema = z
  .object({
    $schema: z.string().optional(),
    books: z.record(z.string(), z.string()).optional(),
    chunking: z.object({ minChars: z.number().int().positive(), maxChars: z.number().int().positive(), overlap: z.number().int().nonnegative() }).partial().strict().optional(),
    pdf: z.object({ pageTimeoutMs: z.number().int().positive(), fileTimeoutMs: z.number().int().positive(), password: z.string() }).partial().strict().optional(),
    embedder: z
      .object({
        kind: z.enum(['lsa', 'transformers', 'openai']),
        dimension: z.number().int().positive().max(4096),
        model: z.string(),
        modelPath: z.string(),
        queryPrefix: z.string(),
        passagePrefix: z.string(),
        endpoint: endpointFile,
      })
      .partial()
      .strict()
      .optional(),
    vector: z.object({ index: z.enum(['flat', 'hnsw']), backend: z.enum(['auto', 'faiss', 'js']), hnswM: z.number().int().min(4).max(128) }).partial().strict().optional(),
    retrieval: z
      .object({
        rrfK: z.number().positive(),
        weights: z.object({ keyword: z.number().nonnegative(), vector: z.number().nonnegative() }).partial().strict(),
        depth: z.number().int().positive().max(1000),
        neighbours: z.number().int().nonnegative().max(5),
      })
      .partial()
      .strict()
      .optional(),
    userDict: z.union([z.string(), z.array(z.string())]).optional(),
    llm: endpointFile.extend({ timeoutMs: z.number().int().positive(), maxRetries: z.number().int().nonnegative().max(10), concurrency: z.number().int().positive().max(64) }).partial().strict().optional(),
  })
  .strict();

type FileConfig = z.infer<typeof fileSchema>;

/** Default user dictionary shipped in rawdoc/ (exam terms jieba would otherwise split). */
export const DEFAULT_USER_DICT = 'rawdoc/userdict.txt';

/**
 * Reads configuration from, in increasing precedence: defaults, `exam-copilot.config.json` in the root,
 * `.env` in the root, and the process environment. Problems that still leave a usable value become
 * warnings; a malformed config file is an error naming the file and the field.
 */
export function loadConfig(options: { root: string; env?: NodeJS.ProcessEnv }): LoadedConfig {
  const paths = projectPaths(options.root);
  const warnings: Warning[] = [];
  let file: FileConfig = {};
  if (existsSync(paths.configFile)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(paths.configFile, 'utf8'));
    } catch (error) {
      throw new UserError(`${paths.configFile}: not valid JSON (${(error as Error).message}); fix the file or remove it`);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      throw new UserError(`${paths.configFile}: ${where}: ${issue?.message ?? 'invalid'}; see the README's Configuration section`);
    }
    file = parsed.data;
  }

  let dotenv: Record<string, string> = {};
  if (existsSync(paths.envFile)) {
    try {
      dotenv = parseEnv(readFileSync(paths.envFile, 'utf8')) as Record<string, string>;
    } catch (error) {
      warnings.push({ where: paths.envFile, message: `ignored: ${(error as Error).message}` });
    }
  }
  // The real environment wins over .env, as dotenv does.
  const env: Record<string, string | undefined> = { ...dotenv, ...(options.env ?? process.env) };
  const pick = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value.trim() !== '') return value.trim();
    }
    return undefined;
  };
  const num = (name: string, fallback: number): number => {
    const value = pick(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) {
      warnings.push({ where: `env ${name}`, message: `ignored non-numeric value ${JSON.stringify(value)}` });
      return fallback;
    }
    return n;
  };

  const llmBaseURL = pick('EXAM_COPILOT_LLM_BASE_URL', 'OPENAI_BASE_URL', 'OPENAI_API_BASE') ?? file.llm?.baseURL;
  const llmApiKey = pick('EXAM_COPILOT_LLM_API_KEY', 'OPENAI_API_KEY') ?? file.llm?.apiKey;
  const llmModel = pick('EXAM_COPILOT_LLM_MODEL', 'OPENAI_MODEL') ?? file.llm?.model;
  let llm: ExamCopilotConfig['llm'] = null;
  if (llmBaseURL || llmApiKey || llmModel) {
    if (!llmModel) {
      warnings.push({ where: 'llm', message: 'an LLM endpoint or key is set but no model (EXAM_COPILOT_LLM_MODEL / OPENAI_MODEL); using the offline answerer' });
    } else {
      llm = {
        baseURL: llmBaseURL ?? 'https://api.openai.com/v1',
        // Local servers (Ollama, vLLM) accept any key; the openai client insists on one.
        apiKey: llmApiKey ?? 'not-needed',
        model: llmModel,
        timeoutMs: num('EXAM_COPILOT_LLM_TIMEOUT_MS', file.llm?.timeoutMs ?? 60_000),
        maxRetries: num('EXAM_COPILOT_LLM_MAX_RETRIES', file.llm?.maxRetries ?? 3),
        concurrency: num('EXAM_COPILOT_LLM_CONCURRENCY', file.llm?.concurrency ?? 4),
      };
    }
  }

  const embedderKind = pick('EXAM_COPILOT_EMBEDDER') ?? file.embedder?.kind ?? 'lsa';
  if (embedderKind !== 'lsa' && embedderKind !== 'transformers' && embedderKind !== 'openai') {
    throw new UserError(`EXAM_COPILOT_EMBEDDER=${embedderKind}: unknown embedder; use lsa, transformers or openai`);
  }
  const embEndpointFile = file.embedder?.endpoint;
  const embBaseURL = pick('EXAM_COPILOT_EMBEDDING_BASE_URL') ?? embEndpointFile?.baseURL ?? llm?.baseURL;
  const embModel = pick('EXAM_COPILOT_EMBEDDING_MODEL') ?? embEndpointFile?.model ?? file.embedder?.model;
  const embApiKey = pick('EXAM_COPILOT_EMBEDDING_API_KEY') ?? embEndpointFile?.apiKey ?? llm?.apiKey ?? 'not-needed';

  const userDictRaw = file.userDict === undefined ? [DEFAULT_USER_DICT] : Array.isArray(file.userDict) ? file.userDict : [file.userDict];
  const chunking = { minChars: 300, maxChars: 800, overlap: 100, ...file.chunking };
  if (chunking.minChars > chunking.maxChars || chunking.overlap >= chunking.minChars) {
    throw new UserError(`${paths.configFile}: chunking needs overlap < minChars <= maxChars (got ${chunking.overlap}, ${chunking.minChars}, ${chunking.maxChars})`);
  }

  const config: ExamCopilotConfig = {
    books: file.books ?? {},
    chunking,
    pdf: {
      pageTimeoutMs: file.pdf?.pageTimeoutMs ?? 15_000,
      fileTimeoutMs: file.pdf?.fileTimeoutMs ?? 300_000,
      password: pick('EXAM_COPILOT_PDF_PASSWORD') ?? file.pdf?.password,
    },
    embedder: {
      kind: embedderKind,
      dimension: file.embedder?.dimension ?? 256,
      model: pick('EXAM_COPILOT_EMBEDDER_MODEL') ?? file.embedder?.model,
      modelPath: pick('EXAM_COPILOT_EMBEDDER_PATH') ?? file.embedder?.modelPath,
      queryPrefix: file.embedder?.queryPrefix,
      passagePrefix: file.embedder?.passagePrefix,
      endpoint: embBaseURL && embModel ? { baseURL: embBaseURL, apiKey: embApiKey, model: embModel } : undefined,
    },
    vector: {
      index: file.vector?.index ?? 'flat',
      backend: (pick('EXAM_COPILOT_VECTOR_BACKEND') as 'auto' | 'faiss' | 'js' | undefined) ?? file.vector?.backend ?? 'auto',
      hnswM: file.vector?.hnswM ?? 32,
    },
    retrieval: {
      rrfK: file.retrieval?.rrfK ?? 2,
      weights: { keyword: 1, vector: 1, ...file.retrieval?.weights },
      depth: file.retrieval?.depth ?? 50,
      neighbours: file.retrieval?.neighbours ?? 0,
    },
    userDict: userDictRaw,
    llm,
  };
  if (!['auto', 'faiss', 'js'].includes(config.vector.backend)) {
    throw new UserError(`EXAM_COPILOT_VECTOR_BACKEND=${config.vector.backend}: use auto, faiss or js`);
  }
  return { config, warnings };
}

/** A printable description of an endpoint that never includes the key. */
export function describeEndpoint(endpoint: { baseURL: string; model: string; apiKey?: string }): string {
  const key = endpoint.apiKey && endpoint.apiKey !== 'not-needed' ? 'key set' : 'no key';
  return `${endpoint.model} @ ${endpoint.baseURL} (${key})`;
}

/** Removes any occurrence of the configured secrets from a message before it is shown or logged. */
export function redactSecrets(message: string, config: ExamCopilotConfig): string {
  let out = message;
  for (const secret of [config.llm?.apiKey, config.embedder.endpoint?.apiKey]) {
    if (secret && secret !== 'not-needed' && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

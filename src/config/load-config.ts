import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { UserError } from '../errors.js';
import { projectPaths } from '../paths.js';
import { checkConfigFile, ConfigIssue, type ConfigFile } from './config-file-schema.js';
import type { Warning } from '../types.js';
import { endpointSecrets, redactText, redactUrl } from './redact.js';

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
  chunking: { minChars: number; maxChars: number; overlap: number; articleUnits: boolean };
  pdf: { pageTimeoutMs: number; fileTimeoutMs: number; password?: string | undefined };
  /**
   * OCR of scanned pages at ingest: `auto` OCRs pages without a usable text layer when the OCR packages are
   * installed, `always` OCRs every page, `never` none. `ocrPageTimeoutMs` bounds the OCR of one page.
   * Optional so configurations built by hand (tests) need not spell it out; `loadConfig` always fills it.
   */
  ingest?: { ocr: 'auto' | 'always' | 'never'; ocrPageTimeoutMs: number };
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
  vector: {
    index: 'flat' | 'hnsw';
    backend: 'auto' | 'faiss' | 'js';
    hnswM: number;
    /** Vectors from which ingest writes a flat index's 8-bit codes, which searches then scan (`QUANTIZE_ABOVE`). */
    quantizeAbove: number;
  };
  retrieval: {
    rrfK: number;
    weights: { keyword: number; vector: number };
    depth: number;
    /** Keyword candidates the hybrid fuses (its top ranks); the vector run gives `depth`. */
    keywordDepth: number;
    /** Weight of the phrase re-scoring of the hybrid's fused head (`retrieve/phrase-rescorer.ts`; 0 turns it off). */
    phraseWeight: number;
    neighbours: number;
    /** Chunks from which a hybrid search ranks its keyword query on a worker thread while the vector scan runs. */
    parallelAbove: number;
  };
  /** User dictionary files for jieba, relative to the root or absolute. */
  userDict: string[];
  /**
   * Offline answerer: abstain below this calibrated confidence (undefined: the answerer's fitted default).
   * `agent`: answer through the agent (`ask --agent`) by default when an LLM is configured.
   */
  answer: { abstainBelow?: number | undefined; agent: boolean };
  /** The LLM endpoint, or null when none is configured (offline answerer). */
  llm: (EndpointConfig & LlmLimits) | null;
  /** The exam the prompts name (`exam.name`, default 基金从业资格). */
  exam: { name: string };
}

/** Time, retry and cache bounds of the LLM client. */
export interface LlmLimits {
  /** One HTTP attempt (connect, headers and body); default half of `deadlineMs`. */
  timeoutMs: number;
  /** Everything the LLM does for one question, retries and backoff included (default 30 s). */
  deadlineMs: number;
  maxRetries: number;
  concurrency: number;
  /** Bounds of the response cache; the oldest entries go first. */
  cacheMaxEntries: number;
  cacheMaxBytes: number;
  /** How the agent calls tools: the API's `tools`, a text protocol, or native until the endpoint rejects tools. */
  tools: 'native' | 'simulated' | 'auto';
}

export interface LoadedConfig {
  config: ExamCopilotConfig;
  warnings: Warning[];
}

/** Default user dictionary shipped in rawdoc/ (exam terms jieba would otherwise split). */
export const DEFAULT_USER_DICT = 'rawdoc/userdict.txt';

/** Reads a value from the merged environment (`.env` under the process environment); blank counts as unset. */
type EnvLookup = (...names: string[]) => string | undefined;

/** The LLM response cache's bounds when `llm.cacheMaxEntries` / `llm.cacheMaxBytes` are not set. */
export const LLM_CACHE_DEFAULTS = { maxEntries: 10_000, maxBytes: 64 * 1024 * 1024 } as const;

/** Time limit for the OCR of one page when `ingest.ocrPageTimeoutMs` is not set: a full book page takes seconds. */
export const OCR_PAGE_TIMEOUT_DEFAULT_MS = 120_000;

/**
 * Reads configuration from, in increasing precedence: defaults, `exam-copilot.config.json` in the root,
 * `.env` in the root, and the process environment. Problems that still leave a usable value become
 * warnings; a malformed config file is an error naming the file and the field.
 */
export function loadConfig(options: { root: string; env?: NodeJS.ProcessEnv }): LoadedConfig {
  const paths = projectPaths(options.root);
  const warnings: Warning[] = [];
  const file = readConfigFile(paths.configFile);
  const pick = environmentLookup(paths.envFile, options.env ?? process.env, warnings);
  const llm = resolveLlm(file, pick, warnings);
  const config: ExamCopilotConfig = {
    books: file.books ?? {},
    chunking: resolveChunking(file, paths.configFile),
    pdf: {
      pageTimeoutMs: file.pdf?.pageTimeoutMs ?? 15_000,
      fileTimeoutMs: file.pdf?.fileTimeoutMs ?? 300_000,
      password: pick('EXAM_COPILOT_PDF_PASSWORD') ?? file.pdf?.password,
    },
    ingest: { ocr: file.ingest?.ocr ?? 'auto', ocrPageTimeoutMs: file.ingest?.ocrPageTimeoutMs ?? OCR_PAGE_TIMEOUT_DEFAULT_MS },
    embedder: resolveEmbedder(file, pick, llm),
    vector: resolveVector(file, pick),
    retrieval: {
      rrfK: file.retrieval?.rrfK ?? 2,
      weights: { keyword: 3, vector: 1, ...file.retrieval?.weights },
      depth: file.retrieval?.depth ?? 50,
      keywordDepth: file.retrieval?.keywordDepth ?? 10,
      phraseWeight: file.retrieval?.phraseWeight ?? 0.5,
      neighbours: file.retrieval?.neighbours ?? 0,
      parallelAbove: file.retrieval?.parallelAbove ?? PARALLEL_ABOVE,
    },
    userDict: file.userDict === undefined ? [DEFAULT_USER_DICT] : Array.isArray(file.userDict) ? file.userDict : [file.userDict],
    answer: {
      abstainBelow: file.answer?.abstainBelow,
      agent: file.answer?.agent ?? false,
    },
    llm,
    exam: { name: file.exam?.name ?? '基金从业资格' },
  };
  return { config, warnings };
}

/** Step 1: the config file, validated against the schema; `{}` when there is none. */
function readConfigFile(configFile: string): ConfigFile {
  if (!existsSync(configFile)) return {};
  let raw: unknown;
  try {
    // Windows editors (Notepad) save UTF-8 with a byte-order mark, which JSON.parse refuses as a character.
    raw = JSON.parse(readFileSync(configFile, 'utf8').replace(/^\uFEFF/u, ''));
  } catch (error) {
    throw new UserError(`${configFile}: not valid JSON (${(error as Error).message}); fix the file or remove it`);
  }
  try {
    return checkConfigFile(raw);
  } catch (error) {
    if (!(error instanceof ConfigIssue)) throw error;
    const where = error.path.length > 0 ? error.path.join('.') : '(top level)';
    throw new UserError(`${configFile}: ${where}: ${error.message}; see docs/configuration.md`);
  }
}

/** Step 2: `.env` under the real environment (the real environment wins, as dotenv does). */
function environmentLookup(envFile: string, processEnv: NodeJS.ProcessEnv, warnings: Warning[]): EnvLookup {
  let dotenv: Record<string, string> = {};
  if (existsSync(envFile)) {
    try {
      dotenv = parseEnv(readFileSync(envFile, 'utf8')) as Record<string, string>;
    } catch (error) {
      warnings.push({ where: envFile, message: `ignored: ${(error as Error).message}` });
    }
  }
  const env: Record<string, string | undefined> = { ...dotenv, ...processEnv };
  return (...names) => {
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value.trim() !== '') return value.trim();
    }
    return undefined;
  };
}

/**
 * A whole number from the environment, at least `min`; anything else is a warning and the fallback.
 * `min` is 0 for counts where zero means "none" (`EXAM_COPILOT_LLM_MAX_RETRIES=0`: fail on the first error).
 */
function envInteger(pick: EnvLookup, name: string, fallback: number, min: number, warnings: Warning[]): number {
  const value = pick(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    warnings.push({ where: `env ${name}`, message: `ignored ${JSON.stringify(value)}: needs a whole number ≥ ${min}; using ${fallback}` });
    return fallback;
  }
  return n;
}

/** Step 3: the LLM endpoint, or null (offline answerer) when no model is configured. */
function resolveLlm(file: ConfigFile, pick: EnvLookup, warnings: Warning[]): ExamCopilotConfig['llm'] {
  const baseURL = pick('EXAM_COPILOT_LLM_BASE_URL', 'OPENAI_BASE_URL', 'OPENAI_API_BASE') ?? file.llm?.baseURL;
  const apiKey = pick('EXAM_COPILOT_LLM_API_KEY', 'OPENAI_API_KEY') ?? file.llm?.apiKey;
  const model = pick('EXAM_COPILOT_LLM_MODEL', 'OPENAI_MODEL') ?? file.llm?.model;
  if (!baseURL && !apiKey && !model) return null;
  if (!model) {
    warnings.push({
      where: 'llm',
      message: 'an LLM endpoint or key is set but no model (EXAM_COPILOT_LLM_MODEL / OPENAI_MODEL); using the offline answerer',
    });
    return null;
  }
  // 30 s: rerank + answer on a hosted endpoint take a few seconds, so this leaves room for one retry, and an
  // interactive user is better served by the offline answer than by a longer wait.
  const deadlineMs = envInteger(pick, 'EXAM_COPILOT_LLM_DEADLINE_MS', file.llm?.deadlineMs ?? 30_000, 1, warnings);
  return {
    baseURL: baseURL ?? 'https://api.openai.com/v1',
    // Local servers (Ollama, vLLM) accept any key; the openai client insists on one.
    apiKey: apiKey ?? 'not-needed',
    model,
    timeoutMs: envInteger(pick, 'EXAM_COPILOT_LLM_TIMEOUT_MS', file.llm?.timeoutMs ?? Math.round(deadlineMs / 2), 1, warnings),
    deadlineMs,
    maxRetries: envInteger(pick, 'EXAM_COPILOT_LLM_MAX_RETRIES', file.llm?.maxRetries ?? 3, 0, warnings),
    concurrency: envInteger(pick, 'EXAM_COPILOT_LLM_CONCURRENCY', file.llm?.concurrency ?? 4, 1, warnings),
    cacheMaxEntries: file.llm?.cacheMaxEntries ?? LLM_CACHE_DEFAULTS.maxEntries,
    cacheMaxBytes: file.llm?.cacheMaxBytes ?? LLM_CACHE_DEFAULTS.maxBytes,
    tools: file.llm?.tools ?? 'auto',
  };
}

/** Step 4: the embedder; an `openai` embedder defaults to the LLM's endpoint and key. */
function resolveEmbedder(file: ConfigFile, pick: EnvLookup, llm: ExamCopilotConfig['llm']): ExamCopilotConfig['embedder'] {
  const kind = pick('EXAM_COPILOT_EMBEDDER') ?? file.embedder?.kind ?? 'lsa';
  if (kind !== 'lsa' && kind !== 'transformers' && kind !== 'openai') {
    throw new UserError(`EXAM_COPILOT_EMBEDDER=${kind}: unknown embedder; use lsa, transformers or openai`);
  }
  const endpointFile = file.embedder?.endpoint;
  const baseURL = pick('EXAM_COPILOT_EMBEDDING_BASE_URL') ?? endpointFile?.baseURL ?? llm?.baseURL;
  const model = pick('EXAM_COPILOT_EMBEDDING_MODEL') ?? endpointFile?.model ?? file.embedder?.model;
  const apiKey = pick('EXAM_COPILOT_EMBEDDING_API_KEY') ?? endpointFile?.apiKey ?? llm?.apiKey ?? 'not-needed';
  return {
    kind,
    dimension: file.embedder?.dimension ?? 256,
    model: pick('EXAM_COPILOT_EMBEDDER_MODEL') ?? file.embedder?.model,
    modelPath: pick('EXAM_COPILOT_EMBEDDER_PATH') ?? file.embedder?.modelPath,
    queryPrefix: file.embedder?.queryPrefix,
    passagePrefix: file.embedder?.passagePrefix,
    endpoint: baseURL && model ? { baseURL, apiKey, model } : undefined,
  };
}

/**
 * Chunks from which a hybrid search ranks its keyword query on a worker thread, concurrently with the vector scan
 * (`retrieval.parallelAbove`). The thread costs ~20 ms to start and a message each way per search; a flat vector scan
 * costs ~2 ms per 10,000 chunks of 256 dimensions, so below this size there is little to overlap.
 */
export const PARALLEL_ABOVE = 20_000;

/**
 * Vectors from which ingest writes a flat index's 8-bit codes next to it (`vector.quantizeAbove`), so a search scans a
 * quarter of the bytes and rescores its candidates exactly (`QuantizedVectorIndex`). Below this the exact scan of a
 * few megabytes costs about a millisecond, as little as the codes would; the law library's 66,634 vectors are 68 MB.
 */
export const QUANTIZE_ABOVE = 20_000;

/** Step 5: the vector backend and index kind. */
function resolveVector(file: ConfigFile, pick: EnvLookup): ExamCopilotConfig['vector'] {
  // EXAM_COPILOT_DISABLE_FAISS=1 forces the exact JS index (to compare backends, or where the native binding misbehaves).
  const disabled = pick('EXAM_COPILOT_DISABLE_FAISS') === '1';
  const backend = disabled ? 'js' : (pick('EXAM_COPILOT_VECTOR_BACKEND') ?? file.vector?.backend ?? 'auto');
  if (backend !== 'auto' && backend !== 'faiss' && backend !== 'js') {
    throw new UserError(`EXAM_COPILOT_VECTOR_BACKEND=${backend}: use auto, faiss or js`);
  }
  return {
    index: file.vector?.index ?? 'flat',
    backend,
    hnswM: file.vector?.hnswM ?? 32,
    quantizeAbove: file.vector?.quantizeAbove ?? QUANTIZE_ABOVE,
  };
}

/** Step 6: chunk sizes, checked against each other (the schema checks each alone). */
function resolveChunking(file: ConfigFile, configFile: string): ExamCopilotConfig['chunking'] {
  const chunking = { minChars: 300, maxChars: 800, overlap: 100, articleUnits: true, ...file.chunking };
  if (chunking.minChars > chunking.maxChars || chunking.overlap >= chunking.minChars) {
    throw new UserError(
      `${configFile}: chunking needs overlap < minChars <= maxChars (got ${chunking.overlap}, ${chunking.minChars}, ${chunking.maxChars})`,
    );
  }
  return chunking;
}

/** A printable description of an endpoint that never includes the key. */
export function describeEndpoint(endpoint: { baseURL: string; model: string; apiKey?: string }): string {
  const key = endpoint.apiKey && endpoint.apiKey !== 'not-needed' ? 'key set' : 'no key';
  return `${endpoint.model} @ ${redactUrl(endpoint.baseURL)} (${key})`;
}

/** Removes any occurrence of the configured secrets from a message before it is shown or logged. */
export function redactSecrets(message: string, config: ExamCopilotConfig): string {
  return redactText(message, [...endpointSecrets(config.llm), ...endpointSecrets(config.embedder.endpoint)]);
}

/**
 * The schema of `exam-copilot.config.json`, checked by a few small validators instead of a schema library: every
 * command reads the config, and loading zod cost more than the rest of the CLI's start-up.
 * Every object is partial (defaults come from `loadConfig`) and strict (an unknown key is an error, so a typo
 * does not silently fall back to a default).
 */

/** What is wrong and where: `path` is the list of keys down to the offending value. */
export class ConfigIssue extends Error {
  readonly path: readonly string[];
  constructor(path: readonly string[], message: string) {
    super(message);
    this.path = path;
  }
}

/** Returns the value, typed, or throws a `ConfigIssue`. */
type Check<T> = (value: unknown, path: readonly string[]) => T;

/** The value a check returns. */
type Checked<C> = C extends Check<infer T> ? T : never;

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function expected(what: string, value: unknown, path: readonly string[]): ConfigIssue {
  return new ConfigIssue(path, `Invalid input: expected ${what}, received ${kindOf(value)}`);
}

function str(options: { url?: boolean; min?: number } = {}): Check<string> {
  return (value, path) => {
    if (typeof value !== 'string') throw expected('string', value, path);
    if (options.min !== undefined && value.length < options.min) {
      throw new ConfigIssue(path, `Too small: expected string to have >=${options.min} characters`);
    }
    if (options.url && !URL.canParse(value)) throw new ConfigIssue(path, 'Invalid URL');
    return value;
  };
}

function num(options: { int?: boolean; above?: number; min?: number; max?: number } = {}): Check<number> {
  return (value, path) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw expected('number', value, path);
    if (options.int && !Number.isInteger(value)) throw new ConfigIssue(path, 'Invalid input: expected int, received number');
    if (options.above !== undefined && !(value > options.above)) {
      throw new ConfigIssue(path, `Too small: expected number to be >${options.above}`);
    }
    if (options.min !== undefined && value < options.min) throw new ConfigIssue(path, `Too small: expected number to be >=${options.min}`);
    if (options.max !== undefined && value > options.max) throw new ConfigIssue(path, `Too big: expected number to be <=${options.max}`);
    return value;
  };
}

const bool: Check<boolean> = (value, path) => {
  if (typeof value !== 'boolean') throw expected('boolean', value, path);
  return value;
};

function oneOf<const T extends string>(values: readonly T[]): Check<T> {
  return (value, path) => {
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      throw new ConfigIssue(path, `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join('|')}`);
    }
    return value as T;
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const stringRecord: Check<Record<string, string>> = (value, path) => {
  if (!isPlainObject(value)) throw expected('record', value, path);
  for (const [key, v] of Object.entries(value)) str()(v, [...path, key]);
  return value as Record<string, string>;
};

const stringOrList: Check<string | string[]> = (value, path) => {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    value.forEach((v, i) => str()(v, [...path, String(i)]));
    return value as string[];
  }
  throw expected('string or array of strings', value, path);
};

/** A strict object whose every key is optional. */
function partialObject<S extends Record<string, Check<unknown>>>(shape: S): Check<{ [K in keyof S]?: Checked<S[K]> }> {
  return (value, path) => {
    if (!isPlainObject(value)) throw expected('object', value, path);
    for (const [key, v] of Object.entries(value)) {
      const check = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (!check) throw new ConfigIssue(path, `Unrecognized key: ${JSON.stringify(key)}`);
      if (v !== undefined) check(v, [...path, key]);
    }
    return value as { [K in keyof S]?: Checked<S[K]> };
  };
}

const endpointShape = { baseURL: str({ url: true }), apiKey: str(), model: str() };
const positiveInt = num({ int: true, above: 0 });

const configFile = partialObject({
  $schema: str(),
  books: stringRecord,
  chunking: partialObject({ minChars: positiveInt, maxChars: positiveInt, overlap: num({ int: true, min: 0 }), articleUnits: bool }),
  pdf: partialObject({ pageTimeoutMs: positiveInt, fileTimeoutMs: positiveInt, password: str() }),
  ingest: partialObject({ ocr: oneOf(['auto', 'always', 'never']), ocrPageTimeoutMs: positiveInt }),
  embedder: partialObject({
    kind: oneOf(['lsa', 'transformers', 'openai']),
    dimension: num({ int: true, above: 0, max: 4096 }),
    model: str(),
    modelPath: str(),
    queryPrefix: str(),
    passagePrefix: str(),
    endpoint: partialObject(endpointShape),
  }),
  vector: partialObject({
    index: oneOf(['flat', 'hnsw']),
    backend: oneOf(['auto', 'faiss', 'js']),
    hnswM: num({ int: true, min: 4, max: 128 }),
    quantizeAbove: num({ int: true, min: 0 }),
  }),
  retrieval: partialObject({
    rrfK: num({ above: 0 }),
    weights: partialObject({ keyword: num({ min: 0 }), vector: num({ min: 0 }) }),
    depth: num({ int: true, above: 0, max: 1000 }),
    keywordDepth: num({ int: true, above: 0, max: 1000 }),
    phraseWeight: num({ min: 0 }),
    neighbours: num({ int: true, min: 0, max: 5 }),
    parallelAbove: num({ int: true, min: 0 }),
  }),
  userDict: stringOrList,
  answer: partialObject({ abstainBelow: num({ min: 0, max: 1 }), agent: bool }),
  llm: partialObject({
    ...endpointShape,
    timeoutMs: positiveInt,
    deadlineMs: positiveInt,
    maxRetries: num({ int: true, min: 0, max: 10 }),
    concurrency: num({ int: true, above: 0, max: 64 }),
    cacheMaxEntries: positiveInt,
    cacheMaxBytes: positiveInt,
    tools: oneOf(['native', 'simulated', 'auto']),
  }),
  exam: partialObject({ name: str({ min: 1 }) }),
});

/** The config file's contents once checked: every key optional. */
export type ConfigFile = Checked<typeof configFile>;

/** Checks parsed JSON against the schema: the same value, typed, or a `ConfigIssue` for the first problem found. */
export function checkConfigFile(raw: unknown): ConfigFile {
  return configFile(raw, []);
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { describeEndpoint, redactSecrets } from '../config/load-config.js';
import { errorMessage, NotReadyError, UserError } from '../errors.js';
import { projectPaths } from '../paths.js';
import { importPackage } from '../import-package.js';

/** The verdict of one check. `fail` means a command the user will run is broken; `warn` means degraded. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

export interface DoctorReport {
  root: string;
  checks: DoctorCheck[];
  /** True when no check failed. */
  ok: boolean;
}

export interface DoctorOptions {
  root: string;
  config: ExamCopilotConfig;
  /** Milliseconds to wait for the LLM endpoint (kept short: doctor must answer quickly). */
  llmTimeoutMs?: number;
}

type Check = (options: DoctorOptions) => Promise<DoctorCheck>;

const MIN_NODE: readonly [number, number] = [20, 16];

const checkNode: Check = () => {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return Promise.resolve(
    ok
      ? { name: 'node', status: 'ok', message: `Node ${process.versions.node}` }
      : {
          name: 'node',
          status: 'fail',
          message: `Node ${process.versions.node} is too old`,
          fix: `install Node ${MIN_NODE.join('.')} or newer`,
        },
  );
};

const checkSqlite: Check = async () => {
  try {
    const { Database } = await import('../sqlite-database.js');
    const db = new Database(':memory:');
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(content); INSERT INTO t VALUES ('基金 份额');");
      const version = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
      return { name: 'sqlite-fts5', status: 'ok', message: `better-sqlite3 with SQLite ${version}, FTS5 available` };
    } finally {
      db.close();
    }
  } catch (error) {
    return {
      name: 'sqlite-fts5',
      status: 'fail',
      message: `better-sqlite3/FTS5 unusable: ${errorMessage(error)}`,
      fix: 'run `npm rebuild better-sqlite3` (needs python3, make and g++)',
    };
  }
};

const checkFaiss: Check = async ({ config }) => {
  try {
    const { faissStatus } = await import('../indexing/vector-index.js');
    const status = await faissStatus();
    if (config.vector.backend === 'js') {
      return {
        name: 'faiss',
        status: 'ok',
        message:
          'vector backend js chosen (vector.backend, EXAM_COPILOT_VECTOR_BACKEND or EXAM_COPILOT_DISABLE_FAISS): the exact JS flat index',
      };
    }
    if (status.available)
      return { name: 'faiss', status: 'ok', message: `native FAISS loaded${status.version ? ` (${status.version})` : ''}` };
    const wanted = config.vector.backend === 'faiss' || config.vector.index === 'hnsw';
    return {
      name: 'faiss',
      status: wanted ? 'fail' : 'warn',
      message: `native FAISS unavailable (${status.reason ?? 'unknown reason'}); vector search uses the exact JS flat index${wanted ? ', but the config asks for FAISS' : ''}`,
      fix: status.fix ?? 'apt-get install -y libfaiss-dev libopenblas-dev && node scripts/install-faiss.mjs',
    };
  } catch (error) {
    return {
      name: 'faiss',
      status: 'warn',
      message: `could not check FAISS: ${errorMessage(error)}`,
      fix: 'node scripts/install-faiss.mjs',
    };
  }
};

const checkJieba: Check = async ({ root, config }) => {
  try {
    const { analyzerFromConfig } = await import('../text/analyzer-from-config.js');
    const { readUserDictionary } = await import('../text/analyzer.js');
    const { analyzer, warnings } = analyzerFromConfig(root, config);
    const tokens = analyzer.tokens('基金份额持有人大会');
    const userTerms = readUserDictionary(config.userDict.map((f) => path.resolve(root, f))).lines.length;
    const summary = `segmentation works (${tokens.join('/')}); starter exam terms plus ${userTerms} of yours`;
    if (warnings.length > 0) {
      return {
        name: 'jieba',
        status: 'warn',
        message: `${summary}, but ${warnings.map((w) => `${w.where}: ${w.message}`).join('; ')}`,
        fix: 'create the file (one term per line) or change userDict in exam-copilot.config.json',
      };
    }
    return { name: 'jieba', status: 'ok', message: summary };
  } catch (error) {
    return { name: 'jieba', status: 'fail', message: `@node-rs/jieba unusable: ${errorMessage(error)}`, fix: 'reinstall: npm install' };
  }
};

const checkOnnx: Check = async ({ config }) => {
  const needed = config.embedder.kind === 'transformers';
  try {
    // Only the loadability matters; the embedder itself loads it through transformers.js.
    await importPackage('onnxruntime-node');
    return {
      name: 'onnxruntime',
      status: 'ok',
      message: `onnxruntime-node loads${needed ? '' : ' (only used by the transformers embedder)'}`,
    };
  } catch (error) {
    // A packaged install leaves the transformers embedder (and the onnxruntime it brings) out: an optional feature.
    const missing = (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
    const add = 'npm install @huggingface/transformers';
    return {
      name: 'onnxruntime',
      status: needed ? 'fail' : 'warn',
      message: missing
        ? 'the transformers embedder is not installed (optional: only embedder.kind = transformers uses it)'
        : `onnxruntime-node does not load: ${errorMessage(error).split('\n')[0] ?? ''}`,
      fix: missing
        ? `${add} next to exam-copilot`
        : needed
          ? 'reinstall with `npm install`, or switch the embedder to lsa'
          : 'only needed for embedder.kind = transformers',
    };
  }
};

const checkIndex: Check = async ({ root, config }) => {
  const paths = projectPaths(root);
  if (!existsSync(paths.ftsDb) || !existsSync(paths.chunks)) {
    return { name: 'index', status: 'warn', message: `no index under ${paths.index}`, fix: 'run `exam-copilot ingest`' };
  }
  try {
    const { checkFreshness } = await import('../store/freshness.js');
    const freshness = await checkFreshness({ root, config });
    if (freshness.stale.length === 0)
      return {
        name: 'index',
        status: 'ok',
        message: `index in step with rawdoc/ (${freshness.sources} sources, ${freshness.chunks} chunks)`,
      };
    return {
      name: 'index',
      status: 'warn',
      message: `index out of date: ${freshness.stale.slice(0, 3).join('; ')}${freshness.stale.length > 3 ? ` (+${freshness.stale.length - 3} more)` : ''}`,
      fix: 'run `exam-copilot ingest`',
    };
  } catch (error) {
    return {
      name: 'index',
      status: 'fail',
      message: `cannot read the index: ${errorMessage(error)}`,
      fix: 'run `exam-copilot ingest --force`',
    };
  }
};

/**
 * Whether the LSA fit's WebAssembly kernels (`wasm/dense-kernels.wasm`) load: without them `ingest` cannot fit the
 * default embedder, which is a failure then, and only a warning under another embedder.
 */
export async function checkKernelsFile(config: ExamCopilotConfig, file?: string): Promise<DoctorCheck> {
  const { checkKernels, kernelsFile } = await import('../indexing/embedders/dense-kernels.js');
  const shown = file ?? kernelsFile();
  return wasmCheck('kernels', () => checkKernels(shown), `the LSA fit's WebAssembly kernels load (${shown})`, {
    status: config.embedder.kind === 'lsa' ? 'fail' : 'warn',
    then: '',
  });
}

const checkKernelsShipped: Check = ({ config }) => checkKernelsFile(config);

/**
 * Whether the vector scan's kernel (`wasm/scan-kernels.wasm`) loads: without it a large index (`vector.quantizeAbove`)
 * is searched exactly through its flat file, slower but with the same hits, so this only warns.
 */
export async function checkScanKernelsFile(file?: string): Promise<DoctorCheck> {
  const { loadScanKernels, scanKernelsFile } = await import('../indexing/scan-kernels.js');
  const shown = file ?? scanKernelsFile();
  return wasmCheck('scan', () => loadScanKernels(shown), `the vector scan's WebAssembly kernel loads (${shown})`, {
    status: 'warn',
    then: '; large indexes are searched through their flat file instead (same hits, slower)',
  });
}

/**
 * Whether the keyword postings' kernel (`wasm/postings-kernels.wasm`) loads: without it a query is ranked by FTS5
 * itself, the same ranking but slower, so this only warns.
 */
export async function checkPostingsKernelsFile(file?: string): Promise<DoctorCheck> {
  const { loadPostingsKernels, postingsKernelsFile } = await import('../indexing/postings-kernels.js');
  const shown = file ?? postingsKernelsFile();
  return wasmCheck('postings', () => loadPostingsKernels(shown), `the keyword postings' WebAssembly kernel loads (${shown})`, {
    status: 'warn',
    then: '; keyword searches are ranked by FTS5 instead (the same ranking, slower)',
  });
}

/** A shipped WebAssembly module's check: ok when `load` returns, else its one-line error with what follows and the fix. */
function wasmCheck(name: string, load: () => unknown, ok: string, failed: { status: 'fail' | 'warn'; then: string }): DoctorCheck {
  try {
    load();
    return { name, status: 'ok', message: ok };
  } catch (error) {
    // The file and its problem, without the error's own fix: this check gives the fix, with the rebuild from a checkout.
    const problem = error instanceof UserError ? error.fileProblem : undefined;
    return {
      name,
      status: failed.status,
      message: `${problem ? `${problem.file}: ${problem.problem}` : errorMessage(error)}${failed.then}`,
      fix: 'reinstall exam-copilot (npm install), or from a checkout rebuild the file: node scripts/build-wasm.mjs',
    };
  }
}

const checkScanKernelsShipped: Check = () => checkScanKernelsFile();
const checkPostingsKernelsShipped: Check = () => checkPostingsKernelsFile();

/**
 * Whether `search`, `ask` and `eval` can open the index with this configuration. It runs the very check they
 * run (`openRetriever`: embedder kind, model and dimension, the loaded embedder's id, and the analyzer's
 * dictionary fingerprint against the keyword index), so doctor cannot say "ok" where search exits 5.
 */
const checkEmbedder: Check = async ({ root, config }) => {
  const paths = projectPaths(root);
  const configured =
    config.embedder.kind === 'lsa'
      ? `lsa (${config.embedder.dimension} dims, fitted at ingest, offline)`
      : `${config.embedder.kind}${config.embedder.model ? ` ${config.embedder.model}` : ''}`;
  if (!existsSync(path.join(paths.faissDir, 'meta.json')))
    return { name: 'embedder', status: 'ok', message: `configured: ${configured}; no vector index yet` };
  try {
    const { openRetriever } = await import('../retrieve/open-retriever.js');
    const retriever = await openRetriever({ root, config });
    // LSA caps its dimension at the corpus size, so the index may hold fewer dimensions than configured.
    const message = `${configured}; the index matches it (${retriever.embedderId}, ${retriever.size} chunks, ${retriever.vectorBackend} backend)`;
    // What the vector files said while opening: a search slower than the index was built for (codes that do not fit).
    const slower = retriever.vectorWarnings.map((w) => `${w.where}: ${w.message}`);
    retriever.close();
    if (slower.length > 0) {
      // Each warning ends with its own fix: rewriting codes that do not fit, or reinstalling a kernel that does not load.
      const fix = 'the one each warning gives: `exam-copilot ingest --force` for codes that do not fit the index';
      return { name: 'embedder', status: 'warn', message: [message, ...slower].join('; '), fix };
    }
    return { name: 'embedder', status: 'ok', message };
  } catch (error) {
    const fix =
      error instanceof NotReadyError
        ? 'run `exam-copilot ingest --force`, or change the embedder or dictionary back'
        : 'run `exam-copilot ingest --force`';
    return { name: 'embedder', status: 'fail', message: redactSecrets(errorMessage(error), config), fix };
  }
};

const checkLlm: Check = async ({ config, llmTimeoutMs = 3000 }) => {
  const llm = config.llm;
  if (!llm)
    return {
      name: 'llm',
      status: 'ok',
      message: 'no LLM configured: the offline answerer is used (set EXAM_COPILOT_LLM_MODEL and a base URL to use one)',
    };
  const url = `${llm.baseURL.replace(/\/+$/, '')}/models`;
  try {
    const response = await fetch(url, { headers: { authorization: `Bearer ${llm.apiKey}` }, signal: AbortSignal.timeout(llmTimeoutMs) });
    if (response.status === 401 || response.status === 403) {
      return {
        name: 'llm',
        status: 'fail',
        message: `${describeEndpoint(llm)}: the key was rejected (HTTP ${response.status})`,
        fix: 'check EXAM_COPILOT_LLM_API_KEY / OPENAI_API_KEY',
      };
    }
    // Some compatible servers do not implement /models; any HTTP answer proves the endpoint is reachable.
    return { name: 'llm', status: 'ok', message: `${describeEndpoint(llm)} reachable (HTTP ${response.status})` };
  } catch (error) {
    return {
      name: 'llm',
      status: 'fail',
      message: redactSecrets(`${describeEndpoint(llm)} unreachable within ${llmTimeoutMs} ms: ${errorMessage(error)}`, config),
      fix: 'check the base URL and network, or unset the LLM settings to use the offline answerer',
    };
  }
};

const checkOcr: Check = async ({ config }) => {
  const mode = config.ingest?.ocr ?? 'auto';
  const { ocrAvailability, OCR_INSTALL_HINT } = await import('../ingest/ocr/ocr-engine.js');
  const status = await ocrAvailability();
  if (status.available)
    return { name: 'ocr', status: 'ok', message: `OCR available for scanned pages (PaddleOCR PP-OCRv4, offline; ingest.ocr = ${mode})` };
  if (mode === 'never') return { name: 'ocr', status: 'ok', message: `OCR off (ingest.ocr = never); not installed: ${status.reason}` };
  return {
    name: 'ocr',
    status: mode === 'always' ? 'fail' : 'warn',
    message: `OCR unavailable (${status.reason}): scanned PDFs cannot be read`,
    fix: OCR_INSTALL_HINT,
  };
};

/** Every check, in the order they are shown. */
export const DOCTOR_CHECKS: readonly Check[] = [
  checkNode,
  checkSqlite,
  checkFaiss,
  checkJieba,
  checkKernelsShipped,
  checkScanKernelsShipped,
  checkPostingsKernelsShipped,
  checkOnnx,
  checkOcr,
  checkIndex,
  checkEmbedder,
  checkLlm,
];

/** Runs every check; never throws for a failing check (each becomes a `fail` line). */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  // A missing root fails outright, and an interrupted ingest is repaired first, as every reader does.
  const { openReadableRoot } = await import('../store/atomic-swap.js');
  openReadableRoot(options.root);
  const checks: DoctorCheck[] = [];
  for (const check of DOCTOR_CHECKS) checks.push(await check(options));
  return { root: options.root, checks, ok: checks.every((c) => c.status !== 'fail') };
}

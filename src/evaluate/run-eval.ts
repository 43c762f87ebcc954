import path from 'node:path';
import { ANSWER_MODES, type AnswerMode, type AnswerResult } from '../answer/answer-types.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError, UsageError, UserError } from '../errors.js';
import { projectPaths } from '../paths.js';
import type { Chunk, ChunkLocation } from '../types.js';
import { openEvalEngine, type EvalEngine, type EvalEngineOptions } from './eval-engine.js';
import { evalWorkerCount, openEvalPool } from './eval-pool.js';
import type { EvalProgress, EvalReport, EvalRow, EvidenceRef, ModeComparison, ModeReport, RunRecord, SkippedMode } from './eval-types.js';
import { createLimiter } from './limiter.js';
import { loadDataset } from './load-dataset.js';
import { compareModes, inferType, modeMetrics } from './metrics.js';
import { openRunWriter, readRunFile, rowFingerprint, runFilePath } from './run-files.js';
import { seededRandom } from '../seeded-random.js';

/** Options of `runEval`; everything but `root`, `config` and `file` has a default. */
export interface RunEvalOptions {
  root: string;
  config: ExamCopilotConfig;
  /** The validation set (CSV or XLSX), absolute or relative to the current directory. */
  file: string;
  /** Modes to run; default: every mode that can run (baseline only with an LLM). */
  modes?: AnswerMode[];
  /** Default: `llm` when an LLM is configured, else `offline`. */
  answerer?: 'offline' | 'llm';
  /** Only the first N rows (after sampling). */
  limit?: number;
  /** A deterministic random sample of N rows (with `seed`), kept in file order. */
  sample?: number;
  seed?: number;
  /** Questions in flight at once (default: the LLM's configured concurrency, 1 offline). */
  concurrency?: number;
  /** Cap on question starts per second (LLM rate limits); default none. */
  ratePerSecond?: number;
  /** Reuse finished rows from the run files instead of starting over. */
  resume?: boolean;
  /** Evidence chunks per question, and K of Evidence Hit Rate@K (default 5). */
  topK?: number;
  /** Bypass the LLM response cache. */
  noCache?: boolean;
  /** Where run files go (default `.exam-copilot/runs/` under the root). */
  runDir?: string;
  onProgress?: (event: EvalProgress) => void;
  /** Builds the answering engine; tests and benchmarks may pass their own, the CLI uses the default. */
  openEngine?: (options: EvalEngineOptions) => Promise<EvalEngine>;
  /** Offline: worker threads answering in parallel (default one per core; 1 answers in this thread). */
  workers?: number;
}


/** A seeded sample of `n` rows, returned in their original order. */
export function sampleRows<T>(rows: readonly T[], n: number, seed: number): T[] {
  if (n >= rows.length) return [...rows];
  const idx = rows.map((_, i) => i);
  const rand = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rand() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j] ?? 0, idx[i] ?? 0];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => rows[i] as T);
}

function evidenceRef(e: ChunkLocation, chunk: Chunk | undefined): EvidenceRef {
  return { chunk_id: e.chunk_id, book: e.book, chapter: e.chapter, section: e.section, figure_ref: e.figure_ref, page_start: e.page_start, page_end: e.page_end, chunk_type: chunk?.chunk_type ?? null };
}

/** Turns an answer into the run-file record of one question. */
export function toRecord(row: EvalRow, result: AnswerResult, fingerprint: string, k: number, chunk: (id: string) => Chunk | undefined): RunRecord {
  const predicted = [...new Set(result.answer.toUpperCase().replace(/[^A-H]/g, ''))].sort().join('');
  const retrieved = result.context.slice(0, k).map((h) => evidenceRef(h.chunk, h.chunk));
  const evidence = result.evidence.map((e) => evidenceRef(e, chunk(e.chunk_id)));
  const { type, source } = inferType(row.type, retrieved.length > 0 ? retrieved : evidence);
  return {
    id: row.id,
    mode: result.mode,
    fingerprint,
    answerer: result.answerer,
    question: row.question,
    predicted,
    gold: row.answer,
    // Fallback answers are never counted correct: they are not the evidence-backed answer the mode claims to give.
    correct: result.fallback === null && predicted !== '' && predicted === row.answer,
    fallback: result.fallback,
    message: result.message ?? null,
    confidence: Number.isFinite(result.confidence) ? Math.min(1, Math.max(0, result.confidence)) : 0,
    type,
    type_source: source,
    gold_evidence: row.gold,
    evidence,
    retrieved,
    latency_ms: result.latencyMs,
    tokens: result.usage ? { prompt: result.usage.promptTokens, completion: result.usage.completionTokens } : null,
    finished_at: new Date().toISOString(),
  };
}

/**
 * Answers a validation set in every requested mode, appending each finished question to the mode's run file
 * (fsync'd), then computes the metrics from the run files. With `resume`, rows already in a run file with the same
 * fingerprint are not asked again, so an interrupted run loses nothing.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const { config } = options;
  const topK = options.topK ?? 8;
  const dataset = await loadDataset(options.file);
  let rows = dataset.rows;
  if (options.sample !== undefined) rows = sampleRows(rows, options.sample, options.seed ?? 1);
  if (options.limit !== undefined) rows = rows.slice(0, options.limit);

  const answerer = options.answerer ?? (config.llm ? 'llm' : 'offline');
  if (answerer === 'llm' && !config.llm) {
    throw new NotReadyError('--answerer llm needs an LLM endpoint: set EXAM_COPILOT_LLM_MODEL (and EXAM_COPILOT_LLM_BASE_URL / EXAM_COPILOT_LLM_API_KEY) or use --answerer offline');
  }
  const explicitModes = options.modes !== undefined;
  const requested = [...new Set(options.modes ?? ANSWER_MODES)];
  for (const m of requested) if (!(ANSWER_MODES as readonly string[]).includes(m)) throw new UsageError(`--modes: unknown mode "${m}"; use ${ANSWER_MODES.join(', ')}`);
  const skippedModes: SkippedMode[] = [];
  let modes: AnswerMode[] = requested.filter((m) => {
    if (m !== 'baseline' || answerer === 'llm') return true;
    skippedModes.push({ mode: 'baseline', reason: config.llm ? 'baseline is the LLM alone and --answerer offline was chosen; not faked with the offline answerer' : 'baseline is the LLM alone and no LLM is configured (set EXAM_COPILOT_LLM_MODEL); not faked with the offline answerer' });
    return false;
  });
  if (modes.length === 0) throw new NotReadyError(`no requested mode can run: ${skippedModes.map((s) => `${s.mode}: ${s.reason}`).join('; ')}`);

  // Offline answering is CPU-bound: a pool of worker threads (eval-pool.ts) answers on every core.
  const workers = answerer === 'offline' && !options.openEngine && modes.some((m) => m !== 'baseline') ? evalWorkerCount(rows.length * modes.length, options.workers) : 1;
  const openEngine = options.openEngine ?? (workers > 1 ? (o: EvalEngineOptions) => openEvalPool({ ...o, workers }) : openEvalEngine);
  const concurrency = Math.max(1, options.concurrency ?? (answerer === 'llm' ? (config.llm?.concurrency ?? 4) : workers > 1 ? workers * 2 : 1));
  const needsRetriever = modes.some((m) => m !== 'baseline');
  let engine: EvalEngine;
  try {
    engine = await openEngine({ root: options.root, config, answerer, topK, noCache: options.noCache === true, retrieval: needsRetriever, concurrency });
  } catch (error) {
    // Without an index only baseline can run; when the user did not ask for specific modes, say so and go on.
    if (!(error instanceof NotReadyError) || explicitModes || !modes.includes('baseline')) throw error;
    for (const m of modes) if (m !== 'baseline') skippedModes.push({ mode: m, reason: error.message });
    modes = ['baseline'];
    engine = await openEngine({ root: options.root, config, answerer, topK, noCache: options.noCache === true, retrieval: false, concurrency });
  }

  const runDir = path.resolve(options.runDir ?? path.join(projectPaths(options.root).state, 'runs'));
  const answererConfig = { answerer, model: answerer === 'llm' ? (config.llm?.model ?? null) : null, rerank: answerer === 'llm', embedder: engine.embedderId, topK };
  const fingerprints = new Map(dataset.rows.map((r) => [r.id, rowFingerprint(r, answererConfig)]));
  const limiter = createLimiter({ concurrency, ...(options.ratePerSecond ? { perSecond: options.ratePerSecond } : {}) });
  const selectedIds = new Set(rows.map((r) => r.id));

  // Resume: reuse matching records; everything else is asked (again).
  const plan = modes.map((mode) => {
    const file = runFilePath(runDir, dataset.file, mode);
    const keep: RunRecord[] = [];
    if (options.resume) {
      const seen = new Set<string>();
      for (const r of readRunFile(file).records) {
        if (r.mode !== mode || seen.has(r.id) || fingerprints.get(r.id) !== r.fingerprint) continue;
        seen.add(r.id);
        keep.push(r);
      }
    }
    const done = new Set(keep.map((r) => r.id));
    return { mode, file, keep, todo: rows.filter((r) => !done.has(r.id)) };
  });

  const total = rows.length * modes.length;
  const perMode: EvalProgress['perMode'] = {};
  let done = 0;
  for (const p of plan) {
    const kept = p.keep.filter((r) => selectedIds.has(r.id));
    perMode[p.mode] = { done: kept.length, correct: kept.filter((r) => r.correct).length };
    done += kept.length;
  }
  let answeredNow = 0;
  let firstAnswerAt: number | null = null;
  const progress = (phase: EvalProgress['phase'], mode?: AnswerMode): void => {
    const elapsed = Date.now() - started;
    let eta: number | null = null;
    if (answeredNow > 0 && firstAnswerAt !== null) eta = ((Date.now() - firstAnswerAt) / answeredNow) * (total - done);
    options.onProgress?.({ phase, ...(mode ? { mode } : {}), done, total, perMode: structuredClone(perMode), elapsedMs: elapsed, etaMs: eta });
  };
  progress('open');

  const answeredByMode = new Map<AnswerMode, number>();
  try {
    for (const p of plan) {
      progress('mode-start', p.mode);
      const writer = openRunWriter(p.file, p.keep);
      try {
        firstAnswerAt ??= Date.now();
        await Promise.all(
          p.todo.map((row) =>
            limiter.run(async () => {
              const result = await engine.answer(row, p.mode);
              const record = toRecord(row, result, fingerprints.get(row.id) ?? '', topK, (id) => engine.chunk(id));
              writer.append(record);
              answeredNow++;
              answeredByMode.set(p.mode, (answeredByMode.get(p.mode) ?? 0) + 1);
              done++;
              const pm = perMode[p.mode] ?? { done: 0, correct: 0 };
              pm.done++;
              if (record.correct) pm.correct++;
              perMode[p.mode] = pm;
              progress('row', p.mode);
            }),
          ),
        );
      } catch (error) {
        if (error instanceof UserError) throw new UserError(`${error.message} (finished rows are saved in ${p.file}; rerun with --resume to continue)`, error.exitCode);
        throw error;
      } finally {
        writer.close();
      }
      progress('mode-done', p.mode);
    }
  } finally {
    engine.close();
  }

  // Metrics come from the run files, not from memory: what is reported is exactly what can be re-read and diffed.
  const records: EvalReport['records'] = {};
  const modeReports: ModeReport[] = [];
  for (const p of plan) {
    const byId = new Map<string, RunRecord>();
    for (const r of readRunFile(p.file).records) {
      if (r.mode === p.mode && selectedIds.has(r.id) && fingerprints.get(r.id) === r.fingerprint && !byId.has(r.id)) byId.set(r.id, r);
    }
    const ordered = rows.map((r) => byId.get(r.id)).filter((r): r is RunRecord => r !== undefined);
    if (ordered.length !== rows.length) {
      throw new Error(`run file ${p.file} holds ${ordered.length} of ${rows.length} finished rows after the run`);
    }
    records[p.mode] = ordered;
    modeReports.push(modeMetrics(p.mode, ordered, { k: topK, runFile: p.file, answeredNow: answeredByMode.get(p.mode) ?? 0, answerer }));
  }
  const comparisons: ModeComparison[] = [];
  for (let i = 0; i < modeReports.length; i++) {
    for (let j = i + 1; j < modeReports.length; j++) {
      const a = modeReports[i];
      const b = modeReports[j];
      if (!a || !b) continue;
      comparisons.push(compareModes(a.mode, records[a.mode] ?? [], b.mode, records[b.mode] ?? []));
    }
  }
  return {
    dataset: dataset.file,
    total: rows.length,
    skipped: dataset.skipped,
    warnings: dataset.warnings,
    modes: modeReports,
    skipped_modes: skippedModes,
    comparisons,
    config: {
      answerer,
      llm_model: answerer === 'llm' ? (config.llm?.model ?? null) : null,
      embedder: engine.embedderId,
      top_k: topK,
      limit: options.limit ?? null,
      sample: options.sample ?? null,
      seed: options.sample !== undefined ? (options.seed ?? 1) : null,
      concurrency,
      resume: options.resume === true,
      run_dir: runDir,
      encoding: dataset.encoding,
    },
    wall_ms: Date.now() - started,
    records,
  };
}

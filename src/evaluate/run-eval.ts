import path from 'node:path';
import { ANSWER_MODES, EVAL_MODES, EVIDENCE_TOP_K, type AnswerMode } from '../answer/answer-types.js';
import { chooseAnswerer, type AnswererKind } from '../answer/choose-answerer.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError, UsageError, UserError } from '../errors.js';
import { publishRunEvent } from '../run-events.js';
import { projectPaths } from '../paths.js';
import { openEvalEngine, type EvalEngine, type EvalEngineOptions } from './eval-engine.js';
import { evalWorkerCount, openEvalPool } from './eval-pool.js';
import type { EvalProgress, EvalReport, EvalRow, ModeComparison, ModeReport, RunRecord, SkippedMode } from './eval-types.js';
import { loadDataset } from './load-dataset.js';
import { compareModes, modeMetrics } from './metrics.js';
import { toRecord } from './run-record.js';
import { selectRows } from './select-rows.js';
import { acquireRunLock, openRunWriter, readRunFile, rowFingerprint, runFilePath } from './run-files.js';
import { createLimiter, runUntilFailure, type Limiter } from '../limiter.js';

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

/** One mode's work: its run file, the records reused by `--resume`, and the rows still to answer. */
interface ModePlan {
  mode: AnswerMode;
  file: string;
  keep: RunRecord[];
  todo: EvalRow[];
}

/**
 * Answers a validation set in every requested mode, appending each finished question to the mode's run file
 * (fsync'd), then computes the metrics from the run files. With `resume`, rows already in a run file with the same
 * fingerprint are not asked again, so an interrupted run loses nothing. The steps:
 * select rows → choose modes → open the answerer → plan (resume) → answer → score from the run files.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const started = Date.now();
  const { config } = options;
  const topK = options.topK ?? EVIDENCE_TOP_K;
  const dataset = await loadDataset(options.file);
  const rows = selectRows(dataset.rows, options);
  const answerer = chooseAnswerer(config, options.answerer);
  const chosen = chooseModes(options.modes, answerer, config);
  // Offline answering is CPU-bound: a pool of worker threads (eval-pool.ts) answers on every core.
  const workers =
    // The pool's workers read the vector index with the exact JS backend, which reads flat indexes only.
    answerer === 'offline' && !options.openEngine && config.vector.index === 'flat' && chosen.modes.some((m) => m !== 'baseline')
      ? evalWorkerCount(rows.length * chosen.modes.length, options.workers)
      : 1;
  const concurrency = Math.max(
    1,
    options.concurrency ?? (answerer === 'llm' ? (config.llm?.concurrency ?? 4) : workers > 1 ? workers * 2 : 1),
  );
  const runDir = path.resolve(options.runDir ?? path.join(projectPaths(options.root).state, 'runs'));
  // Two evals appending to the same run files would interleave their rows: the second one stops here, before it
  // opens the index.
  const runLock = acquireRunLock({
    dir: runDir,
    command: 'exam-copilot eval',
    busy: (h) =>
      `another eval is using the run directory ${runDir}${h ? ` (pid ${h.pid}, started ${h.startedAt})` : ''}; wait for it, or pass another --run-dir`,
  });
  let opened: { engine: EvalEngine; modes: AnswerMode[] };
  try {
    opened = await openEngineForModes(options, chosen, { answerer, topK, concurrency }, workers);
  } catch (error) {
    runLock.release();
    throw error;
  }
  const { engine, modes } = opened;
  const answererConfig = {
    answerer,
    model: answerer === 'llm' ? (config.llm?.model ?? null) : null,
    rerank: answerer === 'llm',
    embedder: engine.embedderId,
    topK,
  };
  const fingerprints = new Map(dataset.rows.map((r) => [r.id, rowFingerprint(r, answererConfig)]));
  const plan = modes.map((mode) =>
    planMode(mode, runFilePath(runDir, dataset.file, mode), rows, fingerprints, {
      resume: options.resume === true,
      retryLlmFailures: answerer === 'llm',
    }),
  );
  const limiter = createLimiter({ concurrency, ...(options.ratePerSecond ? { perSecond: options.ratePerSecond } : {}) });
  let answeredByMode: Map<AnswerMode, number>;
  let llmNotice: string | null = null;
  try {
    answeredByMode = await answerPlan(plan, rows, {
      engine,
      limiter,
      fingerprints,
      topK,
      started,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    llmNotice = engine.llmNotice?.() ?? null;
    try {
      await engine.close();
    } finally {
      runLock.release();
    }
  }
  const { records, modeReports, comparisons } = scoreRunFiles(plan, rows, fingerprints, { topK, answeredByMode, answerer });
  return {
    dataset: dataset.file,
    total: rows.length,
    skipped: dataset.skipped,
    row_issues: dataset.issues,
    warnings: llmNotice ? [...dataset.warnings, { where: 'llm', message: llmNotice }] : dataset.warnings,
    modes: modeReports,
    skipped_modes: chosen.skipped,
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

/** Step 2: the requested modes (default all) minus baseline when the LLM does not answer; baseline is never faked. */
function chooseModes(
  requestedModes: readonly AnswerMode[] | undefined,
  answerer: AnswererKind,
  config: ExamCopilotConfig,
): { modes: AnswerMode[]; skipped: SkippedMode[]; explicit: boolean } {
  const requested = [...new Set(requestedModes ?? ANSWER_MODES)];
  for (const m of requested)
    if (!(EVAL_MODES as readonly string[]).includes(m)) throw new UsageError(`--modes: unknown mode "${m}"; use ${EVAL_MODES.join(', ')}`);
  const skipped: SkippedMode[] = [];
  const modes = requested.filter((m) => {
    if (m === 'agent') {
      if (answerer === 'llm') return true;
      skipped.push({
        mode: 'agent',
        reason: config.llm
          ? 'the agent is the LLM reading with tools and --answerer offline was chosen'
          : 'the agent needs an LLM and none is configured (set EXAM_COPILOT_LLM_MODEL)',
      });
      return false;
    }
    if (m !== 'baseline' || answerer === 'llm') return true;
    skipped.push({
      mode: 'baseline',
      reason: config.llm
        ? 'baseline is the LLM alone and --answerer offline was chosen; not faked with the offline answerer'
        : 'baseline is the LLM alone and no LLM is configured (set EXAM_COPILOT_LLM_MODEL); not faked with the offline answerer',
    });
    return false;
  });
  if (modes.length === 0) throw new NotReadyError(`no requested mode can run: ${skipped.map((x) => `${x.mode}: ${x.reason}`).join('; ')}`);
  return { modes, skipped, explicit: requestedModes !== undefined };
}

/**
 * Step 3: opens the answering engine. Without an index only baseline can run: when the user did not ask for
 * specific modes, the retrieval modes are skipped with the reason and baseline goes on.
 */
async function openEngineForModes(
  options: RunEvalOptions,
  chosen: { modes: AnswerMode[]; skipped: SkippedMode[]; explicit: boolean },
  settings: { answerer: AnswererKind; topK: number; concurrency: number },
  workers: number,
): Promise<{ engine: EvalEngine; modes: AnswerMode[] }> {
  const openEngine = options.openEngine ?? (workers > 1 ? (o: EvalEngineOptions) => openEvalPool({ ...o, workers }) : openEvalEngine);
  const base = { root: options.root, config: options.config, ...settings, noCache: options.noCache === true };
  try {
    return { engine: await openEngine({ ...base, retrieval: chosen.modes.some((m) => m !== 'baseline') }), modes: chosen.modes };
  } catch (error) {
    if (!(error instanceof NotReadyError) || chosen.explicit || !chosen.modes.includes('baseline')) throw error;
    for (const m of chosen.modes) if (m !== 'baseline') chosen.skipped.push({ mode: m, reason: error.message });
    return { engine: await openEngine({ ...base, retrieval: false }), modes: ['baseline'] };
  }
}

/**
 * Step 4: with `--resume`, the records of a mode's run file that still match (same fingerprint) are kept; the rest is
 * asked. With the LLM answering, an LLM failure (or a question the circuit breaker answered offline) is asked again.
 */
function planMode(
  mode: AnswerMode,
  file: string,
  rows: readonly EvalRow[],
  fingerprints: ReadonlyMap<string, string>,
  options: { resume: boolean; retryLlmFailures: boolean },
): ModePlan {
  const keep: RunRecord[] = [];
  if (options.resume) {
    const seen = new Set<string>();
    for (const r of readRunFile(file).records) {
      if (r.mode !== mode || seen.has(r.id) || fingerprints.get(r.id) !== r.fingerprint) continue;
      if (options.retryLlmFailures && r.fallback === 'llm_failed') continue;
      seen.add(r.id);
      keep.push(r);
    }
  }
  const done = new Set(keep.map((r) => r.id));
  return { mode, file, keep, todo: rows.filter((r) => !done.has(r.id)) };
}

/** Step 5: answers every planned row, appending each record to its run file as it finishes; returns how many were answered now per mode. */
async function answerPlan(
  plan: readonly ModePlan[],
  rows: readonly EvalRow[],
  ctx: {
    engine: EvalEngine;
    limiter: Limiter;
    fingerprints: ReadonlyMap<string, string>;
    topK: number;
    started: number;
    onProgress?: (event: EvalProgress) => void;
  },
): Promise<Map<AnswerMode, number>> {
  const selectedIds = new Set(rows.map((r) => r.id));
  const total = rows.length * plan.length;
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
    const eta = answeredNow > 0 && firstAnswerAt !== null ? ((Date.now() - firstAnswerAt) / answeredNow) * (total - done) : null;
    ctx.onProgress?.({
      phase,
      ...(mode ? { mode } : {}),
      done,
      total,
      perMode: structuredClone(perMode),
      elapsedMs: Date.now() - ctx.started,
      etaMs: eta,
    });
  };
  progress('open');
  const answeredByMode = new Map<AnswerMode, number>();
  for (const p of plan) {
    progress('mode-start', p.mode);
    const writer = openRunWriter(p.file, p.keep);
    try {
      firstAnswerAt ??= Date.now();
      // The first failure stops the mode: no row starts after it, and the rows in flight finish (and are recorded)
      // before the writer closes, so nothing is written to a closed run file and no answer is paid for in vain.
      await runUntilFailure(ctx.limiter, p.todo, async (row) => {
        const result = await ctx.engine.answer(row, p.mode);
        const record = toRecord(row, result, ctx.fingerprints.get(row.id) ?? '', ctx.topK, (id) => ctx.engine.chunk(id));
        writer.append(record);
        answeredNow++;
        answeredByMode.set(p.mode, (answeredByMode.get(p.mode) ?? 0) + 1);
        done++;
        const pm = perMode[p.mode] ?? { done: 0, correct: 0 };
        pm.done++;
        if (record.correct) pm.correct++;
        perMode[p.mode] = pm;
        progress('row', p.mode);
        publishRunEvent({ command: 'eval', rowsRecorded: answeredNow });
      });
    } catch (error) {
      if (error instanceof UserError)
        throw new UserError(`${error.message} (finished rows are saved in ${p.file}; rerun with --resume to continue)`, error.exitCode);
      throw error;
    } finally {
      writer.close();
    }
    progress('mode-done', p.mode);
  }
  return answeredByMode;
}

/**
 * Step 6: metrics come from the run files, not from memory: what is reported is exactly what can be re-read
 * and diffed. Then McNemar's test between every pair of modes.
 */
function scoreRunFiles(
  plan: readonly ModePlan[],
  rows: readonly EvalRow[],
  fingerprints: ReadonlyMap<string, string>,
  ctx: { topK: number; answeredByMode: ReadonlyMap<AnswerMode, number>; answerer: AnswererKind },
): { records: EvalReport['records']; modeReports: ModeReport[]; comparisons: ModeComparison[] } {
  const selectedIds = new Set(rows.map((r) => r.id));
  const records: EvalReport['records'] = {};
  const modeReports: ModeReport[] = [];
  for (const p of plan) {
    const byId = new Map<string, RunRecord>();
    for (const r of readRunFile(p.file).records) {
      if (r.mode === p.mode && selectedIds.has(r.id) && fingerprints.get(r.id) === r.fingerprint && !byId.has(r.id)) byId.set(r.id, r);
    }
    // Run files written before records carried the options get them from the row (same fingerprint, same options).
    const ordered = rows
      .map((row) => {
        const r = byId.get(row.id);
        return r && !r.options ? { ...r, options: row.options } : r;
      })
      .filter((r): r is RunRecord => r !== undefined);
    if (ordered.length !== rows.length) {
      throw new Error(`run file ${p.file} holds ${ordered.length} of ${rows.length} finished rows after the run`);
    }
    records[p.mode] = ordered;
    modeReports.push(
      modeMetrics(p.mode, ordered, {
        k: ctx.topK,
        runFile: p.file,
        answeredNow: ctx.answeredByMode.get(p.mode) ?? 0,
        answerer: ctx.answerer,
      }),
    );
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
  return { records, modeReports, comparisons };
}

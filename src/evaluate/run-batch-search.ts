import path from 'node:path';
import { writeFileAtomic } from '../write-atomic.js';
import type { ExamCopilotConfig } from '../config/load-config.js';
import { UserError } from '../errors.js';
import { openRetriever } from '../retrieve/open-retriever.js';
import { BUDGET_MAX_HITS, type RetrievalMode, type Retriever } from '../retrieve/retriever.js';
import type { Hit, Warning } from '../types.js';
import { loadQueries } from './load-queries.js';
import { percentile } from './metrics.js';
import { EVIDENCE_BUDGET_CHARS, judgeRanking, retrievalScores, type JudgedQuery, type RetrievalScores } from './retrieval-metrics.js';

/** Options of `runBatchSearch`. */
export interface RunBatchSearchOptions {
  root: string;
  config: ExamCopilotConfig;
  /** TSV, CSV or JSONL of queries (`query_id`, `query`, optional `relevant`). */
  file: string;
  modes: readonly RetrievalMode[];
  /** Hits per query written to the run files and judged (default 10). */
  k?: number;
  /** Folder for the TREC run files (`<name>.<mode>.trec`); none written when absent. */
  runDir?: string;
  /** Where to write the JSON report; none written when absent. */
  reportJson?: string;
  /** An opened retriever to reuse (benchmarks run several files on one index); opened from `root` otherwise and closed after. */
  retriever?: Retriever;
  /** Called after each query of each mode. */
  onProgress?: (mode: RetrievalMode, done: number, total: number) => void;
}

/** The results of one mode: latency always, judged metrics when the file has gold strings. */
export interface BatchModeResult {
  mode: RetrievalMode;
  /** Null when no query of the file has `relevant` gold strings. */
  scores: RetrievalScores | null;
  p50Ms: number;
  p95Ms: number;
  /** The TREC run file written, if any. */
  runFile: string | null;
}

/** What `search --queries` returns. */
export interface BatchSearchReport {
  dataset: string;
  format: string;
  encoding: string;
  /** Queries searched (valid rows). */
  total: number;
  /** Queries with gold strings (those judged). */
  judged: number;
  skipped: number;
  k: number;
  modes: BatchModeResult[];
  warnings: Warning[];
  config: {
    embedder: string;
    vector_backend: string;
    rrf_k: number;
    weights: { keyword: number; vector: number };
    depth: number;
    keyword_depth: number;
    /** Weight of the phrase re-scoring of the hybrid's fused head (0: off). */
    phrase_weight: number;
    budget_chars: number;
  };
  /** The JSON report written, if any. */
  reportJson: string | null;
}

/** One TREC run line as pyserini writes it: `qid Q0 docid rank score tag` (rank 1-based, score descending). */
export function trecRunLine(qid: string, chunkId: string, rank: number, score: number, tag: string): string {
  // Whitespace separates the columns; ids from a user's file must not add columns.
  const clean = (s: string): string => s.replace(/\s+/g, '_');
  return `${clean(qid)} Q0 ${clean(chunkId)} ${rank} ${score.toFixed(6)} ${clean(tag)}`;
}

/** The JSON report's shape: `{"dataset","total","modes":[{"mode","recall":{"1","5","10"},"mrr10","ndcg10","r4k","p50_ms","p95_ms"}],"config"}`. */
export function batchReportJson(report: BatchSearchReport): Record<string, unknown> {
  const round = (x: number): number => Math.round(x * 10000) / 10000;
  return {
    dataset: report.dataset,
    total: report.total,
    judged: report.judged,
    skipped: report.skipped,
    k: report.k,
    modes: report.modes.map((m) => ({
      mode: m.mode,
      recall: m.scores ? { '1': round(m.scores.recall['1']), '5': round(m.scores.recall['5']), '10': round(m.scores.recall['10']) } : null,
      mrr10: m.scores ? round(m.scores.mrr10) : null,
      ndcg10: m.scores ? round(m.scores.ndcg10) : null,
      r4k: m.scores ? round(m.scores.recallBudget) : null,
      p50_ms: round(m.p50Ms),
      p95_ms: round(m.p95Ms),
      run_file: m.runFile,
    })),
    config: report.config,
  };
}

/**
 * `search --queries`: runs every query of a file in each mode with the same retriever `search` and `ask` use,
 * writes one TREC run file per mode, and, when the file has gold strings, judges the rankings (Recall@1/5/10,
 * MRR@10, nDCG@10, R@4k: see retrieval-metrics.ts). Latency is timed per query around the retrieval call.
 */
export async function runBatchSearch(options: RunBatchSearchOptions): Promise<BatchSearchReport> {
  const k = options.k ?? 10;
  if (options.modes.length === 0) throw new UserError('search --queries needs at least one mode');
  const loaded = await loadQueries(options.file);
  const retriever = options.retriever ?? (await openRetriever({ root: options.root, config: options.config }));
  const name = path.basename(options.file).replace(/\.[^.]+$/, '');
  const modes: BatchModeResult[] = [];
  try {
    for (const mode of options.modes) {
      const times: number[] = [];
      const judged: JudgedQuery[] = [];
      const lines: string[] = [];
      let done = 0;
      for (const q of loaded.queries) {
        const t0 = performance.now();
        const hits = await retriever.search(q.query, { mode, k });
        times.push(performance.now() - t0);
        hits.forEach((h, i) => lines.push(trecRunLine(q.id, h.chunk.chunk_id, i + 1, h.score, `exam-copilot-${mode}`)));
        if (q.relevant && q.relevant.length > 0) {
          judged.push(await judgeWithBudget(retriever, q.query, mode, k, hits, q.relevant));
        }
        options.onProgress?.(mode, ++done, loaded.queries.length);
      }
      let runFile: string | null = null;
      if (options.runDir !== undefined) {
        runFile = path.join(options.runDir, `${name}.${mode}.trec`);
        writeFileAtomic(runFile, lines.map((l) => l + '\n').join(''));
      }
      modes.push({
        mode,
        scores: judged.length > 0 ? retrievalScores(judged) : null,
        p50Ms: percentile(times, 0.5),
        p95Ms: percentile(times, 0.95),
        runFile,
      });
    }
  } finally {
    if (!options.retriever) retriever.close();
  }
  const { retrieval } = options.config;
  const report: BatchSearchReport = {
    dataset: options.file,
    format: loaded.format,
    encoding: loaded.encoding,
    total: loaded.queries.length,
    judged: loaded.queries.filter((q) => q.relevant && q.relevant.length > 0).length,
    skipped: loaded.skipped,
    k,
    modes,
    warnings: loaded.warnings,
    config: {
      embedder: retriever.embedderId,
      vector_backend: retriever.vectorBackend,
      rrf_k: retrieval.rrfK,
      weights: { ...retrieval.weights },
      depth: retrieval.depth,
      keyword_depth: retrieval.keywordDepth,
      phrase_weight: retrieval.phraseWeight,
      budget_chars: EVIDENCE_BUDGET_CHARS,
    },
    reportJson: options.reportJson ?? null,
  };
  if (options.reportJson !== undefined) writeFileAtomic(options.reportJson, JSON.stringify(batchReportJson(report), null, 2) + '\n');
  return report;
}

/**
 * The judgment with R@4k read from a deeper ranking when the k hits hold less than the budget of text
 * (small units): the ranks 1..k are the timed search's, the budget is filled from the same ranking deeper.
 * Not timed, so latency stays that of a k-hit search.
 */
async function judgeWithBudget(
  retriever: Retriever,
  query: string,
  mode: RetrievalMode,
  k: number,
  hits: readonly Hit[],
  gold: readonly string[],
): Promise<JudgedQuery> {
  const atK = judgeRanking(
    hits.map((h) => h.chunk.text),
    gold,
  );
  const chars = hits.reduce((s, h) => s + h.chunk.text.length, 0);
  if (atK.budgetHit || chars >= EVIDENCE_BUDGET_CHARS || hits.length < k) return atK;
  const deeper = await retriever.search(query, { mode, k: BUDGET_MAX_HITS });
  return {
    ...atK,
    budgetHit: judgeRanking(
      deeper.map((h) => h.chunk.text),
      gold,
    ).budgetHit,
  };
}

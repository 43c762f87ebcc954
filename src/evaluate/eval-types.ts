import type { ConfidenceWords } from '../answer/answer-json.js';
import type { AnswerMode, Fallback, QuestionKind, VerdictKind } from '../answer/answer-types.js';
import type { ChunkLocation, ChunkType, Warning } from '../types.js';

/** What a question tests: body text or a figure/table. */
export type QuestionType = 'text' | 'table';

/** Where the validation set says the answer is printed (all optional). */
export interface GoldEvidence {
  book?: string;
  chapter?: string;
  section?: string;
  page?: string;
  figure_ref?: string;
}

/** One valid question of a validation set, after column mapping and checks. */
export interface EvalRow {
  /** The row's id column, else the unnamed index column, else `L<line>`. */
  id: string;
  /** 1-based line of the file (CSV) or sheet row (XLSX) where the row starts, for messages. */
  line: number;
  /** The stem (question text) as given. */
  question: string;
  /** Options in letter order (at least two). */
  options: { letter: string; text: string }[];
  /** Gold letters, uppercase and sorted (`B`, `ACD`). */
  answer: string;
  /** From the type column; null when absent or unrecognised. */
  type: QuestionType | null;
  /** Null when the file has no gold-evidence columns or the row leaves them empty. */
  gold: GoldEvidence | null;
}

/** A validation set read from disk: valid rows plus one warning per skipped row. */
/** The kinds of bad validation rows, each a warning with file and line. */
export type RowIssue = 'empty_question' | 'too_few_options' | 'no_answer' | 'answer_not_an_option' | 'duplicate_id';

/** How many rows had each kind of problem (kinds that did not occur are absent). */
export type RowIssueCounts = Partial<Record<RowIssue, number>>;

export interface LoadedDataset {
  file: string;
  format: 'csv' | 'xlsx';
  /** Detected text encoding of a CSV (`utf-8`, `utf-8-bom`, `gb18030`, `utf-16le`), or `xlsx`. */
  encoding: string;
  rows: EvalRow[];
  /** Bad rows (line numbers in `where`) and file-level notes. */
  warnings: Warning[];
  /** Number of data rows skipped as invalid (each has a warning). */
  skipped: number;
  /** Bad rows by kind (each also a warning naming file and line); a duplicate id is counted but its row is kept. */
  issues: RowIssueCounts;
  /** Canonical column name → the header as found, for the report. */
  columns: Record<string, string>;
}

/** One retrieved or cited piece of evidence, as stored in a run file. */
export interface EvidenceRef extends ChunkLocation {
  chunk_type: ChunkType | null;
  /** The quote shown with a cited item, with the matched terms' ranges (absent for retrieved context). */
  quote?: string;
  highlights?: Array<[number, number]>;
}

/**
 * What the answer found about one option (or one Ⅰ/Ⅱ… statement) of a question, compactly as a run file keeps it: the
 * verdict, and for a verdict other than `not_found` the clause that settles it and where it is printed.
 */
export interface RecordVerdict {
  /** The option's letter (`A`) or the statement's label (`Ⅱ`). */
  label: string;
  /** Set (to `statement`) only for a statement of a combination question; options are the default. */
  target?: 'statement';
  /** A statement's own text (an option's text is in the record's `options`). */
  text?: string;
  verdict: VerdictKind;
  /** Why, in a few words, where the quote alone does not say it. */
  reason?: string;
  /** Ruled out by the clause stating another option in the stem's place (`OptionVerdict.inferred`). */
  inferred?: true;
  /** The settling clause, verbatim from the passage, and its citation (`book | headings | p.N`). */
  quote?: string;
  citation?: string;
  chunk_id?: string;
}

/** One finished question in one mode: one line of `<runDir>/<dataset-stem>.<mode>.jsonl`. */
export interface RunRecord {
  id: string;
  mode: AnswerMode;
  /** Hash of the dataset row and the answerer configuration; resume only reuses records whose fingerprint matches. */
  fingerprint: string;
  answerer: 'offline' | 'llm';
  question: string;
  /** The options as asked, in letter order (absent in run files written before reports showed them). */
  options?: { letter: string; text: string }[];
  /** How the question was read: its kind and whether the stem asks for the incorrect choice (absent in older run files). */
  kind?: QuestionKind;
  negated?: boolean;
  predicted: string;
  gold: string;
  /** True only for a non-fallback answer equal to the gold letters. */
  correct: boolean;
  fallback: Fallback;
  message: string | null;
  confidence: number;
  /** The confidence in words, as `ask` prints it (high / medium / low / guess / unsupported); absent in older run files. */
  confidence_words?: ConfidenceWords;
  /** When the answerer abstained: its best letters (the confidence is theirs); null otherwise. Absent in older run files. */
  guess?: string | null;
  /** LLM answerer: the confidence the LLM stated, before any cap; null otherwise. */
  stated_confidence?: number | null;
  /** Question type from the dataset, else from the top retrieved chunk, else null. */
  type: QuestionType | null;
  /** Whether `type` came from the dataset or was inferred from the top evidence. */
  type_source: 'dataset' | 'evidence' | null;
  gold_evidence: GoldEvidence | null;
  /** The evidence the answer cites. */
  evidence: EvidenceRef[];
  /** The verdict on each option, in order (absent in older run files and for answers without verdicts). */
  verdicts?: RecordVerdict[];
  /** The top-K retrieved context, in rank order (for Evidence Hit Rate@K). */
  retrieved: EvidenceRef[];
  latency_ms: number;
  tokens: { prompt: number; completion: number } | null;
  /** ISO time the record was written. */
  finished_at: string;
}

/** Accuracy and count for one question type. */
export interface TypeBreakdown {
  total: number;
  correct: number;
  accuracy: number | null;
}

/** One bin of the reliability diagram (10 equal-width confidence bins). */
export interface ReliabilityBin {
  lo: number;
  hi: number;
  count: number;
  /** Mean confidence of the bin, null when empty. */
  confidence: number | null;
  accuracy: number | null;
}

/** Metrics of one mode, computed from its run file. */
export interface ModeReport {
  mode: AnswerMode;
  answerer: 'offline' | 'llm';
  total: number;
  accuracy: number;
  /** Wilson score interval at 95%. */
  ci95: [number, number];
  correct: number;
  /** Wrong answers, including fallback answers. */
  incorrect: number;
  /** No answer given (empty prediction). */
  abstained: number;
  /** Share of questions with gold evidence whose gold location is among the top-K retrieved chunks; null without gold evidence. */
  evidence_hit_rate: number | null;
  evidence_hit_k: number;
  /** Number of questions the hit rate is computed over. */
  evidence_gold_count: number;
  by_type: Partial<Record<QuestionType, TypeBreakdown>>;
  /** Brier, ECE and reliability are over the letter each answer's confidence is about (the guess when it abstained). */
  brier: number;
  ece: number;
  reliability: ReliabilityBin[];
  /** Accuracy of the most confident 25/50/75/100% of the questions (abstentions ranked with their guess). */
  selective_accuracy: { coverage: number; accuracy: number | null }[];
  /** Area under the risk–coverage curve (mean selective risk over k = 1…N; lower is better). */
  aurc: number;
  /** The risk–coverage curve, at most ~100 points, for plotting. */
  risk_coverage: { coverage: number; risk: number }[];
  /** LLM answerer: calibration of the confidence the LLM stated (null when no record has one). */
  stated_calibration: { count: number; brier: number; ece: number } | null;
  latency_ms: { p50: number; p95: number };
  tokens: { prompt: number; completion: number } | null;
  /** Every fallback answer (counted incorrect or abstained), so none goes unnoticed. */
  fallbacks: { id: string; fallback: string; message: string | null }[];
  run_file: string;
  /** Questions answered in this invocation vs. reused from the run file by `--resume`. */
  answered_now: number;
  resumed: number;
}

/** McNemar's exact test between two modes over the questions both answered. */
export interface ModeComparison {
  a: AnswerMode;
  b: AnswerMode;
  /** Questions both modes answered. */
  n: number;
  /** a correct, b wrong. */
  a_only: number;
  /** a wrong, b correct. */
  b_only: number;
  p_value: number;
  /** Which mode is better at the 5% level, or `within noise`. */
  verdict: AnswerMode | 'within noise';
}

/** A mode that was asked for (or would run by default) but could not. */
export interface SkippedMode {
  mode: AnswerMode;
  reason: string;
}

/** Everything `eval` produced: metrics per mode, comparisons, and the per-question records behind them. */
export interface EvalReport {
  dataset: string;
  total: number;
  skipped: number;
  /** Bad rows by kind, as `LoadedDataset.issues`. */
  row_issues: RowIssueCounts;
  warnings: { where: string; message: string }[];
  modes: ModeReport[];
  skipped_modes: SkippedMode[];
  comparisons: ModeComparison[];
  config: {
    answerer: 'offline' | 'llm';
    llm_model: string | null;
    embedder: string;
    top_k: number;
    limit: number | null;
    sample: number | null;
    seed: number | null;
    concurrency: number;
    resume: boolean;
    run_dir: string;
    encoding: string;
  };
  /** Wall time of this invocation in ms. */
  wall_ms: number;
  /** Per-question records, by mode (not part of the JSON report; used by JUnit, predictions and HTML). */
  records: Partial<Record<AnswerMode, RunRecord[]>>;
}

/** Progress events for the spinner. */
export interface EvalProgress {
  phase: 'open' | 'mode-start' | 'row' | 'mode-done';
  mode?: AnswerMode;
  /** Rows finished in the whole run (all modes). */
  done: number;
  total: number;
  /** Running correct/done per mode. */
  perMode: Partial<Record<AnswerMode, { done: number; correct: number }>>;
  elapsedMs: number;
  /** Estimated ms left, null until something was answered in this run. */
  etaMs: number | null;
}

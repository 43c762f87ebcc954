import type { RetrievalMode } from '../retrieve/retriever.js';
import type { ChunkLocation, Hit } from '../types.js';
import type { CalibrationFeatures } from './calibration.js';

/** What kind of question the stem and options make. */
export type QuestionKind = 'single' | 'multi' | 'judge' | 'combination' | 'open';

export interface QuestionOption {
  /** `A`…`H` (judge questions use `A` = 正确 / `B` = 错误). */
  letter: string;
  text: string;
}

/** A roman-numeral statement (Ⅰ、Ⅱ…) listed in the stem of a combination question. */
export interface Statement {
  label: string;
  text: string;
}

export interface ParsedQuestion {
  /** The text as the user gave it. */
  raw: string;
  /** The stem without the options (and without the listed statements for combination questions). */
  stem: string;
  options: QuestionOption[];
  kind: QuestionKind;
  /** The stem asks for the incorrect / excluded choice (不正确, 错误, 不属于, 除外, 不包括, not, except). */
  negated: boolean;
  statements: Statement[];
}

/** Answer mode: `baseline` is the LLM alone with no retrieval; the others name the retrieval used. */
export type AnswerMode = 'baseline' | 'agent' | RetrievalMode;
/** Evidence passages an answer reads per query unless told otherwise (`--top-k` of ask, answer, eval and serve). */
export const EVIDENCE_TOP_K = 8;

export const ANSWER_MODES: readonly AnswerMode[] = ['baseline', 'keyword', 'vector', 'hybrid'];
/** What `eval --modes` accepts: the answer modes plus `agent` (the LLM reading with tools; run only when asked for). */
export const EVAL_MODES: readonly AnswerMode[] = [...ANSWER_MODES, 'agent'];

/** One cited piece of evidence, as shown to the user (`book | chapter | section | figure | p.N`). */
export interface EvidenceItem extends ChunkLocation {
  /** The whole sentence (or clause group) holding the matched words, about 30–200 characters. */
  quote: string;
  /** Character ranges `[start, end)` of `quote` holding the matched option terms (marked `**…**` / `<mark>`). */
  highlights?: Array<[number, number]>;
  /**
   * Set when the passage reads like an instruction to the reader (ignore the rules, the answer is D, confidence 1.0):
   * why, in a few words (`findInstruction`). Such text in a textbook is planted; an answer resting on it is not trusted.
   */
  suspicious?: string;
}

/** What the passages the answerer read say of one option or statement. */
export type VerdictKind = 'supported' | 'contradicted' | 'not_found';

/**
 * The verdict on one option (or one Ⅰ/Ⅱ/Ⅲ/Ⅳ statement of a combination question), with the clause that settles it.
 * `evidence` is set exactly when `verdict` is not `not_found`: a verdict is never given without a passage.
 */
export interface OptionVerdict {
  /** The option's letter (`A`) or the statement's label (`Ⅱ`). */
  label: string;
  /** Whether `label` names an option or a statement of the stem. */
  target: 'option' | 'statement';
  /** The option's (or statement's) own text. */
  text: string;
  verdict: VerdictKind;
  /**
   * The clause that settles it: whole sentences verbatim from a passage the answerer read (with the list lead when the
   * clause is a list item), its citation parts, chunk id and the quote's own pages.
   */
  evidence?: EvidenceItem;
  /** Why, in a few words (`数字不同：三十日 ≠ 60日`, `主体不同：基金托管人`, `否定`), where the quote alone does not say it. */
  reason?: string;
  /**
   * Ruled out by the clause that states another option in the stem's place, not by a clause about this option's own
   * words (`教材此处为：…`, single-choice only). Explains why the option is wrong; the letter and its confidence weigh it
   * as `not_found`, since it adds nothing to what the stated option's clause already says.
   */
  inferred?: true;
}

/** The verdict an option's own clauses give it: an `inferred` one weighs as `not_found` in the letter and its confidence. */
export function ownVerdict(v: OptionVerdict): VerdictKind {
  return v.inferred ? 'not_found' : v.verdict;
}

/**
 * Why the answer is not a normal evidence-backed one:
 * `no_evidence` nothing relevant was retrieved (未在教材中找到明确依据); `off_topic` the question is outside the indexed books
 * (与本知识库内容不符，无法回答); `conflict` the evidence disagrees (competing sources named in `message`);
 * `llm_failed` the LLM failed (or was not called after repeated failures) and the offline answer is shown instead;
 * `unsupported` the LLM answered without citing any evidence it was shown, so its answer is unbacked (confidence <= 0.25, shown as `unsupported`);
 * `agent_failed` the agent (`ask --agent`) gave no usable answer and the one-shot LLM pipeline answered instead.
 */
export type Fallback = 'no_evidence' | 'off_topic' | 'conflict' | 'llm_failed' | 'unsupported' | 'agent_failed' | null;

export interface AnswerResult {
  question: ParsedQuestion;
  /** Letters in order (`B`, `ABD`), or empty when no answer is given (open questions, off-topic). */
  answer: string;
  /** 0–1: the probability that `answer` (or `guess`) is right; calibrated for the offline answerer. */
  confidence: number;
  evidence: EvidenceItem[];
  mode: AnswerMode;
  answerer: 'offline' | 'llm';
  fallback: Fallback;
  /** Human-readable note for fallbacks (e.g. the LLM error, the competing sources). */
  message?: string;
  /**
   * One verdict per option (and per statement of a combination question), in order: why each is right or wrong, with
   * the clause that settles it. Absent only in results written before verdicts existed.
   */
  verdicts?: OptionVerdict[];
  /** Set when the letter disagrees with the verdicts of its own evidence (said in `message`, confidence lowered). */
  verdictConflict?: boolean;
  /** Per-option support scores of the offline answerer (for transparency and eval). */
  optionScores?: Record<string, number>;
  /** The reranked context the answer was produced from (for `--show-context`). */
  context: Hit[];
  latencyMs: number;
  usage?: { promptTokens: number; completionTokens: number };
  /**
   * Set when the answerer found no option supported beyond chance: its best letter and that letter's (low)
   * calibrated confidence. `answer` is empty then, unless a letter was asked for anyway (`--guess`).
   */
  guess?: { answer: string; confidence: number };
  /** Offline answerer: the measurements the confidence was calibrated from (for fitting and eval). */
  calibration?: CalibrationFeatures;
  /** LLM answerer: the confidence the LLM stated, before any cap (its calibration is reported by eval). */
  statedConfidence?: number;
  /** Non-fatal problems met while answering (cited evidence ids that were not shown, a repaired reply, a failed rerank). */
  warnings?: string[];
}

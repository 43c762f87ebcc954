import type { Retriever } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import type { AnswerMode } from './answer-types.js';
import type { CorpusStats } from './corpus-stats.js';
import type { LlmClient } from './llm-client.js';
import type { PassageCache } from './passage-cache.js';
import type { PromptSet } from './prompt-templates.js';

/** What `answerQuestion` needs; shared by `ask` and `eval` (the LLM client may be shared across concurrent calls). */
export interface AnswerDeps {
  /** Null only for baseline mode. */
  retriever: Retriever | null;
  llm: LlmClient | null;
  answerer: 'offline' | 'llm';
  mode: AnswerMode;
  /** Evidence passages shown / used per query. */
  topK: number;
  /** Count units of article text shorter than this as their share of a passage (`RetrieveOptions.unitChars`). */
  unitChars?: number;
  /** LLM answerer: rerank the candidates with the LLM before answering. */
  rerank: boolean;
  /** Loaded prompts, or the folder holding them (`projectPaths(root).prompts`). */
  prompts: PromptSet | string;
  /**
   * The analyzer the index was built with (user dictionary included). Required: a default analyzer without the
   * user dictionary would cut queries differently from the index, silently.
   */
  analyzer: Analyzer;
  /**
   * Statistics of `retriever.chunks` under `analyzer` (`buildCorpusStats`). Callers answering many questions
   * build them once and pass them (`createAnswerer` does); without them each call builds its own.
   */
  stats?: CorpusStats;
  /** Candidates recalled before the LLM rerank (default max(20, 3 × topK)). */
  rerankDepth?: number;
  /** The exam the prompts name (`exam.name`); default 基金从业资格. */
  examName?: string;
  /** The LLM time budget of one question (default the client's `deadlineMs`). */
  deadlineMs?: number;
  /** Offline answerer: abstain below this calibrated confidence (config `answer.abstainBelow`). */
  abstainBelow?: number;
  /** Offline answerer: always give a letter, marked as a guess when below the threshold (`--guess`). */
  guess?: boolean;
  /** Offline answerer: passages already cut into windows, shared across questions (`createPassageCache`). */
  passages?: PassageCache;
}

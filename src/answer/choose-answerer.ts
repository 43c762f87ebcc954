import type { ExamCopilotConfig } from '../config/load-config.js';
import { NotReadyError } from '../errors.js';

/** Who answers: the retrieval-based offline answerer, or the configured LLM. */
export type AnswererKind = 'offline' | 'llm';

/** The one-line reason `--answerer llm` cannot run, shared by `ask` and `eval` (exit 5, not ready). */
export const NEEDS_LLM_MESSAGE =
  '--answerer llm needs an LLM endpoint: set EXAM_COPILOT_LLM_MODEL (and EXAM_COPILOT_LLM_BASE_URL / EXAM_COPILOT_LLM_API_KEY) or use --answerer offline';

/** Which answerer runs: the requested one, else the LLM when configured. Throws `NotReadyError` when the LLM is asked for but not configured. */
export function chooseAnswerer(config: ExamCopilotConfig, requested: AnswererKind | undefined): AnswererKind {
  const answerer = requested ?? (config.llm ? 'llm' : 'offline');
  if (answerer === 'llm' && !config.llm) throw new NotReadyError(NEEDS_LLM_MESSAGE);
  return answerer;
}

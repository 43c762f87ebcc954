import assert from 'node:assert/strict';
import type { AnswerResult, OptionVerdict } from '../../src/answer/answer-types.js';
import { runAsk } from '../../src/answer/run-ask.js';
import { loadConfig } from '../../src/config/load-config.js';

/** One question asked of an ingested root as `ask` does by default: hybrid, top 8, no reranking, no cache. */
export async function askOffline(root: string, question: string): Promise<AnswerResult> {
  const { config } = loadConfig({ root, env: {} });
  const { result } = await runAsk({ root, config, mode: 'hybrid', topK: 8, rerank: false, cache: false, showContext: false, question });
  return result;
}

/** The verdict of the option or statement with this label; fails the test when there is none. */
export function verdictOf(result: AnswerResult, label: string): OptionVerdict {
  const v = result.verdicts?.find((x) => x.label === label);
  assert.ok(v, `a verdict for ${label}`);
  return v;
}

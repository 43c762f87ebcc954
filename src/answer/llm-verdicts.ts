import { z } from 'zod';
import type { Chunk } from '../types.js';
import type { OptionVerdict, ParsedQuestion, VerdictKind } from './answer-types.js';
import { verbatimEvidence } from './evidence.js';

/**
 * An LLM's per-option verdicts, checked the way its citations are: each verdict that says `supported` or
 * `contradicted` must cite a passage the model was shown and quote it verbatim (compared after NFKC, whitespace
 * aside); anything else is dropped to `not_found` and counted in one warning. Every option (and statement of a
 * combination question) gets an entry, in order.
 */

/** One verdict as the model writes it (ids are numbers in the one-shot prompt, chunk ids for the agent). */
export const rawVerdictSchema = z.object({
  label: z.coerce.string(),
  verdict: z.enum(['supported', 'contradicted', 'not_found']).catch('not_found'),
  evidence_id: z.union([z.number(), z.string(), z.null()]).optional().catch(undefined),
  quote: z.string().catch('').default(''),
  reason: z.string().catch('').default(''),
});
export type RawVerdict = z.infer<typeof rawVerdictSchema>;

/** The `verdicts` field of a reply: a list whose unreadable entries are skipped rather than failing the reply. */
export const rawVerdictsSchema = z
  .array(rawVerdictSchema.nullable().catch(null))
  .catch([])
  .default([])
  .transform((list) => list.filter((v): v is RawVerdict => v !== null));

/** The JSON schema of `verdicts` for structured output (strict mode: every property required). */
export const VERDICTS_JSON_SCHEMA: Record<string, unknown> = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      label: { type: 'string', description: 'option letter, or statement label (Ⅰ, Ⅱ…)' },
      verdict: { type: 'string', enum: ['supported', 'contradicted', 'not_found'] },
      evidence_id: { type: ['integer', 'null'], description: 'the evidence number the verdict rests on; null for not_found' },
      quote: { type: 'string', description: 'whole sentences copied verbatim from that evidence; "" for not_found' },
      reason: { type: 'string' },
    },
    required: ['label', 'verdict', 'evidence_id', 'quote', 'reason'],
    additionalProperties: false,
  },
};

/** Longest reason kept: a few words, as the verdict type asks. */
const MAX_REASON_CHARS = 80;

/** A label compared loosely: NFKC (Ⅱ → II), upper case, without a trailing `.`/`、`. */
function labelKey(label: string): string {
  return label
    .normalize('NFKC')
    .trim()
    .replace(/[.、:：)）]$/u, '')
    .replace(/^[(（]/u, '')
    .toUpperCase();
}

/** What the checks found: the verdicts, one per option and statement, and a warning when some were dropped. */
export interface CheckedVerdicts {
  verdicts: OptionVerdict[];
  warning?: string;
}

/**
 * Checks the model's verdicts against the question and the passages it was shown. `shown(id)` returns the chunk a
 * cited id names, or undefined when that id was not shown (invented, or never returned by a tool). A verdict that
 * cites nothing, an id that was not shown, or a quote that is not verbatim in the cited passage becomes `not_found`
 * with no evidence. Verdicts on labels the question does not have are ignored; missing ones are `not_found`.
 */
export function checkVerdicts(
  question: ParsedQuestion,
  raw: readonly RawVerdict[],
  shown: (id: string) => Chunk | undefined,
): CheckedVerdicts {
  const byLabel = new Map<string, RawVerdict>();
  for (const v of raw) {
    const key = labelKey(v.label);
    if (!byLabel.has(key)) byLabel.set(key, v);
  }
  const targets = [
    ...question.options.map((o) => ({ label: o.letter, target: 'option' as const, text: o.text })),
    ...question.statements.map((s) => ({ label: s.label, target: 'statement' as const, text: s.text })),
  ];
  let unshown = 0;
  let notVerbatim = 0;
  let uncited = 0;
  const verdicts = targets.map((t): OptionVerdict => {
    const v = byLabel.get(labelKey(t.label));
    const base = { label: t.label, target: t.target, text: t.text };
    const notFound: OptionVerdict = { ...base, verdict: 'not_found' };
    if (!v) return notFound;
    const reason = v.reason.trim().slice(0, MAX_REASON_CHARS);
    if (v.verdict === 'not_found') return reason ? { ...notFound, reason } : notFound;
    const id = v.evidence_id === undefined || v.evidence_id === null ? '' : String(v.evidence_id).trim();
    if (id === '' || v.quote.trim() === '') {
      uncited++;
      return notFound;
    }
    const chunk = shown(id);
    if (!chunk) {
      unshown++;
      return notFound;
    }
    const evidence = verbatimEvidence(chunk, v.quote);
    if (!evidence) {
      notVerbatim++;
      return notFound;
    }
    const kind: VerdictKind = v.verdict;
    return { ...base, verdict: kind, evidence, ...(reason ? { reason } : {}) };
  });
  const dropped = unshown + notVerbatim + uncited;
  if (dropped === 0) return { verdicts };
  const why = [
    unshown > 0 ? `${unshown} cited evidence that was not shown` : '',
    notVerbatim > 0 ? `${notVerbatim} quoted text not found verbatim in the cited passage` : '',
    uncited > 0 ? `${uncited} cited no passage or quote` : '',
  ].filter((s) => s !== '');
  return {
    verdicts,
    warning: `${dropped} of the LLM's option verdicts ${dropped === 1 ? 'was' : 'were'} dropped to not_found (${why.join('; ')})`,
  };
}

/** Every option and statement with `not_found`: the verdicts of a reply that gave none (baseline, a repaired reply). */
export function noVerdicts(question: ParsedQuestion): OptionVerdict[] {
  return checkVerdicts(question, [], () => undefined).verdicts;
}

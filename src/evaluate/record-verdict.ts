import type { OptionVerdict } from '../answer/answer-types.js';
import { formatCitation } from '../text/citation.js';
import type { RecordVerdict } from './eval-types.js';

/**
 * An answer's verdict on one option as a run file keeps it: the verdict, the reason, the settling quote and its citation
 * line, without the evidence's location fields (the citation says where; the chunk id finds the passage again).
 */
export function recordVerdict(v: OptionVerdict): RecordVerdict {
  return {
    label: v.label,
    ...(v.target === 'statement' ? { target: 'statement' as const, text: v.text } : {}),
    verdict: v.verdict,
    ...(v.reason ? { reason: v.reason } : {}),
    ...(v.inferred ? { inferred: true as const } : {}),
    ...(v.evidence ? { quote: v.evidence.quote, citation: formatCitation(v.evidence), chunk_id: v.evidence.chunk_id } : {}),
  };
}

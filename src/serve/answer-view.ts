import { confidenceWords } from '../answer/answer-json.js';
import type { AnswerResult, EvidenceItem } from '../answer/answer-types.js';
import { formatCitation, formatPages } from '../text/citation.js';
import type { Chunk } from '../types.js';
import type { AnswerView, EvidenceCard } from './html-pages.js';
import type { ServedSource } from './served-files.js';
import { viewHref } from './view-pages.js';

/** What building the answer page needs besides the result: the chunks (for the viewer links) and the sources shown. */
export interface AnswerViewLookup {
  chunk(id: string): Promise<Chunk | undefined>;
  sources: readonly ServedSource[];
}

/** An evidence item as a card: the CLI's citation, the quote's pages, and the link to the quote's page. */
async function evidenceCard(e: EvidenceItem, lookup: AnswerViewLookup): Promise<EvidenceCard> {
  const chunk = await lookup.chunk(e.chunk_id);
  return {
    citation: formatCitation({ ...e, page_start: '', page_end: '' }),
    pages: formatPages(e.page_start, e.page_end),
    ...(e.suspicious ? { suspicious: e.suspicious } : {}),
    quote: e.quote,
    ...(e.highlights ? { highlights: e.highlights } : {}),
    href: viewHref(chunk, lookup.sources, e.quote),
  };
}

/** What the answer page shows of a result: the options, the answer and guess, each option's verdict, the evidence. */
export async function answerView(r: AnswerResult, lookup: AnswerViewLookup): Promise<AnswerView> {
  const evidence = await Promise.all(r.evidence.map((e) => evidenceCard(e, lookup)));
  const verdicts = await Promise.all(
    (r.verdicts ?? []).map(async (v) => ({
      label: v.label,
      text: v.text,
      verdict: v.verdict,
      ...(v.reason ? { reason: v.reason } : {}),
      evidence: v.evidence ? await evidenceCard(v.evidence, lookup) : null,
    })),
  );
  return {
    stem: r.question.options.length > 0 ? r.question.stem : r.question.raw,
    options: r.question.options,
    statements: r.question.statements,
    answer: r.answer,
    confidence: r.confidence,
    words: confidenceWords(r),
    negated: r.question.negated,
    ...(r.guess && r.answer === '' ? { guess: r.guess.answer } : {}),
    fallback: r.fallback,
    ...(r.message ? { message: r.message } : {}),
    evidence,
    verdicts,
  };
}

import type { RowIssue, RowIssueCounts } from './eval-types.js';

const ISSUE_WORDS: Record<RowIssue, string> = {
  empty_question: 'empty question',
  too_few_options: 'fewer than 2 options',
  no_answer: 'no answer',
  answer_not_an_option: 'answer not among the options',
  duplicate_id: 'duplicate id',
};

/** `empty question 1, duplicate id 2`: the counts of bad rows for a report line; '' when there were none. */
export function rowIssueSummary(issues: RowIssueCounts): string {
  return (Object.keys(ISSUE_WORDS) as RowIssue[])
    .filter((k) => (issues[k] ?? 0) > 0)
    .map((k) => `${ISSUE_WORDS[k]} ${issues[k] ?? 0}`)
    .join(', ');
}

import type { OptionVerdict } from './answer-types.js';
import { exactForm } from './claim-forms.js';
import { ON_QUESTION } from './reading-order.js';

/** What {@link statedInPlace} knows of each option besides its verdict. */
export interface PlaceCandidate {
  /**
   * How much of the stem's weighted words the clause its verdict came from holds with its passage's headings (a note's
   * line states its heading's subject: 投资期限：通常3-7年 under 私募股权投资基金), 0–1; null when not found.
   */
  coverage: number | null;
  /** Whether the option fills the stem's blank as a name or value (not a statement of its own, not 以上都是). */
  fills: boolean;
  /** The option's exact forms (its text and aliases), to tell whether a clause names it. */
  forms: readonly string[];
  /** The option says all the others hold (以上都是, 全部以上选项): the question allows more than one of them to. */
  covers: boolean;
  /**
   * The clause its verdict came from is one item of a list under a lead (（一）…年度报告 beside （二）…中期报告), other
   * than the band of a schedule the question's amount or period falls in.
   */
  listItem: boolean;
}

/**
 * One option fills a single-choice blank, so the clause that states one option where the question's words are answers
 * the question for every option: each other option no clause settles is ruled out by it (`教材此处为：每个开放日的次日`
 * for 每周最后一个工作日), quoted as that clause and marked `inferred`. Only when exactly one option is supported, by a
 * clause holding at least half of the stem's weighted words with its headings (it is about what is asked, not a clause
 * that happens to name the option), and only for options the clause does not name and that neither hold the stated
 * option nor are held by it (基金管理人和基金托管人 beside 基金管理人 is not ruled out by a clause naming 基金管理人).
 * Never where an option covers the others (以上都是), nor from an item of a list. A non-negated stem only: the caller
 * passes single-choice, non-negated questions whose options fill the stem.
 */
export function statedInPlace(verdicts: readonly OptionVerdict[], candidates: readonly PlaceCandidate[]): OptionVerdict[] {
  // 以上都是 among the options says several may fill the blank: one stated says nothing of the others.
  if (candidates.some((c) => c.covers)) return [...verdicts];
  const supported = verdicts.flatMap((v, i) => (v.verdict === 'supported' ? [i] : []));
  if (supported.length !== 1) return [...verdicts];
  const at = supported[0] as number;
  const stated = verdicts[at];
  const source = candidates[at];
  if (!stated?.evidence || !source?.fills || source.coverage === null || source.coverage < ON_QUESTION) return [...verdicts];
  // An item of a list states one of its items, and the other items may state the other options: the list's other
  // items are not read here, so the item rules nothing out.
  if (source.listItem) return [...verdicts];
  const clause = exactForm(stated.evidence.quote);
  const statedForm = exactForm(stated.text);
  // A clause listing the stated option among other things (可以投资于现金、中央银行票据和同业存单) places it without
  // saying the list is whole: it rules nothing out.
  if (inList(clause, statedForm)) return [...verdicts];
  return verdicts.map((v, i) => {
    const c = candidates[i];
    if (i === at || v.verdict !== 'not_found' || !c?.fills || c.forms.length === 0) return v;
    const own = exactForm(v.text);
    if (own === '' || own.includes(statedForm) || statedForm.includes(own)) return v;
    if (c.forms.some((form) => form !== '' && clause.includes(form))) return v;
    return {
      ...v,
      verdict: 'contradicted' as const,
      evidence: stated.evidence,
      reason: `教材此处为：${stated.text}`,
      inferred: true as const,
    };
  });
}

/** Words that join the items of a list (、 和 及 或 与) and 等 that ends one. */
const LIST_JOINERS = new Set([...'、和及或与等']);

/** Whether `form` stands in `clause` as an item of a list: joined to a neighbour on either side, wherever it occurs. */
function inList(clause: string, form: string): boolean {
  if (form === '') return false;
  for (let at = clause.indexOf(form); at >= 0; at = clause.indexOf(form, at + 1)) {
    const before = clause[at - 1] ?? '';
    const after = clause[at + form.length] ?? '';
    if (LIST_JOINERS.has(before) || LIST_JOINERS.has(after)) return true;
  }
  return false;
}

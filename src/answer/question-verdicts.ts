import { ownVerdict, type OptionVerdict, type ParsedQuestion, type VerdictKind } from './answer-types.js';
import { decidingKinds, withCoveringVerdicts } from './covering-options.js';
import { coveringOf, statementsInOption } from './parse-question.js';

const JUDGE_TRUE = /^(正确|对|是|√|✓|true|t)$/iu;

/**
 * The verdicts shown for a question: one per option, in order, and for a combination question first one per
 * statement. An option of a combination question is `supported` when every statement it names is supported and every
 * other one contradicted, `contradicted` when it names a contradicted statement or leaves out a supported one, with
 * the clause of that statement; a true/false question's 正确 takes the statement's verdict and 错误 its opposite. An
 * option speaking of the others (以上都是) takes its verdict from theirs ({@link withCoveringVerdicts}).
 */
export function questionVerdicts(question: ParsedQuestion, claims: readonly OptionVerdict[]): OptionVerdict[] {
  if (question.kind === 'combination') {
    const byLabel = new Map(claims.map((v) => [v.label, v]));
    const options = question.options.map((o): OptionVerdict => {
      const named = new Set(statementsInOption(o.text, question.statements));
      const wrong = question.statements.find((st) => {
        const v = byLabel.get(st.label)?.verdict;
        return named.has(st.label) ? v === 'contradicted' : v === 'supported';
      });
      const base = { label: o.letter, target: 'option' as const, text: o.text };
      if (wrong) {
        const v = byLabel.get(wrong.label);
        const reason = named.has(wrong.label) ? `${wrong.label} 与教材不符` : `遗漏 ${wrong.label}（教材支持）`;
        return { ...base, verdict: 'contradicted', ...(v?.evidence ? { evidence: v.evidence } : {}), reason };
      }
      const all = question.statements.every((st) => byLabel.get(st.label)?.verdict !== 'not_found');
      const first = question.statements.find((st) => named.has(st.label));
      const evidence = first ? byLabel.get(first.label)?.evidence : undefined;
      return all && evidence ? { ...base, verdict: 'supported', evidence } : { ...base, verdict: 'not_found' };
    });
    return [...claims, ...options];
  }
  if (question.kind === 'judge') {
    const statement = claims[0];
    return question.options.map((o): OptionVerdict => {
      const base = { label: o.letter, target: 'option' as const, text: o.text };
      if (!statement || statement.verdict === 'not_found' || !statement.evidence) return { ...base, verdict: 'not_found' };
      const saysTrue = JUDGE_TRUE.test(o.text.trim());
      const verdict = saysTrue === (statement.verdict === 'supported') ? 'supported' : 'contradicted';
      return { ...base, verdict, evidence: statement.evidence, ...(statement.reason ? { reason: statement.reason } : {}) };
    });
  }
  return withCoveringVerdicts(question, claims);
}

/** How the verdicts of the chosen letters stand: for the confidence, and to say when letter and evidence disagree. */
export interface VerdictStanding {
  /** Every chosen option has the verdict a right answer has (`supported`; `contradicted` for a negated stem). */
  agrees: number;
  /** Options not chosen that have that verdict too (rivals the clauses do not rule out). */
  rivals: number;
  /** A chosen option has the opposite verdict: the letter contradicts its own evidence. */
  against: number;
  /**
   * Share of the options not chosen whose clause rules them out (`contradicted`; `supported` for a negated stem), 0–1:
   * how decisively the evidence settles the question beyond the chosen option's own clause.
   */
  ruledOut: number;
}

/**
 * The option verdicts as they decide a letter: the chosen options' own, and for the others what the verdicts choose
 * by (options a supported 以上都是 covers are part of it, not its rivals).
 */
function decidingVerdicts(
  question: ParsedQuestion,
  verdicts: readonly OptionVerdict[],
  answer: string,
): { label: string; verdict: VerdictKind }[] {
  const options = verdicts.filter((v) => v.target === 'option');
  const deciding = options.length === question.options.length ? decidingKinds(question, options) : options.map(ownVerdict);
  return options.map((v, i) => ({ label: v.label, verdict: answer.includes(v.label) ? ownVerdict(v) : (deciding[i] ?? ownVerdict(v)) }));
}

/** The letters not chosen whose verdict is the one a right answer has: the rivals the clauses do not rule out. */
export function rivalLetters(question: ParsedQuestion, verdicts: readonly OptionVerdict[], answer: string): string[] {
  const wanted: VerdictKind = question.negated ? 'contradicted' : 'supported';
  return decidingVerdicts(question, verdicts, answer)
    .filter((v) => !answer.includes(v.label) && v.verdict === wanted)
    .map((v) => v.label);
}

/** Where the chosen letters stand among the option verdicts. */
export function verdictStanding(question: ParsedQuestion, verdicts: readonly OptionVerdict[], answer: string): VerdictStanding {
  const wanted: VerdictKind = question.negated ? 'contradicted' : 'supported';
  const ruledOut: VerdictKind = question.negated ? 'supported' : 'contradicted';
  const kinds = decidingVerdicts(question, verdicts, answer);
  const chosen = kinds.filter((v) => answer.includes(v.label));
  const others = kinds.filter((v) => !answer.includes(v.label));
  return {
    agrees: chosen.length > 0 && chosen.every((v) => v.verdict === wanted) ? 1 : 0,
    rivals: rivalLetters(question, verdicts, answer).length,
    against: chosen.some((v) => v.verdict === ruledOut) ? 1 : 0,
    ruledOut: others.length > 0 ? others.filter((v) => v.verdict === ruledOut).length / others.length : 0,
  };
}

/** A single-choice letter whose verdicts state other options as they state it: the most it can claim, and why. */
export interface TiedLetter {
  /** Its share among the options stated alike (½ for two, ⅓ for three): the highest confidence it can have. */
  share: number;
  /** What a student reads: which others have its verdict, and that the letter is the better supported of them. */
  message: string;
}

/**
 * Whether the verdicts tie the chosen letter of a single-choice question with others (B and C both supported, B
 * chosen): a single-choice question has one right option, so the letter is then only the better supported of them.
 * A 以上都是 the clauses leave open ties with it too: D stated and B, C not found may as well be all of them.
 * Null when the chosen option alone has the verdict a right answer has, or does not have it.
 */
export function tiedLetter(question: ParsedQuestion, verdicts: readonly OptionVerdict[], answer: string): TiedLetter | null {
  if (question.kind !== 'single' || verdicts.length === 0) return null;
  if (verdictStanding(question, verdicts, answer).agrees !== 1) return null;
  const others = rivalLetters(question, verdicts, answer);
  const open = question.negated ? null : openCovering(question, verdicts, answer);
  if (others.length === 0 && open === null) return null;
  const alike = others.length + (open ? 1 : 0) + 1;
  if (others.length === 0 && open) {
    return {
      share: 1 / alike,
      message: `${open.label} ${open.text} 未能排除：教材未说明 ${open.unsettled.join('、')}，无法区分 ${answer} 与 ${open.label}（The book states ${answer} and says nothing of ${open.unsettled.join(', ')}, so it cannot tell ${answer} from ${open.label}）`,
    };
  }
  const stated = question.negated ? '与教材不符' : '有教材依据';
  return {
    share: 1 / alike,
    message: `${[...others, ...(open ? [open.label] : [])].join('、')} 同样${stated}：教材未能区分，按支持度选 ${answer}（The clauses fit ${alike} options alike; the letter is the better supported of them）`,
  };
}

/**
 * A 以上都是 the letter is not, which the verdicts neither state nor rule out: the book states the chosen option and
 * says nothing of some others, so whether all of them hold (and 以上都是 is the answer) is open. Null otherwise.
 */
function openCovering(
  question: ParsedQuestion,
  verdicts: readonly OptionVerdict[],
  answer: string,
): { label: string; text: string; unsettled: string[] } | null {
  const all = verdicts.find((v) => v.target === 'option' && !answer.includes(v.label) && coveringOf(v.text) === 'all');
  if (!all) return null;
  const deciding = decidingVerdicts(question, verdicts, answer);
  if (deciding.find((v) => v.label === all.label)?.verdict !== 'not_found') return null;
  const unsettled = deciding.filter((v) => v.label !== all.label && !answer.includes(v.label) && v.verdict === 'not_found');
  return unsettled.length > 0 ? { label: all.label, text: all.text, unsettled: unsettled.map((v) => v.label) } : null;
}

import { ownVerdict, type OptionVerdict, type ParsedQuestion, type VerdictKind } from './answer-types.js';
import { exactForm } from './claim-forms.js';
import { coveringOf } from './parse-question.js';

/**
 * Options that speak of the other options instead of naming a thing (以上都是, 以上都不是): no clause states them, so
 * their verdict is read off the verdicts of the options they cover. Only for a single-choice question whose stem is not
 * negated: under 不属于…的是, whether 以上都是 means "all of them are not" or "all of them are" is the writer's guess.
 */

/** The one covering option of a question that reads it (its index), or -1. */
function coveringIndex(question: ParsedQuestion): number {
  if (question.kind !== 'single' || question.negated) return -1;
  const found = question.options.flatMap((o, i) => (coveringOf(o.text) ? [i] : []));
  return found.length === 1 ? (found[0] ?? -1) : -1;
}

/**
 * The verdicts with the covering option's read off the others'. 以上都是 is supported when every other option is (the
 * first one's clause quoted) and contradicted when one is (that one's clause); 以上都不是 is contradicted when one
 * is supported and supported when every other is contradicted. Otherwise it keeps its own verdict. A verdict so read
 * always carries the clause of an option it covers: never a verdict without a passage.
 */
export function withCoveringVerdicts(question: ParsedQuestion, verdicts: readonly OptionVerdict[]): OptionVerdict[] {
  return withJoinedReasons(question, withCoveringOption(question, verdicts));
}

function withCoveringOption(question: ParsedQuestion, verdicts: readonly OptionVerdict[]): OptionVerdict[] {
  const at = coveringIndex(question);
  const own = verdicts[at];
  if (at < 0 || !own || verdicts.length !== question.options.length) return [...verdicts];
  const others = verdicts.filter((_, i) => i !== at);
  const kind = coveringOf(own.text);
  const holds: VerdictKind = kind === 'all' ? 'supported' : 'contradicted';
  const fails: VerdictKind = kind === 'all' ? 'contradicted' : 'supported';
  // Read off the options' own verdicts: one ruled out only because another is stated in its place says no more.
  const failing = others.find((v) => ownVerdict(v) === fails && v.evidence);
  const base = { label: own.label, target: own.target, text: own.text };
  let read: OptionVerdict | null = null;
  if (failing?.evidence) {
    const reason = kind === 'all' ? `${failing.label} 与教材不符` : `${failing.label} 有教材依据`;
    read = { ...base, verdict: 'contradicted', evidence: failing.evidence, reason };
  } else if (others.length > 0 && others.every((v) => ownVerdict(v) === holds && v.evidence)) {
    const labels = others.map((v) => v.label).join('、');
    const reason = kind === 'all' ? `${labels} 均有教材依据` : `${labels} 均与教材不符`;
    const evidence = others[0]?.evidence;
    if (evidence) read = { ...base, verdict: 'supported', evidence, reason };
  }
  // Otherwise not found: a clause read for it as for a name only sets the options it covers in its place (教材此处为：
  // 基金年度报告、基金中期报告…), which says nothing against 以上都是.
  return verdicts.map((v, i) => (i === at ? (read ?? { ...base, verdict: 'not_found' }) : v));
}

/**
 * The verdicts with each option a supported joined option holds, itself supported, saying so: the book states it, and
 * the other option as well (B 资产配置贡献 — A 的一部分), so the student sees why the letter is not B.
 */
function withJoinedReasons(question: ParsedQuestion, verdicts: readonly OptionVerdict[]): OptionVerdict[] {
  if (verdicts.length !== question.options.length) return [...verdicts];
  const out = [...verdicts];
  for (const { at, parts } of statedJoins(question, verdicts.map(ownVerdict))) {
    const whole = verdicts[at];
    if (!whole) continue;
    for (const i of parts) {
      const part = out[i];
      if (part) out[i] = { ...part, reason: `${whole.label} 的一部分：教材同时写出 ${whole.label} 所列各项` };
    }
  }
  return out;
}

/**
 * The verdicts as the letter is chosen from them: where 以上都是 is supported, the options it covers are part of it
 * rather than rivals (supported because B, C and D are), so they weigh as not found; so are the options a supported
 * option joins ({@link joinedOptions}). A supported 以上都不是 needs no such reading: the options it covers are
 * contradicted, which rules them out as it should.
 */
export function decidingKinds(question: ParsedQuestion, verdicts: readonly OptionVerdict[]): VerdictKind[] {
  const at = coveringIndex(question);
  const kinds = verdicts.map(ownVerdict);
  if (at >= 0 && kinds[at] === 'supported' && coveringOf(verdicts[at]?.text ?? '') === 'all')
    return kinds.map((k, i) => (i === at ? k : 'not_found'));
  return withJoinedOptions(question, kinds);
}

/** The words that join two names into one option (资产配置贡献和证券选择贡献, 股票、债券). */
const JOINER = /以及|和|及|与|、|，|,/u;

/**
 * The options of a single-choice question that join other options' texts (A.资产配置贡献和证券选择贡献 beside
 * B.资产配置贡献 and C.证券选择贡献), each with the indexes of the options it joins; an option whose parts are not all
 * options of the question joins nothing.
 */
export function joinedOptions(question: ParsedQuestion): { at: number; parts: number[] }[] {
  if (question.kind !== 'single' || question.negated) return [];
  const forms = question.options.map((o) => exactForm(o.text));
  return question.options.flatMap((o, at) => {
    const pieces = o.text.split(JOINER).map(exactForm);
    if (pieces.length < 2 || pieces.some((p) => p === '')) return [];
    const parts = pieces.map((p) => forms.findIndex((f, i) => i !== at && f === p));
    return parts.every((i) => i >= 0) && new Set(parts).size === parts.length ? [{ at, parts }] : [];
  });
}

/**
 * Where the clauses state an option that joins others and each of the options it joins, those are part of it rather
 * than its rivals: the book states both (交互作用 = 总超额收益 - 资产配置贡献 - 证券选择贡献), so the option stating one of
 * them leaves the other out, and they weigh as not found. A part the clauses do not state leaves the question open.
 */
function withJoinedOptions(question: ParsedQuestion, kinds: readonly VerdictKind[]): VerdictKind[] {
  const out = [...kinds];
  for (const { parts } of statedJoins(question, kinds)) for (const i of parts) out[i] = 'not_found';
  return out;
}

/** The joined options the clauses state, with every option each joins. */
function statedJoins(question: ParsedQuestion, kinds: readonly VerdictKind[]): { at: number; parts: number[] }[] {
  return joinedOptions(question).filter(({ at, parts }) => kinds[at] === 'supported' && parts.every((i) => kinds[i] === 'supported'));
}

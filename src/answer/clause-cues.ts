import { normalizeText } from '../text/analyzer.js';
import { exactForm } from './claim-forms.js';
import { boundedCache } from '../bounded-cache.js';

/**
 * The words by which a clause says the opposite of a claim: a negation before the claim's words (不得将基金财产用于抵押),
 * a denial after the option's clause (…本身并不经手基金财产的保管), 只能 against 既可…又可, and words of opposite sense
 * (最高 / 最低). Generic to how Chinese textbooks state a rule, not to any one book.
 */

/** A negation or a bound (不得, 并不, 不超过…): one list for reading clauses and for weighing a negated stem's options. */
export const NEGATIVE =
  /不得|不能|不可|不应|不准|无须|无需|不需要|不必|禁止|严禁|不属于|不包括|不是|并非|并不|也不|没有|无权|不予|不超过|不少于/u;

/** How many of a claim's characters a bare 不 must stand before to negate them: a word and what it governs (从基金财). */
const NEGATED_RUN = 4;

/** Words that deny an act (并不经手, 不负责, 无权). */
const DENIAL = /并不|并非|不负责|不得|不能|无权|不参与|不承担/u;

export const ONLY = /只能|仅能|只可|仅可|只有|仅限|仅/u;

/** A clause that points back to what the sentence named before it (这些费用, 该基金, 上述事项). */
export const ANAPHOR = /^(?:这些|这种|该|此|上述|前述)/u;

export const BOTH = /既可|又可|也可|均可|都可|或者|以及/u;

/** Pairs of words of opposite sense: a clause stating one where the question says the other states the opposite. */
const OPPOSITES: ReadonlyArray<readonly [string, string]> = [
  ['最高', '最低'],
  ['最大', '最小'],
  ['最多', '最少'],
  ['最长', '最短'],
  ['越长', '越短'],
  ['越多', '越少'],
  ['越高', '越低'],
  ['越大', '越小'],
  ['上升', '下降'],
  ['上涨', '下跌'],
  ['增加', '减少'],
  ['提高', '降低'],
  ['高于', '低于'],
  ['多于', '少于'],
  ['有限', '无限'],
  ['增大', '减小'],
  ['收益', '损失'],
  ['盈利', '亏损'],
];

/**
 * The direction a comparative says, by the pairs above (越大 / 越高 / 越多 / 越长 more, their opposites less): 1 for
 * more, −1 for less, 0 for a word that is no such comparative.
 */
export function comparativeDirection(word: string): number {
  for (const [more, less] of OPPOSITES) {
    if (!more.startsWith('越')) continue;
    if (word === more) return 1;
    if (word === less) return -1;
  }
  return 0;
}

/**
 * The superlative a question asks for (收益最高的退出方式是) when the clause states neither it nor its opposite: such a
 * clause names the option (退出方式：上市、并购或管理层回购) without saying it is the highest. Null otherwise.
 */
export function superlativeUnstated(clause: string, question: string): string | null {
  for (const [a, b] of OPPOSITES) {
    if (!a.startsWith('最')) continue;
    const asked = question.includes(a) ? a : question.includes(b) ? b : null;
    if (asked && !clause.includes(a) && !clause.includes(b)) return asked;
  }
  return null;
}

/** The word of `clause` opposite to one the question states (and the clause does not), or null. */
export function oppositeOf(clause: string, question: string, pairs: ReadonlyArray<readonly [string, string]> = OPPOSITES): string | null {
  for (const [a, b] of pairs) {
    if (question.includes(a) && clause.includes(b) && !clause.includes(a)) return b;
    if (question.includes(b) && clause.includes(a) && !clause.includes(b)) return a;
  }
  return null;
}

/** The pairs that state a case by a change or a comparison (价格高于净值时, 利率上升时). */
const CASE_PAIRS = OPPOSITES.filter(([a]) => ['高于', '多于', '上升', '上涨', '增加', '提高', '增大'].includes(a));

/**
 * The word by which a sentence states the opposite case of the one the stem states (价格低于净值时，则可以在二级市场买入
 * for 当ETF的二级市场价格高于基金份额净值时): what it says is said of the other case. Null when it states neither or
 * both, or the stem states both.
 */
export function oppositeCase(sentence: string, stem: string): string | null {
  return oppositeOf(
    sentence,
    stem,
    CASE_PAIRS.filter(([a, b]) => !(stem.includes(a) && stem.includes(b))),
  );
}

/**
 * The claim's words the clause leaves out while stating their opposite, each with the clause's word (越长 → 越短). A
 * claim that holds both words of a pair (无限 beside 有限合伙人) states neither against the clause.
 */
function reversedWords(clause: string, claim: string): (readonly [claimWord: string, clauseWord: string])[] {
  const pairs = claimPairs.through(claim, () => oneSided(claim));
  return pairs.length === 0 ? [] : pairs.filter(([own, opposite]) => !clause.includes(own) && clause.includes(opposite));
}

/** The pairs of which a claim holds one word only, that word first: asked of every clause read for the claim. */
function oneSided(claim: string): (readonly [claimWord: string, other: string])[] {
  return OPPOSITES.flatMap(([a, b]): (readonly [string, string])[] => {
    if (claim.includes(a) && !claim.includes(b)) return [[a, b]];
    if (claim.includes(b) && !claim.includes(a)) return [[b, a]];
    return [];
  });
}

const claimPairs = boundedCache<string, (readonly [string, string])[]>(256);

/**
 * A word of the claim the clause leaves out while stating its opposite (最大可能收益 against …可能遭受的最大损失):
 * the clause's word, or null.
 */
export function missingOpposite(clause: string, claim: string): string | null {
  return reversedWords(clause, claim)[0]?.[1] ?? null;
}

/**
 * The clause with the claim's words whose opposite it states added (越长 where it says 越短 and the claim 越长): for
 * judging which clause speaks of a claim, a word said in reverse is still the word spoken of.
 */
export function withOpposites(clause: string, claim: string): string {
  const added = reversedWords(clause, claim).map(([word]) => word);
  return added.length > 0 ? `${clause} ${added.join(' ')}` : clause;
}

/** Share of the tokens found in the text. */
export function tokenShare(text: string, tokens: readonly string[]): number {
  if (tokens.length === 0) return 0;
  const normal = normalizeText(text);
  return tokens.filter((t) => normal.includes(t)).length / tokens.length;
}

/**
 * A negation on one side only, placed before the claim's words in the clause (Chinese negation scopes forward:
 * 不得将基金财产用于抵押): the cue, or null. A cue after the claim's words (守法合规的禁止行为) does not negate it.
 */
export function polarityClash(clauses: readonly string[], claim: string, claimTokens: readonly string[]): string | null {
  const claimNegated = NEGATIVE.test(claim);
  for (const clause of clauses) {
    const normal = normalizeText(clause);
    const first = Math.min(...claimTokens.map((t) => normal.indexOf(t)).filter((i) => i >= 0));
    if (!Number.isFinite(first)) continue;
    const cue = NEGATIVE.exec(normal);
    const clauseNegated = cue !== null && cue.index < first + 12;
    if (claimNegated !== clauseNegated) {
      if (clauseNegated && cue) return cue[0];
      if (claimNegated) return NEGATIVE.exec(claim)?.[0] ?? null;
    }
  }
  // A bare 不 before the claim's own words (不从基金财产中列支 for 申购费从基金财产中列支) negates them, and so does one
  // before a whole word of the claim (份额总额不固定 for 份额总额固定不变, whose 不 negates 变, not 固定).
  const claimForm = exactForm(claim);
  const chars = [...claimForm];
  const words = claimTokens.filter((t) => [...t].length >= 2 && claimForm.includes(t));
  for (const clause of clauses) {
    const form = exactForm(clause);
    for (let k = 0; k + NEGATED_RUN <= chars.length; k++) {
      const run = chars.slice(k, k + NEGATED_RUN).join('');
      if (form.includes(`不${run}`) && !claimForm.includes(`不${run}`)) return '不';
    }
    // A word is one piece of the claim: the clause must hold most of the others too (份额总额不固定 holds 份额 and 总额
    // of 份额总额固定不变; 不固定 alone says nothing of 有固定封闭期).
    const held = words.filter((w) => form.includes(w)).length;
    if (held < 2 || held * 2 < words.length) continue;
    for (const word of words) if (form.includes(`不${word}`) && !claimForm.includes(`不${word}`)) return '不';
  }
  return null;
}

/** Words that name a thing only to set it aside for another: 以贝塔系数而不是标准差作为…, 是甲而非乙. */
const SET_ASIDE = /(?:而不是|而非|而不|并非|并不是|不是)$/u;

/**
 * The cue when the clause (in its exact form) names `form` right after words that set it aside: 而不是 in
 * 以贝塔系数而不是标准差作为风险的衡量指标 sets 标准差 aside for 贝塔系数.
 */
export function setAsideBefore(clauseForm: string, form: string): string | null {
  for (let at = clauseForm.indexOf(form); at >= 0; at = clauseForm.indexOf(form, at + 1)) {
    const cue = SET_ASIDE.exec(clauseForm.slice(Math.max(0, at - 4), at));
    if (cue) return cue[0];
  }
  return null;
}

/** What may or must not be done: 不得投资 against 可以投资 (the cue, and whether it forbids). */
const DEONTIC = /(不得|不能|不可|不应|不准|禁止|严禁)|(可以|能够|允许|准许|应当)/gu;

/** The last deontic cue in `text` with the two characters of the act after it (投资 in 不得投资的是), and where it ends. */
function lastDeontic(text: string): { word: string; forbids: boolean; act: string; end: number } | null {
  let last: { word: string; forbids: boolean; act: string; end: number } | null = null;
  for (const m of text.matchAll(DEONTIC)) {
    const end = (m.index ?? 0) + m[0].length;
    last = { word: m[0], forbids: m[1] !== undefined, act: text.slice(end, end + 2), end };
  }
  return last;
}

/** A stem's blank (in normal form), or the end of its clause, right after a cue: 销售人员可以( ). */
const BLANK_AHEAD = /^\s*(?:\(\s*\)|_+|[。.?？]?\s*$)/u;

/**
 * The cue of a sentence that permits what the question forbids, or forbids what it permits, of the option it names:
 * 货币市场基金可以投资于…中央银行票据 for 货币市场基金不得投资的是 (the last cue before the option, for the same act as
 * the stem's asking clause). Where the stem's cue stands right before its blank (销售人员可以( )), the act is the
 * option's own: the sentence's cue must then stand right before the option (不得接受投资者全权委托 for 接受投资者全权委托).
 * Null when either says neither, or they speak of different acts.
 */
export function deonticAgainst(sentence: string, optionAt: number, asking: string): string | null {
  const asked = lastDeontic(asking);
  const stated = lastDeontic(sentence.slice(0, optionAt));
  if (!asked || !stated) return null;
  if (BLANK_AHEAD.test(asking.slice(asked.end))) {
    if (sentence.slice(stated.end, optionAt).trim() !== '') return null;
  } else if (asked.act.length < 2 || asked.act !== stated.act) return null;
  return asked.forbids !== stated.forbids ? stated.word : null;
}

/**
 * A negation after the clause that names the option, before the question's most specific words, in the same
 * sentence, that the stem does not have: the sentence names the option and then denies it the question's act.
 */
export function deniedAfter(sentence: string, clause: string, c: { stem: string; topicWords: readonly string[] }): string | null {
  const normal = normalizeText(sentence);
  const normalClause = normalizeText(clause);
  const from = normal.indexOf(normalClause) + normalClause.length;
  if (from <= 0) return null;
  const rest = normal.slice(from);
  const cue = DENIAL.exec(rest);
  if (!cue || DENIAL.test(normalizeText(c.stem))) return null;
  const after = rest.slice(cue.index);
  const topicAfter = c.topicWords.some((t) => after.includes(t));
  return topicAfter ? cue[0] : null;
}

/**
 * A term item's term: 上市对赌 in 上市对赌：根据企业是否上市调整估值 (2–12 characters before a colon), after a list
 * marker (-, 1., （一）) and with Markdown emphasis (- **上市对赌**：…) read as plain text.
 */
const TERM_ITEM = /^\s*(?:[-*+•]\s+|\d{1,2}[.、)）]\s*|[（(][一二三四五六七八九十\d]{1,3}[）)]\s*)?([^：:，,。；;、\s]{2,12})[：:]\s*\S/u;

/** The term of a term item, or null. */
export function termOf(text: string): string | null {
  return TERM_ITEM.exec(text.replace(/\*\*|__/gu, ''))?.[1] ?? null;
}

/** The last characters two terms share (对赌 of 业绩对赌 and 上市对赌): the family they name members of. */
function sharedEnd(a: string, b: string): string {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return a.slice(a.length - n);
}

/**
 * The term a clause defines when the passage defines the stem's own term in another item of the same family: in
 * 业绩对赌：根据企业未来业绩调整估值 / 上市对赌：根据企业是否上市调整估值, a question about 业绩对赌 is answered by the
 * first item, and the second says what 上市对赌 means. Null when the clause is not a term item, when its term is
 * written in the stem or is the claim itself, or when no sibling item's term is written in the stem.
 */
export function otherTerm(clause: string, passageTerms: readonly string[], c: { stem: string; aliases: readonly string[] }): string | null {
  const term = termOf(clause);
  if (!term) return null;
  const stem = exactForm(c.stem);
  const form = exactForm(term);
  if (stem.includes(form) || c.aliases.some((a) => form.includes(a))) return null;
  const sibling = passageTerms.some((t) => t !== term && stem.includes(exactForm(t)) && /\p{Script=Han}/u.test(sharedEnd(t, term)));
  return sibling ? term : null;
}

/**
 * The term a clause opening with 前者 or 后者 speaks of, when the question names the other term of the pair and not
 * this one: in 以“每万份基金已实现收益”和“七日年化收益率”两个指标进行披露，前者反映…，后者是…, the 前者 clause says what
 * 每万份基金已实现收益 is, not what 七日年化收益率 is. The pair is the last two quoted terms before the clause. Null
 * otherwise (no 前者 / 后者, both in the clause, terms not quoted, or the question naming neither or both).
 */
export function formerLatterTerm(sentence: string, clause: string, question: string): string | null {
  const markers = [...clause.matchAll(/(?:^|[，,；;])\s*(前者|后者)/gu)];
  const marker = markers.length === 1 ? markers[0] : undefined;
  const which = marker?.[1];
  if (!marker || !which) return null;
  const at = sentence.indexOf(clause.slice(marker.index));
  if (at < 0) return null;
  const pair = [...sentence.slice(0, at).matchAll(/[“「『"]([^”」』"]{2,24})[”」』"]/gu)].map((m) => m[1] ?? '').slice(-2);
  const [first, second] = pair;
  if (!first || !second) return null;
  const [meant, other] = which === '前者' ? [first, second] : [second, first];
  const asked = exactForm(question);
  return asked.includes(exactForm(other)) && !asked.includes(exactForm(meant)) ? meant : null;
}

/** An order written out step by step: 支付清算费用 → 支付职工工资和社保 → … → 分配剩余财产. */
const ORDER = /→|->|⟶|⇒/u;

/** Which end of an order the stem asks for: 最后分配的是 (last), 首先 / 最先 / 第一步 (first). */
export function orderAsked(stem: string): 'first' | 'last' | null {
  if (/最后|最终|最末/u.test(stem)) return 'last';
  if (/最先|首先|第一步|最早/u.test(stem)) return 'first';
  return null;
}

/**
 * In a clause that writes an order with arrows, where the claim and other options stand: the option at the end the
 * stem asks for, or null when the clause is no such order. Positions are read in the clause's exact form.
 */
export function orderEnd(
  clauseForm: string,
  asked: 'first' | 'last',
  forms: readonly { text: string; aliases: readonly string[] }[],
): string | null {
  if (!ORDER.test(clauseForm)) return null;
  const placed = forms
    .map((f) => ({ text: f.text, at: Math.min(...f.aliases.map((a) => clauseForm.indexOf(a)).filter((i) => i >= 0)) }))
    .filter((p) => Number.isFinite(p.at));
  if (placed.length < 2) return null;
  placed.sort((x, y) => x.at - y.at);
  return (asked === 'last' ? placed[placed.length - 1] : placed[0])?.text ?? null;
}

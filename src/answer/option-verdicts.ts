import type { Analyzer } from '../text/analyzer.js';
import { normalizeText } from '../text/analyzer.js';
import type { Chunk } from '../types.js';
import type { OptionVerdict } from './answer-types.js';
import { asksForStatement, coveringOf } from './parse-question.js';
import {
  aliasesOf,
  askingClause,
  exactForm,
  FORMULA,
  rawValue,
  sameAmount,
  spelledOut,
  UNIT_WORD,
  unitOfValue,
  valuesOf,
} from './claim-forms.js';
import {
  ANAPHOR,
  BOTH,
  deniedAfter,
  deonticAgainst,
  formerLatterTerm,
  missingOpposite,
  ONLY,
  oppositeCase,
  oppositeOf,
  orderAsked,
  orderEnd,
  otherTerm,
  polarityClash,
  setAsideBefore,
  superlativeUnstated,
  termOf,
  tokenShare,
  withOpposites,
} from './clause-cues.js';
import {
  claimParts,
  coverageOf,
  framedCoverage,
  framedHoldsKey,
  FRAME,
  headingsOf,
  holds,
  holdsOwnWords,
  STATED_SHARE,
  namedForms,
  namesClaim,
  othersNamed,
  ownWords,
  wholeWords,
  topicOf,
  unitCoverage,
  withoutAskingPhrases,
  type ClaimPart,
  type ClaimReading,
  type Topic,
} from './claim-reading.js';
import type { CorpusStats } from './corpus-stats.js';
import { closedListReadings } from './closed-list.js';
import { labelReading } from './label-lists.js';
import { headingClass, headingReading, siblingSections } from './sibling-sections.js';
import { anotherSubject, attributeOfAnother, givesExamples, leadAgainst, listedWithout, listSpan } from './list-reading.js';
import { meaningReadings } from './meaning-reading.js';
import { clausesOf, leadSubject, unitsOf, verdictEvidence, withLeadBefore, type Unit } from './passage-units.js';
import {
  askedColumn,
  askedRow,
  columnText,
  columnValue,
  quotedCell,
  stemValueOf,
  tableRowOf,
  tableRowsOf,
  type TableRow,
} from './table-rows.js';
import { inAnotherDocument, titlesOf } from './document-titles.js';
import { quotedReading } from './quoted-reading.js';
import { statedInPlace } from './stated-in-place.js';
import { formulaOf, inSymbols, legendOf, sameFormula } from './formula-legend.js';
import { swappedParts } from './swapped-parts.js';
import { betterReading, ON_QUESTION, type Reading } from './reading-order.js';
import { bandReading, otherCase, otherThreshold, questionQuantities, type Tier } from './tier-ranges.js';

/**
 * Per-option verdicts: for each claim (an option read with its stem, or a statement), what the passages the answerer
 * read say of it — `supported`, `contradicted` or `not_found` — and the clause that settles it.
 *
 * The passages are cut into sentences (and list items read with their lead), the sentences into clauses at `，；`.
 * A clause speaks of the question when it holds most of the question's words (idf-weighted, the claim's own values
 * left out): the stem's words for an option that fills the stem, the claim's words for a statement. Of the clauses
 * that speak of the question, the one holding the most of its words decides:
 * - it states the claim's value (a number with its unit, `T+1`, a percentage), its exact form (a formula, with its
 *   operators), or the claim's words with the same polarity: `supported`;
 * - it states another value of the same unit, another form of the same formula, the opposite polarity (a negation
 *   such as 不得 before the claim's words on one side only, or 只能 against 既可…又可), for a list item, another
 *   party as the list's lead (基金托管人应当履行下列职责：…（八）…), or a term item of another term where the passage
 *   defines the stem's own term beside it (上市对赌：… for a question about 业绩对赌), or the other term of a pair said
 *   of by 前者 / 后者 (前者反映… for a question about the 后者 term): `contradicted`.
 * Of options that are alternatives, one is supported only by a sentence holding a word that sets it apart from the
 * others (上市 in 根据企业是否上市调整估值), not only the words all of them share. A claim written as one clause may be
 * stated across the book's comma (在给定的置信水平和持有期内，…最大损失); a claim of several clauses is stated when
 * each of its clauses is (由基金管理人计算，由基金托管人复核), so that who does what stays bound. A clause that leaves
 * out a word of the claim and states its opposite (损失 for 收益) contradicts it. An order written with arrows
 * (支付清算费用 → … → 分配剩余财产) answers a stem asking 最后 or 首先 by position; a stem asking for the highest
 * (收益最高的…) is settled only by a sentence saying highest or lowest, not by a list that names the options.
 * A table written out row by row (营运依据——契约型基金：基金合同；公司型基金：投资公司章程) is read in the column the
 * question asks (公司型基金的营运依据是), or, where its rows are the options, by the value the stem gives that column
 * (风险收益水平为“中低”的).
 * A schedule stated band by band (100万元≤M＜500万元的，申购费率为1.00%) is read in the band that holds the amount or
 * period the question gives (申购…300万元); the other bands, and a worked example of another amount, say nothing of it.
 * A question naming a document by its title (《私募投资基金监督管理条例》) is read only in sentences of that document, and
 * a list of another party's duties than the stem's (私募基金管理人应当履行下列职责 for 基金托管人应当履行的职责) says
 * nothing of it; a list whose lead says the opposite of the stem (应当通过召开…审议决定 for 一般不需要召开…的是)
 * contradicts the items it names, and a sentence said of the other case (低于 for a stem's 高于) the claim it states.
 * Numbers are read in one normal form (三十日 = 30日 = 30天). Nothing here is fitted to a data set: the rules are
 * those of how a book states a rule, and a verdict is never given without the clause that gives it.
 */

/**
 * A sentence speaks of the question when it (with its passage's headings) holds most of the question's words, or a
 * good part of them including the most specific one: 永续年金 under a heading, or 申购、赎回…确认 without 时限.
 */
const ON_QUESTION_ALONE = 0.6;

const ON_QUESTION_WITH_KEY = 1 / 3;

/** Passages (best first) of each claim whose clauses are read. */
const PASSAGES_PER_CLAIM = 4;

/** A name followed by another name of it in brackets (执行事务合伙人（委派代表）, 首次公开发行（IPO）). */
const NAME_WITH_ALIAS = /^\p{Script=Han}{2,12}[（(][^（）()，,；;]{1,20}[）)]$/u;

/** A statement that only names something (政策风险, 基金托管人): a few Han characters, nothing else. */
const BARE_NAME = /^\p{Script=Han}{2,8}$/u;

/** An option that asserts something (可以投资于股票) rather than names it (基金托管人, 36个月, P = D1 / (k - g)). */
const PREDICATE = /可以|应当|不得|不能|不可|必须|属于|包括|采用|实行|进行|负责|能够|允许|禁止|只能|仅能/u;

/** A list item's marker and closing mark, around what it names: （一）基金年度报告； */
const ITEM_MARKS = /^\s*(?:[（(][一二三四五六七八九十百\d]+[）)]|\d+[.、．]|[-•·*]\s)?\s*|[\s；;。，,]+$/gu;

/** Whether the unit is an item of a list under a lead, and the item only names a thing (a bare name, no predicate). */
function listMember(unit: Unit): boolean {
  const lead = unit.lead ?? unit.listLead;
  if (lead === undefined) return false;
  // A lead's own sentence may run into its first item (基金定期报告包括：（一）基金年度报告；).
  const item = unit.lead !== undefined ? (unit.item ?? '') : unit.text.startsWith(lead) ? unit.text.slice(lead.length) : unit.text;
  const name = item.replace(ITEM_MARKS, '');
  return BARE_NAME.test(name) && !PREDICATE.test(name);
}

/**
 * A clause that states one word in the claim's place (`主体不同：基金托管人`, `否定：并不`): the word is marked where the
 * clause writes it and named in the reason after its kind.
 */
function statesInstead(
  unit: Unit,
  coverage: number,
  kind: '主体不同' | '数字不同' | '否定' | '相反',
  word: string,
  column?: boolean,
): Reading {
  return { verdict: 'contradicted', unit, coverage, marks: [word], reason: `${kind}：${word}`, ...(column ? { column } : {}) };
}

/** The question a set of claims answers, and what reading it needs. */
export interface VerdictInput {
  /** The stem (without statements); empty for true/false questions. */
  stem: string;
  /** Claims in order: option texts, or statement texts. */
  claims: readonly { label: string; target: 'option' | 'statement'; text: string }[];
  /** Whether each claim fills the stem (options of a fill-in question) or stands alone (statements). */
  fillsStem: boolean;
  /** The passages each claim's retrieval ranked best, strongest first (parallel to `claims`). */
  passages: readonly (readonly Chunk[])[];
  /**
   * The passages retrieved for the stem, strongest first: read when no claim has a passage of its own (options the book
   * never writes as such: TS, where it writes 投资条款清单（Term Sheet）).
   */
  stemPassages?: readonly Chunk[];
  analyzer: Analyzer;
  stats: CorpusStats;
  /**
   * The stem asks for the option that is wrong (下列…不包括 / 错误的是): every other option is right, so a clause naming
   * one of them where the question's words are does not stand in this one's place; only a list of them without this one
   * rules it out.
   */
  negated?: boolean;
}

/** Reads the passages for every claim and gives each its verdict with the clause that settles it. */
export function optionVerdicts(input: VerdictInput & { exclusive?: boolean }): OptionVerdict[] {
  const { analyzer, stats } = input;
  // The stem asks which statement about its subject holds (下列关于开放式基金的说法，正确的是): each option says something
  // of its own (有固定封闭期, 价格由市场供求决定), so a clause stating one option does not stand in another's place.
  const statementChoice = asksForStatement(input.stem);
  // Every claim is read against the passages of all claims: the clause that contradicts option A is often the one
  // retrieved for option C (控股股东36个月，其他股东12个月).
  const seen = new Set<string>();
  const read: { chunk: Chunk; rank: number }[] = [];
  const lists = input.passages.every((list) => list.length === 0) ? [input.stemPassages ?? []] : input.passages;
  for (let rank = 0; rank < PASSAGES_PER_CLAIM; rank++) {
    for (const list of lists) {
      const chunk = list[rank];
      if (!chunk || seen.has(chunk.chunk_id)) continue;
      seen.add(chunk.chunk_id);
      read.push({ chunk, rank });
    }
  }
  // A section named after a claim (7.4.2 误导性陈述: - 信息披露的内容使投资者产生错误判断) speaks of it in sentences that
  // never write it, so no window of it supports the claim and its own retrieval does not hand it over: among the
  // passages retrieved for the question, such a section is read too, after the claims' own.
  const claimNames = input.claims.map((claim) => aliasesOf(claim.text));
  for (const chunk of input.stemPassages ?? []) {
    if (seen.has(chunk.chunk_id)) continue;
    const kind = headingClass(chunk.headings?.at(-1) ?? '');
    if (!kind?.names.some((name) => claimNames.some((aliases) => aliases.includes(name)))) continue;
    seen.add(chunk.chunk_id);
    read.push({ chunk, rank: PASSAGES_PER_CLAIM });
  }
  // A section beside the one the stem names (开放式基金 beside 封闭式基金) speaks of its own class.
  const apart =
    input.stem.trim() === ''
      ? new Set<string>()
      : siblingSections(
          read.map((r) => r.chunk),
          input.stem,
        );
  const units = read.filter((r) => !apart.has(r.chunk.chunk_id)).flatMap((r) => unitsOf(r.chunk, r.rank));
  const stemTokens =
    input.stem.trim() === ''
      ? []
      : [...new Set(analyzer.tokens(withoutAskingPhrases(input.stem)).filter((t) => !FRAME.has(t) && !/^[\d.]+$/u.test(t)))];
  const stemValues = new Set(valuesOf(input.stem));
  const quantities = questionQuantities(input.stem);
  const stemCase = quantities.length > 0 ? input.stem.replace(askingClause(input.stem), ' ') : '';
  const titles = titlesOf(input.stem);
  const asking = normalizeText(askingClause(input.stem));
  const passageTexts = [...new Set(units.map((unit) => unit.chunk.text))];
  const exacts = input.claims.map((c) => [...aliasesOf(c.text), ...spelledOut(c.text, passageTexts).map(exactForm)]);
  const stemSet = new Set(stemTokens);
  const wholeStem = new Set(wholeWords(stemTokens));
  const fullWords = input.claims.map((claim) => ownWords(claim.text, analyzer));
  const claimWords = fullWords.map((words) => words.filter((t) => !stemSet.has(t)));
  const alternatives = input.exclusive !== false && input.claims.every((c) => c.target === 'option');
  const rows = [...new Set(units.map((unit) => unit.chunk))].flatMap((chunk) => tableRowsOf(chunk));
  const optionValues = input.claims.map((claim) => valuesOf(claim.text));
  // Where each passage ranked for the stem: of clauses that settle an option alike, the one the question's own
  // retrieval ranked higher is quoted ({@link quotedReading}).
  const stemRank = new Map<string, number>();
  (input.stemPassages ?? []).forEach((chunk, i) => {
    if (!stemRank.has(chunk.chunk_id)) stemRank.set(chunk.chunk_id, i);
  });
  // Whether each claim fills the stem as a name or value (for statedInPlace).
  const fillsAsName: boolean[] = [];
  const topics: Topic[] = [];
  const bests = input.claims.map((claim, i): Reading | null => {
    const values = optionValues[i] ?? [];
    const words = claimWords[i] ?? [];
    // What sets the option apart may be a word the stem names too (以外文文本为准 against 以中文文本为准, for a stem that
    // names both 中文 and 外文).
    const distinct = alternatives ? (fullWords[i] ?? []).filter((w) => fullWords.every((other, j) => j === i || !other.includes(w))) : [];
    // Shared by the options that name something: 全部以上选项 beside 认购数量, 认购份额 and 认购金额 names nothing.
    const naming = fullWords.filter((_, j) => coveringOf(input.claims[j]?.text ?? '') === null);
    const shared = alternatives && naming.length > 1 ? (fullWords[i] ?? []).filter((w) => naming.every((other) => other.includes(w))) : [];
    // And the words the stem holds only inside a longer word of its own (管理 of 基金管理人): 投资管理 is not half stated
    // by a stem about 基金管理人.
    const pieces = (fullWords[i] ?? []).filter((w) => stemSet.has(w) && !wholeStem.has(w) && !shared.includes(w));
    const requiredWords = [...shared, ...pieces];
    // A statement that is a bare name (Ⅲ.政策风险 under 哪些属于系统性风险) fills the stem as an option does: it is
    // found by its name where the stem's words are, not by its pieces (政策 and 风险 in 贯彻落实…政策…健全风险防控体系).
    const fills = input.fillsStem || (claim.target === 'statement' && BARE_NAME.test(claim.text.trim()) && !PREDICATE.test(claim.text));
    // A formula is a form, however long; a long option or one with a predicate asserts something, but not a name with
    // another name in brackets (执行事务合伙人（委派代表）), which names one thing twice.
    const statement =
      !FORMULA.test(claim.text) &&
      (!fills || ([...claim.text].length >= 12 && !NAME_WITH_ALIAS.test(claim.text.trim())) || PREDICATE.test(claim.text));
    fillsAsName[i] = fills && !statement && coveringOf(claim.text) === null;
    // A claim that fills the stem is about the stem's words; a statement about its own (and the stem's topic).
    const topic = topicOf(fills ? stemTokens : words, stats, fills ? withoutAskingPhrases(input.stem) : claim.text);
    topics[i] = topic;
    const reading: ClaimReading = {
      text: claim.text,
      aliases: exacts[i] ?? [],
      others: input.exclusive === false ? [] : exacts.filter((_, j) => j !== i),
      otherTexts: input.exclusive === false ? [] : input.claims.filter((_, j) => j !== i).map((o) => o.text),
      // 以上都是 among the options says several may fill the blank: none stands in another's place (以上都不是 says
      // nothing of the kind).
      placeTaken: input.negated !== true && !statementChoice && !input.claims.some((other) => coveringOf(other.text) === 'all'),
      statementChoice,
      values,
      valueUnits: new Set(
        [...values, ...(input.exclusive === false ? [] : optionValues.filter((_, j) => j !== i).flat())].map(unitOfValue),
      ),
      // A value's own words are its number and unit (30天): what else it says must stand where the value does.
      words: words.filter((t) => !values.some((v) => v.includes(t)) && !(values.length > 0 && UNIT_WORD.test(t))),
      distinct,
      requiredWords,
      parts: claimParts(claim.text, analyzer),
      inStem: exacts[i]?.some((a) => exactForm(input.stem).includes(a)) ?? false,
      stemValues,
      quantities,
      stemCase,
      titles,
      topic,
      rows,
      statement,
      stem: input.stem,
      asking,
      negatedStem: input.negated === true,
    };
    const readings: Reading[] = [];
    let found: Reading | null = null;
    for (const unit of units) {
      const r = readUnit(unit, reading);
      if (!r) continue;
      readings.push(r);
      if (!found || betterReading(r, found)) found = r;
    }
    if (!found) return null;
    // The best reading gives the verdict; the clause quoted for it is chosen among those that settle it alike.
    return quotedReading(found, readings, {
      // The reader's own ranking of the clause without its headings' hundredth (a list's halving kept).
      own: (r) => {
        const text = r.band ? `${r.unit.text} ${stemCase}` : r.unit.text;
        return r.coverage - framedCoverage(r.unit.chunk, text, topic) / 100;
      },
      heading: (text) => coverageOf(text, topic),
      stemRank: (chunk) => stemRank.get(chunk.chunk_id) ?? Infinity,
      better: betterReading,
      onQuestion: ON_QUESTION,
    });
  });
  // Statements no clause settles, beside statements that items of one whole list state, are read against that list.
  const listed =
    input.claims.every((c) => c.target === 'statement') || input.exclusive === false ? closedListReadings(bests, claimWords) : [];
  // Options saying what more of a measure means, read against the book's statement of what the measure is, in the
  // passages read and those retrieved for the stem: that reading, where it applies, is the one that settles them.
  const stemUnits = (input.stemPassages ?? [])
    .slice(0, PASSAGES_PER_CLAIM)
    .flatMap((chunk, rank) => (seen.has(chunk.chunk_id) ? [] : unitsOf(chunk, rank)));
  const meant = input.claims.every((c) => c.target === 'option')
    ? meaningReadings(
        input.stem,
        input.claims.map((c) => c.text),
        [...units, ...stemUnits],
      )
    : null;
  const deciding = input.claims.map((_, i) => {
    const own = bests[i] ?? null;
    return meant?.readings[i] ?? (meant?.silent(i, own) ? null : own) ?? listed[i] ?? null;
  });
  const verdicts = input.claims.map((claim, i): OptionVerdict => {
    const best = deciding[i];
    if (!best) return { label: claim.label, target: claim.target, text: claim.text, verdict: 'not_found' as const };
    return {
      label: claim.label,
      target: claim.target,
      text: claim.text,
      verdict: best.verdict,
      evidence: verdictEvidence(best.quoted ?? best.unit, best.marks),
      ...(best.reason ? { reason: best.reason } : {}),
    };
  });
  // One option fills a single-choice blank: the clause stating one in the stem's place rules out the others.
  if (input.exclusive !== true || input.negated === true || statementChoice || !input.fillsStem || !alternatives) return verdicts;
  return statedInPlace(
    verdicts,
    input.claims.map((_, i) => {
      const reading = deciding[i];
      const topic = topics[i];
      const about = reading && topic ? framedCoverage(reading.unit.chunk, reading.unit.text, topic) : null;
      return {
        coverage: about,
        fills: fillsAsName[i] === true,
        forms: exacts[i] ?? [],
        covers: coveringOf(input.claims[i]?.text ?? '') === 'all',
        // A schedule's band (100万元≤M＜500万元的，申购费率为1.00%) is the one item the question's amount falls in.
        listItem: reading ? (reading.unit.lead ?? reading.unit.listLead) !== undefined && reading.band !== true : false,
      };
    }),
  );
}

/**
 * Of several values a clause states, the one the question's words lead to: its lead-in (the text from the value before
 * it, or from the clause's start, after the last comma or colon: 年均收入≥ in 私募合格投资者（个人）：金融资产≥300万元或
 * 年均收入≥50万元) holds more of the question's words than any other value's does. Null for one value, or a tie.
 */
function placedValue(clause: string, stated: readonly string[], topic: Topic): string | null {
  const values = [...new Set(stated)];
  if (values.length < 2) return null;
  const placed = values
    .map((v) => {
      const raw = rawValue(clause, v);
      return { v, at: clause.indexOf(raw), end: clause.indexOf(raw) + raw.length };
    })
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at);
  if (placed.length !== values.length) return null;
  const scored = placed
    .map((x, i) => {
      const lead = clause.slice(i > 0 ? (placed[i - 1]?.end ?? 0) : 0, x.at);
      return { v: x.v, share: coverageOf(lead.slice(Math.max(...[...'：:，,；;'].map((mark) => lead.lastIndexOf(mark))) + 1), topic) };
    })
    .sort((a, b) => b.share - a.share);
  const [first, second] = scored;
  return first && second && first.share > second.share ? first.v : null;
}

/** Where `clause` ends in the sentence's normal form (the sentence's length when it is not found). */
function sentenceEnd(sentence: string, clause: string): number {
  const text = normalizeText(sentence);
  const at = text.indexOf(normalizeText(clause));
  return at < 0 ? text.length : at + normalizeText(clause).length;
}

/**
 * Where a sentence first names the option (by its written form, else by one of its own words), in the sentence's
 * normal form; null when it does not.
 */
function optionAt(sentence: string, c: ClaimReading): { text: string; at: number } | null {
  const text = normalizeText(sentence);
  const forms = [normalizeText(c.text), ...c.aliases, ...c.words.filter((w) => [...w].length >= 2)];
  const at = Math.min(...forms.map((form) => text.indexOf(form)).filter((i) => i >= 0));
  return Number.isFinite(at) ? { text, at } : null;
}

/**
 * How a clause states a claim's words against it: a negation on one side only (不得, 并不), or the opposite of a word
 * it leaves out (损失 for 收益). The cue to mark and the reason, or null.
 */
function statedAgainst(clause: string, claim: string, words: readonly string[]): { marks: string[]; reason: string } | null {
  const negation = polarityClash([clause], claim, words);
  if (negation) return { marks: [negation], reason: `肯定/否定相反：${negation}` };
  const opposite = missingOpposite(clause, claim);
  return opposite ? { marks: [opposite], reason: `相反：${opposite}` } : null;
}

/**
 * A claim of several clauses is stated when each of its clauses is, each by a clause of the sentence that holds most
 * of its words: who does what stays bound (普通合伙人承担无限连带责任，有限合伙人以认缴出资额为限承担责任 against
 * …有限合伙人承担无限主要责任). One of its clauses stated with a negation or the opposite word contradicts it.
 */
function readParts(unit: Unit, clauses: readonly string[], parts: readonly ClaimPart[], coverage: number): Reading | null {
  const marks: string[] = [];
  let stated = true;
  for (const part of parts) {
    // A word the clause says in reverse counts as spoken of (票面利率越高，麦考利久期越短 for …越长), so the clause that
    // states the opposite is found and contradicts the part.
    const best = clauses
      .map((clause) => ({ clause, share: tokenShare(withOpposites(clause, part.text), part.words) }))
      .sort((x, y) => y.share - x.share)[0];
    if (!best || best.share < STATED_SHARE) {
      stated = false;
      continue;
    }
    const against = statedAgainst(best.clause, part.text, part.words);
    if (against) return { verdict: 'contradicted', unit, coverage, ...against };
    marks.push(...part.words.filter((w) => holds(best.clause, w)));
  }
  if (stated) return { verdict: 'supported', unit, coverage, marks: [...new Set(marks)] };
  // Not stated as it is, but written the other way round: who does what, exchanged.
  const swap = swappedParts(clauses, parts);
  return swap ? { verdict: 'contradicted', unit, coverage, marks: [...swap.words], reason: swap.reason } : null;
}

const passageTerms = new WeakMap<Chunk, string[]>();

/** The terms of a passage's term items (one per line: - **上市对赌**：…), for {@link otherTerm}. */
function termsOf(chunk: Chunk): string[] {
  let terms = passageTerms.get(chunk);
  if (!terms) {
    terms = chunk.text.split(/\n|。/u).flatMap((line) => termOf(line) ?? []);
    passageTerms.set(chunk, terms);
  }
  return terms;
}

/**
 * A unit of a table row written out cell by cell, when the question asks for one of the row's columns (公司型基金的营运
 * 依据是): the claim is read in that column's cell with the row's label. Found only in another column's cell, it is that
 * column's, not the one asked (主体不同：契约型基金). Quoted as the whole row, so the reader sees both cells. `named`: the
 * stem names this row's label; `quoted`: the value of the cell the stem quotes, when the column is that cell's (only
 * the options' own rows are then read in it).
 */
function readRow(unit: Unit, row: TableRow, column: string, c: ClaimReading, named: boolean, quoted: string | null): Reading | null {
  const plain: Unit = { chunk: unit.chunk, text: row.text, span: row.text, rank: unit.rank };
  // A pipe table's row is quoted under its header line (比较项目 契约型基金 公司型基金…营运依据 基金合同 投资公司章程).
  const whole: Unit = row.head ? { ...plain, span: row.head.run, lead: row.head.line, item: row.text, apart: true } : plain;
  // Ranked as the row it reads.
  const coverage = unitCoverage(row.text, unit.chunk, c.topic);
  // The row the stem names, asked for a column whose cell is an option as a whole (股票基金的风险收益水平为 with 高 /
  // 中高 / 中低 / 低): the cell states that option, in the place of any other. A value of one character has no words
  // to read it by.
  const cell = exactForm(columnValue(row, column));
  if (named && cell !== '') {
    if (cell === exactForm(c.text)) return { verdict: 'supported', unit: whole, coverage, marks: [columnValue(row, column)], column: true };
    const stated = c.otherTexts.find((text) => exactForm(text) === cell);
    if (stated !== undefined && c.placeTaken)
      return {
        verdict: 'contradicted',
        unit: whole,
        coverage,
        marks: [columnValue(row, column)],
        column: true,
        reason: `教材此处为：${stated}`,
      };
  }
  const label = exactForm(row.label);
  if (!named && label !== '' && (namesClaim(label, c) || othersNamed(label, c).length > 0)) {
    // The rows are the options (股票基金——…风险收益水平：高；): the question gives the asked column's value and asks whose
    // it is (风险收益水平为“中低”的基金类型是). Another option's row says nothing of this one; this one's row states it
    // when its cell holds the value the stem gives, and states otherwise when another row read does.
    // The claim's own row: a label naming it, not one naming another option it is part of (止损限价指令 for 限价指令).
    if (!namesClaim(label, c) || (!c.aliases.includes(label) && othersNamed(label, c).length > 0)) return null;
    const given = stemValueOf(c.stem, column) ?? quoted;
    const value = columnValue(row, column);
    if (given === null || value === '') return null;
    if (exactForm(value) === exactForm(given))
      return { verdict: 'supported', unit: whole, coverage, marks: [row.label, value], column: true };
    if (!c.rows.some((other) => exactForm(columnValue(other, column)) === exactForm(given))) return null;
    // Ranked with the value it states in the place of the one the stem gives: the row answers what the stem asks.
    const stated = unitCoverage(`${row.text} ${given}`, unit.chunk, c.topic);
    return { verdict: 'contradicted', unit: whole, coverage: stated, marks: [value], column: true, reason: `${column}：${value}` };
  }
  // A column only quoted asks whose row the quoted cell is: a row no option names is read as any sentence is.
  if (quoted !== null) return null;
  // Read with the table's title, which speaks for every row (各类基金的资产配置与风险收益特征).
  const withLabel = (text: string): string => `${row.title} ${row.label === '' ? text : `${row.label}——${text}`}`;
  const asked = readUnit({ ...plain, text: withLabel(columnText(row, column)) }, c, false);
  if (asked) {
    const { verdict, marks, reason } = asked;
    return { verdict, unit: whole, coverage: asked.coverage, marks, column: true, ...(reason ? { reason } : {}) };
  }
  // Found only in another column's cell: a name by its written form, a value with its unit, a statement by its words.
  // A short statement may take a word from the row's label, if the two hold all its words (价格由市场供求决定 in
  // 价格形成 | 市场供求决定; 有固定封闭期 is not in 份额总额 | 合同期限内固定不变, which holds only 固定).
  for (const other of new Set(row.cells.map((cell) => cell.label))) {
    if (other === column) continue;
    const text = columnText(row, other);
    const found = c.statement
      ? c.words.length > 0 && tokenShare(text, c.words) >= STATED_SHARE
      : c.values.length > 0
        ? c.values.every((v) => valuesOf(text).includes(v))
        : namesClaim(exactForm(text), c) ||
          (c.statementChoice && c.words.length >= 2 && tokenShare(`${row.label} ${columnValue(row, other)}`, c.words) === 1);
    if (found) return statesInstead(whole, coverage, '主体不同', other, true);
  }
  return null;
}

/** Whether a text (with its passage's headings) speaks of the question: see {@link ON_QUESTION_ALONE}. */
function speaksOfQuestion(chunk: Chunk, text: string, c: ClaimReading): boolean {
  const gate = framedCoverage(chunk, text, c.topic);
  return gate >= ON_QUESTION_ALONE || (gate >= ON_QUESTION_WITH_KEY && framedHoldsKey(chunk, text, c.topic));
}

function readUnit(unit: Unit, c: ClaimReading, rows = true): Reading | null {
  // A band of a schedule (M＜100万元的，申购费率为1.50%) stated for amounts or periods other than the question's says
  // nothing of it; the band it falls in is marked, so the reader sees why that one decides.
  const sentence = unit.item ?? unit.text;
  const bearing = bandReading(sentence, unit.chunk.text, c.quantities);
  if (bearing && !bearing.holds) return null;
  const band = bearing?.tier ?? null;
  // A sentence stating the stem's kind of amount or period, never the stem's own, speaks of another case: a number asked
  // for the question's case is not read in a worked example of another (以101500元申购… for 300万元), nor a name in a
  // rule for another period (上半年结束之日起两个月内…中期报告 for 每年结束之日起三个月内编制完成的是).
  if (!band && otherCase(sentence, c.quantities)) return null;
  // A rule stated for another threshold (达到…百分之零点二五时 for a stem's 偏差达到…0.5%时) is another case's rule.
  if (!band && otherThreshold(sentence, c.stem)) return null;
  const read = readClauses(unit, c, rows, band);
  if (band && read) {
    read.marks = [...read.marks, band.text];
    read.band = true;
    const quoted = read.quoted || unit.lead || !bearing?.lead ? undefined : withLeadBefore(unit, bearing.lead);
    if (quoted) read.quoted = quoted;
  }
  if (read?.verdict !== 'supported' || read.column) return read;
  // The sentence allows what the question forbids, or forbids what it allows (可以投资于…同业存单 for 不得投资的是).
  const named = optionAt(unit.text, c);
  const allowed = named ? deonticAgainst(named.text, named.at, c.asking) : null;
  return allowed ? { ...statesInstead(read.unit, read.coverage, '相反', allowed), ...(read.quoted ? { quoted: read.quoted } : {}) } : read;
}

/**
 * A formula claim written in words, read against the formula the unit states in symbols, through the legend its
 * passage gives (其中：Rf = 无风险利率…): written back in those symbols, the claim is that formula (supported) or another
 * (公式不同). Only a formula whose left side stands for what the question asks (资产i的期望收益率 for 资产的期望收益率,
 * with the passage's headings), and only a claim every word of which the legend gives.
 */
function legendReading(unit: Unit, c: ClaimReading): Reading | null {
  const stated = formulaOf(unit.item ?? unit.text);
  if (!stated) return null;
  const legend = legendOf(unit.chunk.text);
  const asked = [...legend].find(([, symbol]) => symbol === stated.lhs)?.[0];
  if (asked === undefined || framedCoverage(unit.chunk, asked, c.topic) < ON_QUESTION) return null;
  const written = inSymbols(c.text, legend);
  if (!written) return null;
  const coverage = unitCoverage(unit.text, unit.chunk, c.topic);
  const key = `其中：${written.used.map((meaning) => `${legend.get(meaning) ?? ''} = ${meaning}`).join('，')}`;
  if (sameFormula(written.text, stated.rhs)) return { verdict: 'supported', unit, coverage, marks: [stated.rhs], reason: key };
  return {
    verdict: 'contradicted',
    unit,
    coverage,
    marks: [stated.rhs],
    reason: `公式不同：教材为 ${stated.lhs} = ${stated.rhs}（${key}）`,
  };
}

/**
 * The values a clause states in the options' units, other than the stem's own; an amount written at another scale that
 * equals this claim's (八万份 for 80000份) counts as the claim's.
 */
function statedValues(clause: string, c: ClaimReading): string[] {
  return valuesOf(clause).flatMap((v) => {
    if (c.valueUnits.has(unitOfValue(v))) return c.stemValues.has(v) ? [] : [v];
    const same = c.values.find((own) => sameAmount(v, own));
    return same !== undefined && !c.stemValues.has(same) ? [same] : [];
  });
}

function readClauses(unit: Unit, c: ClaimReading, rows: boolean, band: Tier | null): Reading | null {
  if (rows) {
    const row = tableRowOf(unit.chunk, unit.text);
    const table = row ? tableRowsOf(unit.chunk) : [];
    const stemColumn = row ? askedColumn(row, c.stem) : null;
    // A stem naming no column may quote one row's cell whole and ask whose row it is.
    const quoted = row && stemColumn === null ? quotedCell(row, table, c.stem) : null;
    const column = stemColumn ?? quoted?.column ?? null;
    // A row that says nothing in the asked column is read as any sentence is: its subject may stand in a column of
    // its own (| 盈利能力 | 净资产收益率(ROE) | 净利润 / 股东权益 |, asked for ROE's 公式), not in the row's label.
    // A row of another of the table's labels than the one the stem names (律师事务所 | 出具法律意见书, for a stem about
    // 会计师事务所) says nothing of the question, whichever column it asks.
    const asked = row ? askedRow(row, table, c.stem) : null;
    if (asked === 'another') return null;
    const read = row && column ? readRow(unit, row, column, c, asked === 'this', quoted?.value ?? null) : null;
    if (read) return read;
  }
  // A formula written in the words of the passage's legend (无风险利率 + β × 市场风险溢价) is read in its symbols; the
  // formula speaks of the question when its left side, read in the legend's words, does (Sp: 夏普比率).
  const legendRead = FORMULA.test(c.text) ? legendReading(unit, c) : null;
  if (legendRead) return legendRead;
  // The unit speaks of the question: most of its words (the passage's headings count), and its most specific one. A
  // band that holds the question's amount or period (1年≤Y＜2年 for 持有18个月后赎回) states the question's case, as
  // if it wrote it: the rest, what the question asks of that case, it must hold itself.
  const own = band ? `${unit.text} ${c.stemCase}` : unit.text;
  // An item listed under one of several labels, the stem naming one of them, belongs to its label's class.
  const labelled = labelReading(unit, c, {
    coverage: unitCoverage(`${unit.lead ?? unit.listLead ?? ''} ${own}`, unit.chunk, c.topic),
    onQuestion: (label) => speaksOfQuestion(unit.chunk, label, c),
  });
  if (labelled) return labelled;
  if (!speaksOfQuestion(unit.chunk, own, c)) return null;
  const framed = `${headingsOf(unit.chunk)} ${own}`;
  // A sentence naming another document by its title (1999年…《期货交易管理暂行条例》同时废止), or saying 本办法 of the
  // document it stands in, when neither it nor its headings name the one the question names (《证券投资基金管理暂行办法》
  // 的颁布), speaks of another document.
  if (inAnotherDocument(unit.text, unit.chunk, framed, c.titles)) return null;
  // An item of a list of another party's duties than the one the stem asks of (私募基金管理人应当履行下列职责 for
  // 基金托管人应当履行的职责不包括) says nothing of the claim: that party doing it neither makes it the stem's party's nor
  // rules it out. A lead naming an option is read below (主体不同).
  const listLead = unit.lead ?? unit.listLead;
  if (listLead !== undefined) {
    const subject = exactForm(leadSubject(listLead));
    if (!namesClaim(subject, c) && othersNamed(subject, c).length === 0 && anotherSubject(subject, c.stem)) return null;
  }
  // A line stating the asked attribute of another party (中国证监会性质：… for 基金业协会的性质是) says nothing of the claim.
  if (attributeOfAnother(unit.text, c.stem) !== null) return null;
  // Units are ranked by their own words: the headings they share say nothing of which sentence decides.
  const coverage = unitCoverage(own, unit.chunk, c.topic);
  // A list whose lead says the opposite of what the stem asks of its items (下列事项应当通过召开持有人大会审议决定：
  // for 一般不需要召开持有人大会的是; 下列人员不得担任…： for 可以担任…的是) contradicts each item it names.
  const against = listLead === undefined ? null : leadAgainst(listLead, unit.lead ? (unit.item ?? '') : unit.text, c);
  if (against) return { verdict: 'contradicted', unit, coverage, marks: [against], reason: `肯定/否定相反：${against}` };
  const clauses = unit.lead ? [unit.lead, unit.item ?? ''] : clausesOf(unit.text);
  const clauseCoverage = (clause: string): number => coverageOf(clause, c.topic);
  // Which clause speaks most of the question is judged with the clause before it in the same sentence, whose words
  // an elided clause leans on: in 股票基金的年托管费率为百分之零点二，货币市场基金为百分之零点零五 the second clause
  // states the 托管费率 of 货币市场基金 without repeating it. A clause that adds no question word to the one before
  // ties with it, and the earlier one stays first.
  const withLead = new Map(
    clauses.map((clause, i) => {
      const before = i > 0 && !unit.lead && !/[。；;]$/u.test(clauses[i - 1] ?? '') ? (clauses[i - 1] ?? '') : '';
      return [clause, before + clause];
    }),
  );
  const clauseRank = (clause: string): number => coverageOf(withLead.get(clause) ?? clause, c.topic);

  // A list item's subject is its lead: 基金托管人应当履行下列职责：…（八）复核…
  if (unit.lead) {
    const subject = leadSubject(unit.lead);
    const exactSubject = exactForm(subject);
    if (exactSubject.length >= 2 && clauseCoverage(unit.item ?? '') >= ON_QUESTION / 2) {
      if (namesClaim(exactSubject, c)) return { verdict: 'supported', unit, coverage, marks: [c.text, subject] };
      if (othersNamed(exactSubject, c).length > 0) {
        return statesInstead(unit, coverage, '主体不同', subject);
      }
    }
  }

  // Values: of the clauses that state a value in the options' units (other than the stem's own), the one that speaks
  // most of the question (and holds the claim's own words, 下跌 in 下跌4%) decides.
  if (c.values.length > 0) {
    // A claim written over two clauses (投资者T日提交的申购申请，登记机构一般在T＋1日确认) may be stated over two of the
    // book's: each clause is also read with the one before it in the same sentence.
    const spans = /[，,；;]/u.test(c.text) ? [...new Set(clauses.map((clause) => withLead.get(clause) ?? clause))] : [];
    const candidates = [...clauses, ...spans.filter((span) => !clauses.includes(span))]
      .map((clause) => ({ clause, stated: statedValues(clause, c) }))
      .filter((x) => x.stated.length > 0 && c.words.every((w) => holds(x.clause, w)))
      .sort((x, y) => clauseRank(y.clause) - clauseRank(x.clause));
    const top = candidates[0];
    if (!top) return null;
    // The clause may state the values of the other term of a pair (前者反映每一万份基金份额在一天内实现的收益).
    const term = formerLatterTerm(unit.text, top.clause, `${c.stem} ${c.text}`);
    if (term) return statesInstead(unit, coverage, '主体不同', term);
    // A clause stating several of them (a table flattened into one line: 季度报告…15个工作日内…中期报告 上半年结束之日起
    // 2个月内…年度报告…3个月内) states the question's where its words lead to it.
    const placed = c.values.length === 1 ? placedValue(top.clause, top.stated, c.topic) : null;
    if (placed !== null) {
      if (c.values.includes(placed)) return { verdict: 'supported', unit, coverage, marks: [rawValue(top.clause, placed)] };
      return statesInstead(unit, coverage, '数字不同', rawValue(top.clause, placed));
    }
    // A value the stem itself states (上升1% in the stem, 下跌1% in an option) is not what a clause repeating the stem
    // states in the option's place: an option made only of the stem's values is stated only where the clause states
    // nothing else (其价格大约下跌百分之四 rules out 下跌1%).
    if (c.values.every((v) => top.stated.includes(v) || c.stemValues.has(v)) && c.values.some((v) => top.stated.includes(v)))
      return { verdict: 'supported', unit, coverage, marks: c.values.map((v) => rawValue(top.clause, v)) };
    const other = top.stated.find((v) => !c.values.includes(v));
    if (other === undefined) return null;
    const raw = rawValue(top.clause, other);
    return statesInstead(unit, coverage, '数字不同', raw);
  }

  // A sentence naming no option, under a section named after one (3.4.2 伞形基金): the section is its subject.
  const underHeading = headingReading(unit, c, coverage);
  if (underHeading) return underHeading;

  // Forms (names, formulas): of the clauses that state this option or another, the one that speaks most of the
  // question decides (美国通常称之为共同基金，英国…称之为单位信托基金).
  const formula = FORMULA.test(c.text);
  const named = clauses
    .map((clause) => {
      const form = exactForm(clause);
      // A name is stated by its written form, or (not a formula) by all of its own words (IPO退出 in 首次公开发行(IPO)).
      const byName = namesClaim(form, c);
      const own = !c.inStem && (byName || holdsOwnWords(clause, c));
      const others = othersNamed(form, c);
      // The names a reason may give as what the book states there: not one it names only to set aside (而不是标准差).
      const stated = othersNamed(form, c, (a) => setAsideBefore(form, a) === null);
      return { clause, own, byName, others: others.length, names: stated.length > 0 ? stated : others };
    })
    .filter((x) => x.own || x.others > 0);
  if (named.length > 0 && !c.statement) {
    // A question asking for the highest (收益最高的退出方式是) is settled only by a sentence that says highest or lowest:
    // one that names the options without it (退出方式：上市、并购或管理层回购, a table row of figures) neither
    // supports nor rules out any.
    if (superlativeUnstated(unit.text, c.stem)) return null;
    const top = named.sort((x, y) => clauseCoverage(y.clause) - clauseCoverage(x.clause) || Number(y.own) - Number(x.own))[0];
    if (!top) return null;
    if (top.own) {
      // Named only to be set aside for another (以贝塔系数而不是标准差作为…): the clause says it is not the one.
      const form = exactForm(top.clause);
      const aside = c.aliases.map((a) => setAsideBefore(form, a)).find((cue) => cue !== null);
      if (aside) return statesInstead(unit, coverage, '否定', aside);
      // An order written with arrows answers 最后 / 首先 by position: the option at that end, and no other.
      const asked = orderAsked(c.stem);
      const end = asked
        ? orderEnd(form, asked, [
            { text: c.text, aliases: c.aliases },
            ...c.otherTexts.map((text, j) => ({ text, aliases: c.others[j] ?? [] })),
          ])
        : null;
      if (end !== null && end !== c.text) {
        return { verdict: 'contradicted', unit, coverage, marks: [end], reason: `顺序：${asked === 'last' ? '最后' : '最先'}为${end}` };
      }
      const opposite = oppositeOf(top.clause, c.stem);
      if (opposite) return statesInstead(unit, coverage, '相反', opposite);
      // Found by its words under a negation (不从基金财产中列支 for 从基金财产中列支): the clause says the reverse.
      const negated = top.byName ? null : statedAgainst(top.clause, c.text, c.words);
      if (negated) return { verdict: 'contradicted', unit, coverage, ...negated };
      // The sentence goes on to deny the question's act of it: 基金管理人只负责…，本身并不经手基金财产的保管.
      const denied = deniedAfter(unit.text, top.clause, { stem: c.stem, topicWords: c.topic.words });
      if (denied) return statesInstead(unit, coverage, '否定', denied);
      const term = otherTerm(top.clause, termsOf(unit.chunk), c) ?? formerLatterTerm(unit.text, top.clause, c.stem);
      if (term) return statesInstead(unit, coverage, '主体不同', term);
      // A clause that names other options too, or enumerates (退出方式：IPO、M&A、MBO、破产清算), is a list: it places
      // the option among others, and binds it to the question less than a clause that names it alone
      // (首次公开发行(IPO)：收益最高).
      const list = top.others > 0 || (top.clause.match(/、/gu)?.length ?? 0) >= 2;
      // Marked as the clause writes it: the option itself, or where it is found by its words (IPO退出 in a list that
      // writes IPO), those words.
      const marks = top.byName ? [c.text] : c.words.filter((w) => [...w].length >= 2 && holds(top.clause, w));
      return { verdict: 'supported', unit, coverage: list ? coverage / 2 : coverage, marks };
    }
    if (formula) return { verdict: 'contradicted', unit, coverage, marks: [], reason: '公式不同' };
    // Names the sentence forbids where the question asks what is allowed (or allows where it asks what is forbidden)
    // are not what stands in this option's place.
    if (deonticAgainst(normalizeText(unit.text), sentenceEnd(unit.text, top.clause), c.asking)) return null;
    // Statements about the stem's subject are no alternatives for one place: another one stated is not this one denied.
    if (c.statementChoice) return null;
    // A clause listing choices (上市、并购或管理层回购) names one of them without ruling out the others.
    const listing = /[、]|或者?|以及|和|及/u.test(top.clause);
    // For a negated stem (尽职调查的类型不包括) the passage must list the others without this one: a table whose rows
    // name 业务、财务、法律尽职调查 rules out 税务尽职调查, a row naming 法律法规合规 in a comparison of two notions does
    // not rule out 行业规范合规.
    const listed = c.placeTaken ? [] : listedWithout(unit.chunk, c);
    // Where the others are all right (a negated stem, several to choose), a list of examples leaving this option out
    // does not rule it out.
    if (!c.placeTaken && givesExamples(top.clause)) return null;
    // An item of a list that only names a thing (基金定期报告包括：（一）基金年度报告；) is one of the list's things, and
    // another item may name this option in other words (（二）基金中期报告 for 半年度报告): it takes no option's place.
    // An item that states something of its own (零息债券的麦考利久期等于其剩余期限；) is read as any clause is.
    if (c.placeTaken && listMember(unit)) return null;
    if (clauseCoverage(top.clause) >= ON_QUESTION / 2 && (top.others > 1 || (!listing && (c.placeTaken || listed.length > 1)))) {
      // One other option where the question's words are: it stands in this one's place. Several: a list without it.
      if (listed.length > top.names.length) {
        // The list is the passage's, not this clause's (a table's rows, a list's lines): quoted from its first line
        // naming an option to its last.
        const list = listSpan(unit, c);
        return {
          verdict: 'contradicted',
          unit,
          ...(list ? { quoted: list } : {}),
          coverage,
          marks: list ? listed : [],
          reason: `教材此处为：${listed.join('、')}`,
        };
      }
      // Marked where the clause names them, so the quote shows what the book states in this option's place.
      const marks = namedForms(exactForm(top.clause), c, top.names);
      return { verdict: 'contradicted', unit, coverage, marks, reason: `教材此处为：${top.names.join('、')}` };
    }
    return null;
  }
  if (formula) return null;

  // Statements: most of the claim's words in one clause, with the same polarity.
  if (c.words.length >= 2 || (c.statement && c.words.length >= 1)) {
    // A clause, or a clause with the one before it in the same sentence when the two hold every word of a claim written
    // as one clause (在给定的置信水平和持有期内，投资组合可能遭受的最大损失 states 在给定…内的最大可能损失 across its comma); at
    // equal share the single clause. A claim of two clauses (由基金托管人计算，由基金管理人复核) is read clause by
    // clause: its words taken over two of the book's would lose who does what.
    const exact = named.some((x) => x.own);
    // The sentence must hold what sets this option apart from the others, not only the words they share.
    if (!exact && c.distinct.length > 0 && !c.distinct.some((w) => holds(unit.text, w))) return null;
    if (!exact && c.parts.length >= 2) return readParts(unit, clauses, c.parts, coverage);
    const oneClause = !/[，,；;]/u.test(c.text);
    const pairs = oneClause ? clauses.map((clause) => withLead.get(clause) ?? clause).filter((pair) => !clauses.includes(pair)) : [];
    // A clause that points back (这些费用由投资者直接承担，不从基金财产中列支), and the clauses after it, lean on the
    // sentence before it, where what it points to is named (申购费、赎回费等交易费用).
    const leaning =
      oneClause && !unit.lead
        ? clauses.flatMap((_, i) =>
            i > 0 && clauses.slice(1, i + 1).some((x) => ANAPHOR.test(x)) ? [clauses.slice(0, i + 1).join('')] : [],
          )
        : [];
    const top = [...clauses, ...pairs, ...leaning.filter((span) => !pairs.includes(span))]
      .map((clause) => ({ clause, share: tokenShare(withOpposites(clause, c.text), c.words) }))
      .filter((x) => clauses.includes(x.clause) || x.share === 1)
      .sort((x, y) => y.share - x.share)[0];
    const narrower = ONLY.test(c.text) && BOTH.test(unit.text) && !ONLY.test(unit.text);
    if (!top || (top.share < (narrower ? 0.3 : STATED_SHARE) && !exact)) return null;
    // The share in whole words must hold too: the analyzer also gives a word's pieces (基金托管人 → 托管, 管人, 托管人),
    // which let one name the clause holds outweigh the act it leaves out (基金财产独立于基金托管人的固有财产 does not
    // state 基金托管人可以挪用基金财产).
    const whole = wholeWords(c.words);
    if (!exact && !narrower && tokenShare(withOpposites(top.clause, c.text), whole) < STATED_SHARE) return null;
    const share = top.share;
    // Said of the other case than the stem's (价格低于净值时，则可以… for a stem asking what to do when it is 高于).
    const other = oppositeCase(unit.lead ? (unit.item ?? '') : unit.text, c.stem);
    if (other) return { ...statesInstead(unit, coverage, '相反', other), share };
    const against = statedAgainst(top.clause, c.text, c.words);
    if (against) return { verdict: 'contradicted', unit, coverage, share, ...against };
    if (narrower) {
      return {
        verdict: 'contradicted',
        unit,
        coverage,
        share,
        marks: [BOTH.exec(unit.text)?.[0] ?? ''],
        reason: '范围不同：教材为“既可…又可”',
      };
    }
    const term = otherTerm(top.clause, termsOf(unit.chunk), c) ?? formerLatterTerm(unit.text, top.clause, `${c.stem} ${c.text}`);
    if (term) return { ...statesInstead(unit, coverage, '主体不同', term), share };
    return { verdict: 'supported', unit, coverage, share, marks: c.words.filter((w) => holds(top.clause, w)) };
  }
  return null;
}

import { planWindows } from '../text/passage-windows.js';
import { quoteLocation } from '../text/citation.js';
import type { Chunk } from '../types.js';
import type { EvidenceItem } from './answer-types.js';
import { evidenceItem, flattenText, readerForm, termRanges } from './evidence.js';

/**
 * A passage as the clause reader reads it: its sentences as a reader reads them (a PDF line wrap does not end one),
 * every list item read with its lead, their clauses, a lead's subject, and the evidence item that quotes a unit.
 */

/** The verb that ends a list lead's subject (基金托管人|应当履行下列职责：). */
const LEAD_VERB = /应当|应|可以|负责|有权|不得|必须|须|享有|承担|履行|有下列|下列|包括|如下|以下|的(?:主要)?(?:职责|义务|权利|职权)/u;

/** A list item's marker at the start of its line: （一）, 1., - */
export const LIST_ITEM = /^\s*(?:[（(][一二三四五六七八九十百\d]+[）)]|\d+[.、．]|[-•·*]\s)/u;

/** A line that leads a list: it ends in its colon, which a note may set in bold (**投资管理职责：**). */
export const LEAD_END = /[：:][*_]*\s*$/u;

/**
 * A lead that runs into its first unmarked item, a clause ending in ； (`基金托管人的主要职责包括：安全保管基金财产；`);
 * the lead takes in a schedule's own lead after the colon (`…费率：申购费按申购金额分档——`).
 */
const CLAUSE_LIST_OPENING = /^(.*?[：:](?:[^：:；;]*?——)?)\s*[^：:]+[；;]$/u;

/** A schedule's own lead at the start of an item (`赎回费按持有期限Y分档——`): the items after it are its bands. */
const SUB_LEAD = /^[^：:；;]*?——/u;

/** A lead that runs into its first item in one sentence (`…应当履行下列职责：（一）依法募集资金…；`). */
const LEAD_OPENING = /^(.*[：:])\s*(?:[（(][一二三四五六七八九十百\d]+[）)]|\d+[.、．])/u;

const ARTICLE_START = /^第[一二三四五六七八九十百零\d]+条/u;

const WRAP = /(?<=[\p{Script=Han}\u3000-\u303f\uff00-\uffef])[ \t]*\n[ \t]*(?=[\p{Script=Han}\u3000-\u303f\uff00-\uffef])/gu;

/** One sentence (or list item read with its lead) of a passage: its own run for the quote, and its clauses. */
export interface Unit {
  chunk: Chunk;
  /** The text read (lead + item for a list item). */
  text: string;
  /** The passage's own run, for the quote. */
  span: string;
  /** The list's lead and the item, when the unit is a list item read with its lead. */
  lead?: string;
  item?: string;
  /** Quote the lead and the item apart (`lead…item`) even where they touch: a table's header line over its row, which would otherwise run into each other once the line break is gone. */
  apart?: boolean;
  /** Rank of its passage among the claim's passages (0 = best). */
  rank: number;
  /**
   * For a sentence read alone that is an item of a list (`（六）保存…；`, a clause of an unmarked list ending in ；, or
   * the lead's own sentence running into its first item, `…职责：（一）…；`), the list's lead: whose item it is.
   */
  listLead?: string;
}

/** The units of a passage: every sentence, and every list item read with its lead. */
export function unitsOf(chunk: Chunk, rank: number): Unit[] {
  const sentences = chunk.text
    .split(/(?<=[。；;！？!?\n])/u)
    .map((x) => x.trim())
    .filter((x) => x !== '');
  // Sentences of the text as a reader reads it: a PDF line that wraps between two CJK characters does not end one.
  // The lead in force is set by a sentence ending in a colon, or running into its first item (…职责：（一）…；, or
  // …职责包括：安全保管基金财产；), and kept over the items: marked ones (（二）…), or clauses ending in ；, the last in 。.
  let lead: string | undefined;
  let clauses = false;
  const out: Unit[] = [];
  const items: Unit[] = [];
  for (const text of chunk.text
    .replace(WRAP, '')
    .split(/(?<=[。；;！？!?\n])/u)
    .map((x) => x.trim())
    .filter((x) => x !== '')) {
    const opening = LEAD_OPENING.exec(text)?.[1];
    const marked = opening !== undefined || LIST_ITEM.test(text);
    const clauseOpening = marked ? undefined : CLAUSE_LIST_OPENING.exec(text)?.[1];
    const clauseItem = !marked && clauses && lead !== undefined && /[；;。]$/u.test(text) && !/[：:]/u.test(text);
    const subLead = clauseItem ? SUB_LEAD.exec(text)?.[0] : undefined;
    if (clauseOpening !== undefined) {
      lead = clauseOpening;
      clauses = true;
    } else if (subLead !== undefined) {
      // A schedule's own lead within the list (…；赎回费按持有期限Y分档——Y＜7日的，…；) leads the items after it.
      lead = subLead;
    } else if (!clauseItem) {
      lead = opening ?? (marked ? lead : LEAD_END.test(text) ? text : undefined);
      clauses = lead !== undefined && !marked;
    }
    const item = (marked || clauseItem || clauseOpening !== undefined) && lead !== undefined;
    out.push(item ? { chunk, text, span: text, rank, listLead: lead } : { chunk, text, span: text, rank });
    // An unmarked item after the lead's own sentence is also read with its lead, quoted `lead…item` (marked items are
    // read with theirs from the plan's windows below).
    if (clauseItem && subLead === undefined && lead !== undefined) {
      items.push({ chunk, text: `${lead}${text}`, span: text, lead, item: text, apart: true, rank });
    }
    if (clauseItem && /。$/u.test(text)) {
      lead = undefined;
      clauses = false;
    }
  }
  out.push(...items);
  // The plan's list items read with their lead (`…职责：` + `（八）…`): a window whose text is a lead ending in a
  // colon followed by one of the passage's sentences.
  for (const w of planWindows(chunk.text).windows) {
    if (w.span === undefined) continue;
    const item = sentences.find((x) => w.text.length > x.length && w.text.endsWith(x) && LIST_ITEM.test(x));
    if (!item) continue;
    const lead = w.text.slice(0, w.text.length - item.length);
    if (!/[：:]\s*$/u.test(lead)) continue;
    // The plan's lead is its last line; a lead a PDF wrapped (…其他全国性证券交易\n场所交易的公司，应当…：) starts where
    // its sentence does, lines above.
    const at = chunk.text.indexOf(w.span);
    const from = at < 0 ? at : wrappedFrom(chunk.text, at);
    if (from >= 0 && from < at) {
      const above = chunk.text
        .slice(from, at)
        .replace(WRAP, '')
        .replace(/\s*\n\s*$/u, '');
      const span = chunk.text.slice(from, at + w.span.length);
      out.push({ chunk, text: `${above}${w.text}`, span, lead: `${above}${lead}`, item, rank });
      continue;
    }
    out.push({ chunk, text: w.text, span: w.span, lead, item, rank });
  }
  return out;
}

/**
 * Where the sentence holding `at` starts, when lines a PDF wrapped between two Han characters lead to it (the line
 * above does not end a sentence, a lead or an item): `at` itself otherwise.
 */
function wrappedFrom(text: string, at: number): number {
  let start = at;
  // An article's first line starts its sentence: 第七十九条 is never the tail of the line above.
  for (let lines = 0; lines < 3 && start > 0 && text[start - 1] === '\n' && !ARTICLE_START.test(text.slice(start, start + 12)); lines++) {
    const lineStart = text.lastIndexOf('\n', start - 2) + 1;
    const line = text.slice(lineStart, start - 1);
    const next = text[start] ?? '';
    if (!/\p{Script=Han}$/u.test(line) || !/\p{Script=Han}/u.test(next) || LIST_ITEM.test(line)) break;
    start = lineStart;
  }
  return start;
}

/** Clauses of a unit at `，；` (a `：` binds a label to its value, and `、` lists, so neither cuts). */
export function clausesOf(text: string): string[] {
  return text
    .split(/(?<=[，,；;。])/u)
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

/** The subject of a list's lead: the words before its verb (基金托管人 in 基金托管人应当履行下列职责：). */
export function leadSubject(lead: string): string {
  const text =
    lead
      .trim()
      .replace(/^第[一二三四五六七八九十百零\d]+条\s*/u, '')
      .split(/[，,]/u)
      .at(-1) ?? '';
  const m = LEAD_VERB.exec(text);
  return (m ? text.slice(0, m.index) : '').trim();
}

/**
 * The unit quoted after a lead written earlier in its passage (`lead…item`, what stands between left out): a band after
 * its schedule's lead, an item after its label. Undefined when the passage does not write the lead before it. `apart`
 * quotes the two apart even where they touch (a label's line over its first item).
 */
export function withLeadBefore(unit: Unit, lead: string, apart = false): Unit | undefined {
  const text = unit.chunk.text;
  const at = text.indexOf(unit.span);
  const from = at > 0 ? text.lastIndexOf(lead, at) : -1;
  if (from < 0) return undefined;
  const span = text.slice(from, at + unit.span.length);
  return { ...unit, text: `${lead}${unit.span}`, span, lead, item: unit.span, ...(apart ? { apart } : {}) };
}

/**
 * The evidence of a verdict: its unit quoted whole, verbatim from the passage (a list item with its lead, the items
 * between left out as `…`), with its citation, chunk id and the quote's own pages.
 */
export function verdictEvidence(unit: Unit, marks: readonly string[]): EvidenceItem {
  const chunk = unit.chunk;
  let quote: string;
  // Quoted as the reader sees it (a note without its Markdown), and located in that same text.
  const reader = (text: string): string => flattenText(readerForm(chunk, text));
  if (unit.lead) {
    const lead = reader(unit.lead);
    const item = reader(unit.item ?? '');
    const whole = reader(unit.span);
    quote = !unit.apart && (whole === `${lead}${item}` || whole.length <= lead.length + item.length + 1) ? whole : `${lead}…${item}`;
  } else {
    quote = reader(unit.span);
  }
  const located = { ...chunk, text: readerForm(chunk, chunk.text) };
  const at = quoteLocation(located, quote.split('…')[0] ?? quote);
  const end = quoteLocation(located, quote.split('…').at(-1) ?? quote);
  const marked = marks.filter((m) => m.trim() !== '');
  // A verdict that marks one value may mark a one-character one (高 in a table row), where it occurs once; among a
  // claim's words a lone character (内, 或) is only a piece of them.
  const highlights = termRanges(quote, marked, { lone: marked.length === 1 });
  return evidenceItem(chunk, quote, highlights, at, end);
}

/**
 * How a list in a passage bears on a claim: a list of another party's duties than the stem's, a lead that says the
 * opposite of the stem, and a passage that lists the other options without this one.
 */
import { normalizeText } from '../text/analyzer.js';
import type { Chunk } from '../types.js';
import { coverageOf, namesClaim, othersNamed, type ClaimReading } from './claim-reading.js';
import { exactForm } from './claim-forms.js';
import { NEGATIVE } from './clause-cues.js';
import { leadSubject, unitsOf, type Unit } from './passage-units.js';
import { ON_QUESTION } from './reading-order.js';

/**
 * Whether a list lead's subject (its exact form) is another one of the same kind than each the stem names as its own
 * (基金托管人应当履行的职责…): a different word with the same head, the last character of a Chinese compound
 * (私募基金管理人 and 基金托管人, both 人). One holding the other (基金托管人, 托管人) is the same; one of another kind
 * (基金份额持有人 against 投资者) may name the same party, so it is not set apart.
 */
export function anotherSubject(subject: string, stem: string): boolean {
  const own = exactForm(leadSubject(stem))
    .split(/[、和及与或]/u)
    .filter((x) => /^\p{Script=Han}{2,}$/u.test(x));
  return own.length > 0 && own.every((x) => anotherOfKind(subject, x));
}

/**
 * Whether `party` is another one of the same kind as `own`: both two characters or more, neither holding the other,
 * and the same head, the last character of a Chinese compound (私募基金管理人 and 基金托管人, both 人).
 */
function anotherOfKind(party: string, own: string): boolean {
  const head = (x: string): string => [...x].at(-1) ?? '';
  return [...party].length >= 2 && [...own].length >= 2 && !own.includes(party) && !party.includes(own) && head(party) === head(own);
}

/** An enumeration closed by 等 (…、企业年金等). */
const OPEN_LIST = /[、，,][^、，,。；;]*?等{1,2}(?=$|[\s，,。；;：:）)」”"*])/u;

/** Whether a clause lists examples of a class (社保基金、保险资金、企业年金等), not the whole of it. */
export function givesExamples(clause: string): boolean {
  return OPEN_LIST.test(clause);
}

/** A line that opens with what it states, up to its colon (中国证监会性质：, **性质：**). */
const STATED_HEAD = /^[\s*_\-•·]*(\p{Script=Han}{2,24})[*_]*[：:]/u;

/**
 * The party a line states an attribute of, when that is another party than the one the stem asks it of: 中国证监会 in
 * 中国证监会性质：国务院直属事业单位, for a stem asking 中国证券投资基金业协会的性质是. The attribute is the end of the line's
 * head that the stem also writes (性质); the parties are the words before it, in the line and in the stem, and they are
 * another as {@link anotherSubject} reads a lead's (`anotherOfKind`: they differ and share their head, 会). Null otherwise.
 */
export function attributeOfAnother(line: string, stem: string): string | null {
  const head = STATED_HEAD.exec(exactForm(line))?.[1];
  if (head === undefined) return null;
  const asked = exactForm(stem);
  const chars = [...head];
  for (let k = 1; k < chars.length - 1; k++) {
    const attribute = chars.slice(k).join('');
    if ([...attribute].length < 2) break;
    const at = asked.indexOf(attribute);
    if (at < 0) continue;
    const party = chars.slice(0, k).join('').replace(/的$/u, '');
    const own = (
      asked
        .slice(0, at)
        .replace(/的$/u, '')
        .split(/[，,。；;:：()（）]/u)
        .at(-1) ?? ''
    ).replace(/^(?:下列|关于)+/u, '');
    return anotherOfKind(party, own) ? party : null;
  }
  return null;
}

/** The words by which a list's lead affirms what it lists (应当通过…审议决定, 可以投资于). */
export const AFFIRMING = /应当|必须|需要|须|可以|可|属于|包括/u;

/**
 * The cue by which a list's lead says the opposite of the stem's asking clause of the item that names the claim: one
 * of them negated (不需要, 不得, …) and the other not, where the lead speaks of the question. Null when both agree, when
 * the stem is read as 选错误的一项 (its claims are already the positive ones), or when the item does not name the
 * claim.
 */
export function leadAgainst(lead: string, item: string, c: ClaimReading): string | null {
  if (c.negatedStem || !namesClaim(exactForm(item), c) || coverageOf(lead, c.topic) < ON_QUESTION) return null;
  const normal = normalizeText(lead);
  const leadCue = NEGATIVE.exec(normal)?.[0];
  const askingCue = NEGATIVE.exec(c.asking)?.[0];
  if ((leadCue === undefined) === (askingCue === undefined)) return null;
  return leadCue ?? AFFIRMING.exec(normal)?.[0] ?? null;
}

/** The other options a passage names, in option order, when it does not name this one (empty when it does). */
export function listedWithout(chunk: Chunk, c: ClaimReading): string[] {
  const form = exactForm(chunk.text);
  return namesClaim(form, c) ? [] : othersNamed(form, c);
}

/**
 * The run of a passage from its first line naming another option to its last, read as a list item is (first line as
 * the lead, last as the item, quoted with … between when long); null when fewer than two lines name one.
 */
export function listSpan(unit: Unit, c: ClaimReading): Unit | null {
  const naming = unitsOf(unit.chunk, unit.rank).filter((u) => u.lead === undefined && othersNamed(exactForm(u.text), c).length > 0);
  const first = naming[0];
  const last = naming.at(-1);
  if (!first || !last || naming.length < 2) return null;
  const from = unit.chunk.text.indexOf(first.text);
  const to = unit.chunk.text.lastIndexOf(last.text);
  if (from < 0 || to <= from) return null;
  const span = unit.chunk.text.slice(from, to + last.text.length);
  return { chunk: unit.chunk, text: span, span, lead: first.text, item: last.text, rank: unit.rank };
}

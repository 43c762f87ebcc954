import { STATED_SHARE } from './claim-reading.js';
import { tokenShare } from './clause-cues.js';
import { clausesOf, unitsOf, type Unit } from './passage-units.js';
import type { Reading } from './reading-order.js';

/** A list is quoted whole up to this many characters; a longer one as its lead … its last item. */
const WHOLE_LIST_CHARS = 300;

/**
 * Readings for the statements no clause settles, where the others are items of one list the book gives whole: a
 * combination question asks which statements belong to a class (下列属于应当披露临时报告的重大事件的有), the book lists
 * that class (本书所称的重大事件主要包括：…；…。), and two or more statements are supported by items of that one list.
 * A statement the list does not hold is then read as not belonging (`contradicted`), quoting the list, rather than left
 * unsettled: exam statements are written against the book's own list. Only a list read whole counts: its lead and its
 * last item, ending the list in 。, in the same passage, so an item beyond the passage's end is never ruled out; and
 * a statement one clause of an item mostly holds (`STATED_SHARE` of its words, `words[i]`) may be that item written
 * otherwise, so it is not ruled out either. Null where nothing changes (the statement had a reading, or no such list).
 */
export function closedListReadings(readings: readonly (Reading | null)[], words: readonly (readonly string[])[]): (Reading | null)[] {
  const list = sharedList(readings);
  if (!list) return readings.map(() => null);
  return readings.map((r, i) => {
    if (r) return null;
    // A statement whose words one clause of an item mostly holds may be that item, written otherwise than a clause
    // reading finds it: the list does not rule it out. (A distractor made of words spread over an item's several
    // clauses, 基金份额总额… and …持有人人数, is not one of them.)
    const own = words[i] ?? [];
    const held = list.items.some((item) => clausesOf(item.text).some((clause) => tokenShare(clause, own) >= STATED_SHARE));
    return own.length > 0 && held ? null : list.reading;
  });
}

/**
 * The reading that quotes the list most supported statements are items of, when it is read whole, with the list's
 * items; else null.
 */
function sharedList(readings: readonly (Reading | null)[]): { reading: Reading; items: readonly Unit[] } | null {
  const groups = new Map<string, { unit: Unit; lead: string; count: number }>();
  for (const r of readings) {
    if (r?.verdict !== 'supported') continue;
    const lead = (r.unit.lead ?? r.unit.listLead)?.trim();
    if (lead === undefined || lead === '') continue;
    const key = `${r.unit.chunk.chunk_id}\u0000${lead}`;
    const group = groups.get(key) ?? { unit: r.unit, lead, count: 0 };
    group.count += 1;
    groups.set(key, group);
  }
  const best = [...groups.values()].filter((g) => g.count >= 2).sort((a, b) => b.count - a.count)[0];
  if (!best) return null;
  // The list's own sentences in the passage, in order: the lead's sentence (when it runs into its first item) and
  // every item read under that lead.
  const items = unitsOf(best.unit.chunk, best.unit.rank).filter((u) => u.lead === undefined && u.listLead?.trim() === best.lead);
  const last = items.at(-1);
  const text = best.unit.chunk.text;
  const from = text.indexOf(best.lead);
  if (!last || items.length < 2 || !/。$/u.test(last.text) || from < 0) return null;
  const to = text.indexOf(last.span, from);
  if (to < 0) return null;
  const whole = text.slice(from, to + last.span.length);
  const unit: Unit =
    [...whole].length <= WHOLE_LIST_CHARS
      ? { chunk: best.unit.chunk, text: whole, span: whole, rank: best.unit.rank }
      : { chunk: best.unit.chunk, text: whole, span: whole, lead: best.lead, item: last.span, apart: true, rank: best.unit.rank };
  return {
    reading: { verdict: 'contradicted', unit, coverage: 0, marks: [], reason: `不在所列之中：${best.lead.trim().replace(/[：:]$/u, '')}` },
    items,
  };
}

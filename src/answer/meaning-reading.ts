import { normalizeText } from '../text/analyzer.js';
import { headingsOf } from './claim-reading.js';
import { comparativeDirection } from './clause-cues.js';
import type { Unit } from './passage-units.js';
import type { Reading } from './reading-order.js';

/** A stem asking what a larger or smaller value of a measure means: 夏普比率越大，表示： / β系数越高说明. */
const ASKS_MEANING = /^(.{2,20}?)(越.)[，,]?\s*(?:则|就)?(?:表示|说明|意味着|反映|代表)/u;

/** An option saying more or less of a quantity: 单位风险的超额收益越高. */
const MORE_OR_LESS = /^(.{2,30}?)(越.)$/u;

/** The book's statement of what a measure is: 含义：单位风险的超额收益，越大越好. */
const MEANING = /含义[：:]\s*([^，,。；;\s]{2,30})/u;

/** What the book's statement of a measure says of each option (`meaningReadings`). */
export interface MeaningReadings {
  /** The reading of each option that says more or less of the quantity the measure is; null for the others. */
  readings: (Reading | null)[];
  /**
   * Whether a reading of option i from another rule rests on that same statement while the option speaks of another
   * quantity (单位风险的超额收益越小 against 含义：单位系统风险的超额收益): the statement says nothing of it.
   */
  silent(i: number, reading: Reading | null): boolean;
}

/**
 * Readings for options that say what more (or less) of a measure means (夏普比率越大，表示： 单位风险的超额收益越高 /
 * 越低), where the book states what the measure is in a passage about it (under a heading naming it, or naming it
 * itself): 含义：单位风险的超额收益. The measure is that quantity, so more of the one is more of the other: the option
 * saying the same direction is supported, the other direction contradicted, quoting the statement. An option saying
 * more or less of another quantity gets nothing from the statement, whatever words the two share.
 */
export function meaningReadings(stem: string, claims: readonly string[], units: readonly Unit[]): MeaningReadings {
  const asked = ASKS_MEANING.exec(stem.trim());
  const none: MeaningReadings = { readings: claims.map(() => null), silent: () => false };
  const wanted = asked ? comparativeDirection(asked[2]!) : 0;
  if (!asked || wanted === 0) return none;
  const measure = normalizeText(asked[1]!.replace(/^(?:一般来说|通常|一般)[，,]?/u, '').trim());
  const stated = units
    // A note's emphasis marks (**含义：**) are not part of what it says.
    .map((unit) => ({ unit, meaning: MEANING.exec(unit.text.replace(/[*_`]+/gu, ''))?.[1] }))
    .find(
      ({ unit, meaning }) =>
        meaning !== undefined && (normalizeText(unit.text).includes(measure) || normalizeText(headingsOf(unit.chunk)).includes(measure)),
    );
  if (!stated?.meaning) return none;
  const meaning = stated.meaning;
  const quantity = normalizeText(meaning);
  // Each option's quantity and direction, where it says more or less of one.
  const said = claims.map((claim) => {
    const m = MORE_OR_LESS.exec(claim.trim());
    const way = m ? comparativeDirection(m[2]!) : 0;
    return m && way !== 0 ? { quantity: normalizeText(m[1]!), way } : null;
  });
  const readings = said.map((option): Reading | null => {
    if (option?.quantity !== quantity) return null;
    const same = option.way === wanted;
    return {
      verdict: same ? 'supported' : 'contradicted',
      unit: stated.unit,
      coverage: 0,
      marks: [meaning],
      ...(same ? {} : { reason: `相反：${meaning}${asked[2]!}` }),
    };
  });
  const statement = stated.unit;
  return {
    readings,
    silent: (i, reading) =>
      readings[i] === null &&
      said[i] !== null &&
      reading !== null &&
      reading.unit.chunk.chunk_id === statement.chunk.chunk_id &&
      (reading.unit.text.includes(statement.text) || statement.text.includes(reading.unit.text)),
  };
}

import type { VerdictKind } from './answer-types.js';
import type { Unit } from './passage-units.js';

/** How a clause must cover the question's words (idf-weighted share) to speak of it. */
export const ON_QUESTION = 0.5;

/** What one clause says of a claim: its verdict, the unit read, and how it ranks among the claim's readings. */
export interface Reading {
  verdict: Exclude<VerdictKind, 'not_found'>;
  unit: Unit;
  /** How much of the question's words the unit holds (the deciding clause's coverage). */
  coverage: number;
  reason?: string;
  /** Words to mark in the quote. */
  marks: string[];
  /** What is quoted when it is not the unit read (a passage's list read from one of its lines). */
  quoted?: Unit;
  /** Read in the table column the question asks for (option-verdicts' `readRow`). */
  column?: boolean;
  /** Read in the band of a schedule that holds the question's amount or period (`bandReading`). */
  band?: boolean;
  /** For a statement read by its words: the share of the claim's words its deciding clause holds. */
  share?: number;
}

/**
 * Whether reading `a` of one claim outranks `b`: the verdict is the best reading's. A table column asked for, then the
 * band of a schedule holding the question's case, then coverage of the question, a statement's share of words, a list
 * item read with its lead, the passage's rank, and at last a clause stating the claim over one stating another value.
 */
export function betterReading(a: Reading, b: Reading): boolean {
  // A table row read in the column the question asks (适用事项——…特别决议：…) says more than a sentence that names no
  // column, even one holding more of the claim's words: the stem's column is what the question turns on, and a list of
  // the meeting's powers that holds 调整…报酬标准 does not say which resolution it needs.
  const column = (r: Reading): boolean => r.column === true && r.coverage >= ON_QUESTION;
  if (column(a) !== column(b)) return column(a);
  // The band of a schedule that holds the question's own amount or period (1年≤Y＜2年的 for 持有18个月) states the rule
  // for its case, which a worked example of another case (赎回五万份…赎回费率为0.5%) does not.
  if (a.band !== b.band) return a.band === true;
  if (Math.abs(a.coverage - b.coverage) > 1e-9) return a.coverage > b.coverage;
  // Of two clauses that speak of the question alike, the one holding more of a statement's words states it: 基金托管人与
  // 基金管理人不得为同一机构 (every word of 基金托管人可以与基金管理人为同一机构) over a sentence that names the two
  // parties and some 机构 only.
  if (a.share !== undefined && b.share !== undefined && Math.abs(a.share - b.share) > 1e-9) return a.share > b.share;
  // A list item read with its lead says more than the item alone: who does it.
  if ((a.unit.lead === undefined) !== (b.unit.lead === undefined)) return a.unit.lead !== undefined;
  if (a.unit.rank !== b.unit.rank) return a.unit.rank < b.unit.rank;
  // At equal coverage and rank, a clause that states the claim outweighs one that states another value.
  return a.verdict === 'supported' && b.verdict === 'contradicted';
}

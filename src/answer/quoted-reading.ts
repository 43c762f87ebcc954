import type { Chunk } from '../types.js';
import type { Unit } from './passage-units.js';

/**
 * Which of the clauses that settle an option alike is quoted. The verdict is the best reading's; the quote may come
 * from another reading with the same verdict, since a book often states one fact in several places (a section and the
 * chapter's summary, two subjects' chapters) and a question is about one of them. Of clauses that speak of the question
 * alike (the same share of its words), the one whose nearest heading names more of the question (`4.3.1
 * 基金管理人的市场准入` over `14.2.1 设立条件` for a question about 基金管理人), and then the one in the passage the stem's
 * retrieval ranked higher.
 * Nothing here changes a verdict: every candidate has the best reading's verdict, table column and schedule band.
 */

/** What the choice reads of a clause reading (the reader's own `Reading` has more). */
export interface QuoteCandidate {
  verdict: 'supported' | 'contradicted';
  unit: Unit;
  /** Read in the table column the question asks for. */
  column?: boolean;
  /** Read in the band of a schedule that holds the question's amount or period. */
  band?: boolean;
  /** For a statement read by its words: the share of the claim's words its clause holds. */
  share?: number;
}

/** How the question's words lie in a clause and its place, for {@link quotedReading}. */
export interface QuotePlace<R extends QuoteCandidate> {
  /** How much of the question the reading's own clause speaks of, as the reader ranks it, its headings left out. */
  own: (reading: R) => number;
  /** The same share in one heading (or the book's name). */
  heading: (text: string) => number;
  /** The rank of a passage among those retrieved for the stem, best first (Infinity when not retrieved for it). */
  stemRank: (chunk: Chunk) => number;
  /** The reader's own order of readings (true when `a` is better): the last tie-break, so a full tie keeps its choice. */
  better: (a: R, b: R) => boolean;
  /** The share of the question's words a clause holds on its own to speak of it (the reader's `ON_QUESTION`). */
  onQuestion: number;
}

const EPSILON = 1e-9;

/**
 * Whether a reading settles the option as `best` does: the same verdict, read the same way (table column, schedule
 * band), a statement's words held as fully, and a list item read with its lead where `best` has one (who does it).
 */
function alike(a: QuoteCandidate, best: QuoteCandidate): boolean {
  return (
    a.verdict === best.verdict &&
    (a.column === true) === (best.column === true) &&
    (a.band === true) === (best.band === true) &&
    (a.share ?? 1) >= (best.share ?? 1) - EPSILON &&
    (best.unit.lead === undefined || a.unit.lead !== undefined)
  );
}

/** The shares of the question's words in a passage's headings, nearest first, then in the book's name. */
function headingShares(chunk: Chunk, heading: (text: string) => number): number[] {
  return [...chunk.headings].reverse().map(heading).concat(heading(chunk.book));
}

/** Positive when `a`'s place names more of the question than `b`'s, nearest heading first. */
function byPlace(a: Chunk, b: Chunk, heading: (text: string) => number): number {
  const x = headingShares(a, heading);
  const y = headingShares(b, heading);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (Math.abs(d) > EPSILON) return d;
  }
  return 0;
}

/** The reading whose clause is quoted for an option whose verdict `best` (the best of `readings`) gives. */
export function quotedReading<R extends QuoteCandidate>(best: R, readings: readonly R[], place: QuotePlace<R>): R {
  // A clause restating what its chapter stated earlier was once set aside for the first statement: on a statute library
  // that quoted a condition article, or another law's custodian, for a duty, so the reader's ranking of the alike
  // readings stands first here.
  const same = readings.filter((r) => r === best || alike(r, best));
  const top = Math.max(...same.map(place.own));
  const tied = same.filter((r) => place.own(r) >= top - EPSILON);
  return tied.reduce((chosen, r) => {
    const where = byPlace(r.unit.chunk, chosen.unit.chunk, place.heading);
    if (where !== 0) return where > 0 ? r : chosen;
    const rank = place.stemRank(r.unit.chunk);
    const chosenRank = place.stemRank(chosen.unit.chunk);
    if (rank !== chosenRank) return rank < chosenRank ? r : chosen;
    return place.better(r, chosen) ? r : chosen;
  }, tied[0] ?? best);
}

import type { AnswerMode, QuestionKind } from '../answer/answer-types.js';
import { confidenceWords } from '../answer/answer-json.js';
import type { EvalReport, EvidenceRef, RunRecord } from './eval-types.js';

/** How one mode did on one question: right, wrong (a wrong letter or a fallback answer), or abstained (no letter). */
export type ModeOutcome = 'right' | 'wrong' | 'abstained';

/** Where a question's chapter came from: the dataset's gold evidence, the top evidence of an answer, or nowhere. */
export type ChapterSource = 'gold' | 'evidence' | 'none';

/** The label of questions with neither gold evidence nor any evidence. */
export const NO_CHAPTER = '(no chapter)';

/** One question with its result in every mode: what the per-question report shows (one card, not one per mode). */
export interface QuestionResult {
  id: string;
  question: string;
  options: { letter: string; text: string }[];
  gold: string;
  /** How the answerer read it (from the first record that says; null for older run files). */
  kind: QuestionKind | null;
  negated: boolean | null;
  /** `book › chapter`, see `questionChapter`. */
  chapter: string;
  chapterSource: ChapterSource;
  /** The accuracy of a uniform random guess on this question, see `chanceOf`. */
  chance: number;
  /** The run record of each mode that answered it. */
  records: Partial<Record<AnswerMode, RunRecord>>;
  outcomes: Partial<Record<AnswerMode, ModeOutcome>>;
}

/** `right` for a correct answer; `abstained` when no letter was given; else `wrong` (fallback answers included). */
export function outcomeOf(r: Pick<RunRecord, 'correct' | 'predicted'>): ModeOutcome {
  if (r.correct) return 'right';
  return r.predicted === '' ? 'abstained' : 'wrong';
}

/**
 * The accuracy of guessing at random. A single-answer question with n options: 1/n. A multi-answer question (read as
 * multi-select, or a gold answer of several letters) is scored right only on the exact set, so a uniform guess over the
 * non-empty subsets of its options is right 1/(2^n − 1) of the time.
 */
export function chanceOf(q: { options: readonly unknown[]; gold: string; kind: QuestionKind | null }): number {
  const n = Math.max(1, q.options.length);
  const multi = q.kind === 'multi' || q.gold.length > 1;
  return multi ? 1 / (2 ** n - 1) : 1 / n;
}

/** The chance level of a set: the mean chance of its questions (null for an empty set). */
export function chanceAccuracy(questions: readonly Pick<QuestionResult, 'chance'>[]): number | null {
  if (questions.length === 0) return null;
  return questions.reduce((s, q) => s + q.chance, 0) / questions.length;
}

/** The chance level of the report's questions, and how it is defined (shown under the chart and in Markdown). */
export function chanceNote(questions: readonly QuestionResult[]): { chance: number | null; note: string } {
  const chance = chanceAccuracy(questions);
  const multi = questions.filter((q) => q.kind === 'multi' || q.gold.length > 1).length;
  const note =
    chance === null
      ? ''
      : `chance level ${(chance * 100).toFixed(1)}%: the mean over the questions of 1/(number of options)` +
        (multi > 0
          ? `, and 1/(2^n − 1) for the ${multi} multi-answer questions (a uniform guess among the non-empty sets of its n options)`
          : '');
  return { chance, note };
}

/** Modes whose evidence names a question's chapter, most trusted first (hybrid is the default `ask` mode). */
const CHAPTER_MODE_ORDER: readonly AnswerMode[] = ['hybrid', 'keyword', 'vector', 'agent', 'baseline'];

function topEvidence(r: RunRecord): EvidenceRef | undefined {
  return r.evidence[0] ?? r.retrieved[0];
}

const NUMERAL = '[一二三四五六七八九十百零〇两\\d]+';
const CHAPTER_HEADING = new RegExp(`^第${NUMERAL}章`, 'u');
const PART_HEADING = new RegExp(`^第${NUMERAL}(?:编|分编|部分|篇)`, 'u');

/**
 * The chapter part of a heading path: the first heading numbered as a chapter (第X章), after the numbered parts that hold
 * it (第X编, 第X分编: the Civil Code has a 第二章 in every 编); an unnumbered title above it (a law's name heading its
 * own file) is left out. A path without a numbered chapter gives its outermost heading.
 */
export function chapterOfHeadings(headings: readonly string[]): string[] {
  const at = headings.findIndex((h) => CHAPTER_HEADING.test(h.trim()));
  if (at < 0) return headings.slice(0, 1);
  return [...headings.slice(0, at).filter((h) => PART_HEADING.test(h.trim())), headings[at] as string];
}

/**
 * A question's chapter, as `book › chapter`: the gold evidence's chapter when the dataset gives one; otherwise the
 * chapter (see `chapterOfHeadings`) of the top evidence (cited, else retrieved) of the first mode in hybrid, keyword,
 * vector, agent order, so every mode's accuracy in a chapter is over the same questions.
 */
export function questionChapter(records: Partial<Record<AnswerMode, RunRecord>>): { chapter: string; source: ChapterSource } {
  const any = Object.values(records).find((r): r is RunRecord => r !== undefined);
  const gold = any?.gold_evidence;
  if (gold?.chapter && gold.chapter.trim() !== '') {
    return { chapter: [gold.book ?? '', gold.chapter.trim()].filter((s) => s !== '').join(' › '), source: 'gold' };
  }
  for (const mode of CHAPTER_MODE_ORDER) {
    const r = records[mode];
    const top = r ? topEvidence(r) : undefined;
    if (!top) continue;
    const headings = top.headings && top.headings.length > 0 ? chapterOfHeadings(top.headings) : [top.chapter];
    return { chapter: [top.book, ...headings].filter((s) => s !== '').join(' › ') || NO_CHAPTER, source: 'evidence' };
  }
  return { chapter: NO_CHAPTER, source: 'none' };
}

/** Every question of the report once, in dataset order, with its record and outcome per mode. */
export function questionResults(report: Pick<EvalReport, 'modes' | 'records'>): QuestionResult[] {
  const byId = new Map<string, Partial<Record<AnswerMode, RunRecord>>>();
  for (const m of report.modes) {
    for (const r of report.records[m.mode] ?? []) {
      const entry = byId.get(r.id) ?? {};
      entry[m.mode] = r;
      byId.set(r.id, entry);
    }
  }
  return [...byId.entries()].map(([id, records]) => {
    const all = Object.values(records).filter((r): r is RunRecord => r !== undefined);
    const first = all[0] as RunRecord;
    const outcomes: QuestionResult['outcomes'] = {};
    for (const [mode, r] of Object.entries(records) as [AnswerMode, RunRecord][]) outcomes[mode] = outcomeOf(r);
    const kind = all.find((r) => r.kind !== undefined)?.kind ?? null;
    const negated = all.find((r) => r.negated !== undefined)?.negated ?? null;
    const options = all.find((r) => r.options !== undefined)?.options ?? [];
    const { chapter, source } = questionChapter(records);
    return {
      id,
      question: first.question,
      options,
      gold: first.gold,
      kind,
      negated,
      chapter,
      chapterSource: source,
      chance: chanceOf({ options, gold: first.gold, kind }),
      records,
      outcomes,
    };
  });
}

/** One filter of the per-question view: a stable key (used in the page), a label, and the questions it keeps. */
export interface QuestionFilter {
  key: string;
  label: string;
  ids: string[];
}

/**
 * The filters a teacher needs: all; wrong in any mode; wrong in mode X only (for each mode, when there are two or more);
 * wrong in every mode; modes disagree (right in some, wrong in others); right in every mode; abstained in any mode
 * (when some did). Wrong means not right: a wrong
 * letter, a fallback answer, or an abstention.
 */
export function questionFilters(questions: readonly QuestionResult[], modes: readonly AnswerMode[]): QuestionFilter[] {
  const notRight = (q: QuestionResult, m: AnswerMode): boolean => q.outcomes[m] !== undefined && q.outcomes[m] !== 'right';
  const answered = (q: QuestionResult): AnswerMode[] => modes.filter((m) => q.outcomes[m] !== undefined);
  const pick = (key: string, label: string, keep: (q: QuestionResult) => boolean): QuestionFilter => ({
    key,
    label,
    ids: questions.filter(keep).map((q) => q.id),
  });
  const filters = [pick('all', 'all', () => true), pick('wrong-any', 'wrong in any mode', (q) => answered(q).some((m) => notRight(q, m)))];
  if (modes.length >= 2) {
    for (const mode of modes) {
      filters.push(
        pick(
          `wrong-only-${mode}`,
          `wrong in ${mode} only`,
          (q) => notRight(q, mode) && answered(q).every((m) => m === mode || !notRight(q, m)),
        ),
      );
    }
    filters.push(pick('wrong-all', 'all modes wrong', (q) => answered(q).length > 0 && answered(q).every((m) => notRight(q, m))));
    filters.push(
      pick('disagree', 'modes disagree', (q) => answered(q).some((m) => notRight(q, m)) && answered(q).some((m) => !notRight(q, m))),
    );
  }
  filters.push(
    pick('right-all', modes.length >= 2 ? 'right in all modes' : 'right', (q) => {
      const ms = answered(q);
      return ms.length > 0 && ms.every((m) => q.outcomes[m] === 'right');
    }),
  );
  const abstained = pick('abstained-any', 'abstained in any mode', (q) => answered(q).some((m) => q.outcomes[m] === 'abstained'));
  if (abstained.ids.length > 0) filters.push(abstained);
  return filters;
}

/** Accuracy of one mode over the questions of one chapter. */
export interface ChapterModeScore {
  correct: number;
  total: number;
  accuracy: number | null;
}

/** One row of the breakdown by chapter. */
export interface ChapterRow {
  chapter: string;
  /** Questions in the chapter, and how many took their chapter from gold evidence vs. from an answer's evidence. */
  total: number;
  fromGold: number;
  fromEvidence: number;
  byMode: Partial<Record<AnswerMode, ChapterModeScore>>;
}

/** 第十二章 → 12, 第五编 → 5 (up to 999, enough for headings); null when the text has no such number. */
function headingNumber(text: string): number | null {
  const m = new RegExp(`^第(${NUMERAL})`, 'u').exec(text.trim());
  if (!m?.[1]) return null;
  const s = m[1];
  if (/^\d+$/.test(s)) return Number(s);
  const digit: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
  let total = 0;
  let current = 0;
  for (const ch of s) {
    if (ch === '百') {
      total += (current || 1) * 100;
      current = 0;
    } else if (ch === '十') {
      total += (current || 1) * 10;
      current = 0;
    } else current = digit[ch] ?? 0;
  }
  return total + current;
}

/**
 * Accuracy per mode per chapter (chapters from `questionChapter`). Rows are ordered by book (in order of first
 * appearance), then chapter number, then name; questions without a chapter come last.
 */
export function chapterBreakdown(questions: readonly QuestionResult[], modes: readonly AnswerMode[]): ChapterRow[] {
  const rows = new Map<string, ChapterRow>();
  const bookOrder = new Map<string, number>();
  for (const q of questions) {
    const row = rows.get(q.chapter) ?? { chapter: q.chapter, total: 0, fromGold: 0, fromEvidence: 0, byMode: {} };
    row.total++;
    if (q.chapterSource === 'gold') row.fromGold++;
    if (q.chapterSource === 'evidence') row.fromEvidence++;
    for (const m of modes) {
      const outcome = q.outcomes[m];
      if (outcome === undefined) continue;
      const score = row.byMode[m] ?? { correct: 0, total: 0, accuracy: null };
      score.total++;
      if (outcome === 'right') score.correct++;
      score.accuracy = score.correct / score.total;
      row.byMode[m] = score;
    }
    rows.set(q.chapter, row);
    const book = q.chapter.split(' › ')[0] ?? '';
    if (!bookOrder.has(book)) bookOrder.set(book, bookOrder.size);
  }
  // Unnumbered headings sort after numbered ones at the same level; ties fall back to the label.
  const key = (r: ChapterRow): number[] => {
    const [book = '', ...path] = r.chapter.split(' › ');
    return [r.chapter === NO_CHAPTER ? 1 : 0, bookOrder.get(book) ?? 0, ...path.map((h) => headingNumber(h) ?? 1e6)];
  };
  return [...rows.values()].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
      const d = (ka[i] ?? -1) - (kb[i] ?? -1);
      if (d !== 0) return d;
    }
    return a.chapter < b.chapter ? -1 : a.chapter > b.chapter ? 1 : 0;
  });
}

/** The confidence words of a record (`high`/`medium`/`low`/`guess`): as stored, or as `ask` would say them for older run files. */
export function recordConfidenceWords(r: Pick<RunRecord, 'confidence' | 'confidence_words' | 'guess'>): string {
  if (r.confidence_words) return r.confidence_words;
  return confidenceWords({ confidence: r.confidence, ...(r.guess ? { guess: { answer: r.guess, confidence: r.confidence } } : {}) });
}

/** One piece of evidence of a question, with the modes that cited it (or, uncited, retrieved it as their top passages). */
export interface QuestionEvidence {
  ref: EvidenceRef;
  modes: AnswerMode[];
  /** True for evidence an answer cites (with its quote); false for the closest passages of a mode that cited none. */
  cited: boolean;
}

/**
 * The evidence of a question across modes, each item once: what the answers cite (same chunk and quote = same item,
 * listing every mode that cited it), then, for modes that cited nothing (abstained, no evidence), their top three
 * retrieved passages, so a wrong or empty answer can still be traced to what retrieval found.
 */
export function questionEvidence(q: Pick<QuestionResult, 'records'>, modes: readonly AnswerMode[]): QuestionEvidence[] {
  const out: QuestionEvidence[] = [];
  const index = new Map<string, QuestionEvidence>();
  const add = (ref: EvidenceRef, mode: AnswerMode, cited: boolean): void => {
    const key = `${cited ? 'c' : 'r'}\u0000${ref.chunk_id}\u0000${cited ? (ref.quote ?? '') : ''}`;
    const seen = index.get(key);
    if (seen) {
      if (!seen.modes.includes(mode)) seen.modes.push(mode);
      return;
    }
    const item = { ref, modes: [mode], cited };
    index.set(key, item);
    out.push(item);
  };
  for (const m of modes) for (const e of q.records[m]?.evidence ?? []) add(e, m, true);
  for (const m of modes) {
    const r = q.records[m];
    if (r && r.evidence.length === 0) for (const e of r.retrieved.slice(0, 3)) add(e, m, false);
  }
  return out;
}

import type { Analyzer } from './analyzer.js';

/**
 * How the offline answerer cuts a passage into windows (clauses, sentences, consecutive sentence pairs, and each list
 * item with its lead), and which separately segmented pieces make up each window's words. Shared by ingest, which
 * segments the pieces once and stores their tokens, and by the answerer, which builds the windows from them at
 * question time. A list item read with its lead adds no piece, so stored tokens serve it too.
 *
 * Why pieces: jieba cuts, and the width and numeral normalisation reads, only runs of letters, digits and CJK
 * characters, never across punctuation or a line break. So a sentence's words are its clauses' words, and a pair's
 * its sentences' words, whenever they meet at punctuation. Only where a sentence was cut at a bare line break (a PDF
 * line that wraps mid-word, "结" + "算") does the pair read differently: there the piece is the join of the first
 * sentence's last clause and the second's first clause, segmented as one text.
 */

/** A sentence ends after one of these (kept with it), a clause after one of `CLAUSE_END`. */
const SENTENCE_END = /(?<=[。；;！？!?\n])/;
const CLAUSE_END = /(?<=[，,、：:])/;
/** A sentence ending in one of these joins the next without changing either's words. */
const JOINS_CLEANLY = /[。；;！？!?，,、：:]$/;

/** One window: its text and the pieces (indices into `WindowPlan.pieces`) whose tokens are its tokens. */
export interface PlannedWindow {
  readonly text: string;
  readonly pieces: readonly number[];
  /** Joined at a bare line break: its plain characters are read from the whole text, not concatenated. */
  readonly bridged: boolean;
  /**
   * Only where the window's text is not the passage's own run: a list item read with its lead (the run from the lead
   * to the item, the items between included), or a pair of sentences with blank lines between them. A quote shows it.
   */
  readonly span?: string;
}

/** The windows of one passage, in the answerer's order, and the texts to segment for them. */
export interface WindowPlan {
  /** Segmented separately: every clause of every sentence (a sentence without clauses is one), then every bridge. */
  readonly pieces: readonly string[];
  /** `pieces[0, clauses)` are the clauses in text order, together the whole text but for spaces; the rest bridges. */
  readonly clauses: number;
  /** Clauses of multi-clause sentences first, then each sentence followed by its pair with the next. */
  readonly windows: readonly PlannedWindow[];
}

/** Version of the plan's rules; stored with the pieces' tokens, which are ignored when it differs. */
export const WINDOW_PLAN_VERSION = '1';

function nonEmptyParts(text: string, boundary: RegExp): string[] {
  return text
    .split(boundary)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A list item: `（三）`, `(3)`, `3.` or `3、` at its start. */
const LIST_ITEM = /^(?:[（(][一二三四五六七八九十百\d]+[）)]|\d+[.、．])/u;

/** A sentence cut at a bare line break (a PDF line wrapping inside an item): what follows continues it. */
function wrapped(sentence: string | undefined): boolean {
  return sentence !== undefined && !/[。；;！？!?]$/u.test(sentence);
}

/**
 * The index of the last clause of a list's lead among a sentence's clauses, or -1: a clause ending with a colon that
 * ends the sentence (the items follow as sentences) or is followed by a list item (`…解除劳动合同：（一）…`).
 */
function leadClauseEnd(clauses: readonly string[]): number {
  for (let i = clauses.length - 1; i >= 0; i--) {
    if (/[：:]$/u.test(clauses[i] ?? '') && (i === clauses.length - 1 || LIST_ITEM.test(clauses[i + 1] ?? ''))) return i;
  }
  return -1;
}

/** Plans the windows of a passage. A text with no sentence at all (blank) is one window of itself. */
export function planWindows(text: string): WindowPlan {
  const sentences = nonEmptyParts(text, SENTENCE_END);
  const pieces: string[] = [];
  const clauseWindows: PlannedWindow[] = [];
  const sentencePieces = sentences.map((sentence) => {
    const clauses = nonEmptyParts(sentence, CLAUSE_END);
    const atoms = clauses.length > 1 ? clauses : [sentence];
    const ids = atoms.map((atom) => pieces.push(atom) - 1);
    if (clauses.length > 1) ids.forEach((id, i) => clauseWindows.push({ text: atoms[i] ?? '', pieces: [id], bridged: false }));
    return ids;
  });
  const clauses = pieces.length;
  const windows = clauseWindows;
  // Where each sentence starts in the text (sentences are trimmed pieces of it, in order).
  const starts: number[] = [];
  let cursor = 0;
  for (const sentence of sentences) {
    const at = text.indexOf(sentence, cursor);
    starts.push(at);
    cursor = at + sentence.length;
  }
  const sentenceStart = (i: number): number => starts[i] ?? 0;
  // The lead of a list (`…有下列情形之一的，劳动者可以解除劳动合同：`) and the item a question is about may stand
  // several items apart; each item is also read with the lead, so a window holds both the rule and its case.
  // `sentence`: where the lead starts (the start of its sentence). A line wrapping inside an item does not end the list.
  let lead: { text: string; pieces: number[]; sentence: number } | null = null;
  sentences.forEach((sentence, i) => {
    const own = sentencePieces[i] ?? [];
    windows.push({ text: sentence, pieces: own, bridged: false });
    if (lead && LIST_ITEM.test(sentence)) {
      // The passage's own characters, line breaks included, so a quote finds them as they stand.
      const span = text.slice(sentenceStart(lead.sentence), sentenceStart(i) + sentence.length);
      windows.push({ text: `${lead.text}${sentence}`, pieces: [...lead.pieces, ...own], bridged: false, span });
    } else if (!wrapped(sentences[i - 1])) lead = null;
    const leadEnd = leadClauseEnd(own.map((id) => pieces[id] ?? ''));
    if (leadEnd >= 0) {
      const leadPieces = own.slice(0, leadEnd + 1);
      lead = { text: leadPieces.map((id) => pieces[id] ?? '').join(''), pieces: leadPieces, sentence: i };
    }
    const next = sentences[i + 1];
    const nextPieces = sentencePieces[i + 1];
    if (next === undefined || !nextPieces) return;
    const pair = `${sentence}${next}`;
    // A quote finds the pair as the passage has it, with whatever blank lines stand between the two sentences.
    const raw = text.slice(sentenceStart(i), sentenceStart(i + 1) + next.length);
    const span = raw === pair ? {} : { span: raw };
    if (JOINS_CLEANLY.test(sentence)) {
      windows.push({ text: pair, pieces: [...own, ...nextPieces], bridged: false, ...span });
      return;
    }
    const last = own[own.length - 1] ?? 0;
    const first = nextPieces[0] ?? 0;
    const bridge = pieces.push(`${pieces[last] ?? ''}${pieces[first] ?? ''}`) - 1;
    windows.push({ text: pair, pieces: [...own.slice(0, -1), bridge, ...nextPieces.slice(1)], bridged: true, ...span });
  });
  if (windows.length === 0) return { pieces: [text], clauses: 1, windows: [{ text, pieces: [0], bridged: false }] };
  return { pieces, clauses, windows };
}

/** The text a passage's headings are segmented from, for the answerer's heading match. */
export function headingText(chunk: { chapter: string; section: string; subsection: string; figure_ref: string }): string {
  return `${chunk.chapter} ${chunk.section} ${chunk.subsection} ${chunk.figure_ref}`;
}

/** A passage segmented ahead of the question: its headings' tokens and each planned piece's tokens. */
export interface PassageTokens {
  readonly heading: readonly string[];
  readonly pieces: readonly (readonly string[])[];
}

/** A passage segmented for the index: what the answerer reads back, plus the whole text's tokens in order. */
export interface SegmentedPassage extends PassageTokens {
  /** The text's tokens: its clauses' tokens one after another, the same as segmenting the text whole. */
  readonly text: readonly string[];
}

/**
 * Segments a passage's headings and the pieces of its window plan, once for both the keyword index (the text's
 * tokens) and the answerer (every piece's tokens). The headings go through `headingAnalyzer` (default `analyzer`):
 * the index writer passes a memoized one, as every chunk of a section repeats its headings.
 */
export function segmentPassage(
  chunk: { text: string; chapter: string; section: string; subsection: string; figure_ref: string },
  analyzer: Pick<Analyzer, 'tokens' | 'tokensOfEach'>,
  headingAnalyzer: { tokens(text: string): string[] } = analyzer,
): SegmentedPassage {
  const plan = planWindows(chunk.text);
  const pieces = analyzer.tokensOfEach ? analyzer.tokensOfEach(plan.pieces) : plan.pieces.map((p) => analyzer.tokens(p));
  return { heading: headingAnalyzer.tokens(headingText(chunk)), pieces, text: pieces.slice(0, plan.clauses).flat() };
}

/**
 * One line per list, tokens separated by spaces: the headings first, then the pieces. Tokens never hold whitespace
 * (the analyzer cuts at it), so the text is unambiguous.
 */
export function encodePassageTokens(t: PassageTokens): string {
  return [t.heading, ...t.pieces].map((tokens) => tokens.join(' ')).join('\n');
}

/**
 * Adds to `into` each stored piece's tokens under the piece's text, and the headings' tokens under `headingText`:
 * a text's tokens depend on the text alone, so they serve any passage holding the same piece (a hit merged from
 * overlapping chunks shares most of its pieces with them). Stored tokens that do not fit the plan are skipped.
 */
export function addPassageTokens(
  into: Map<string, readonly string[]>,
  chunk: { text: string; chapter: string; section: string; subsection: string; figure_ref: string },
  stored: PassageTokens,
): void {
  const { pieces } = planWindows(chunk.text);
  if (pieces.length !== stored.pieces.length) return;
  pieces.forEach((piece, i) => into.set(piece, stored.pieces[i] ?? []));
  into.set(headingText(chunk), stored.heading);
}

/** Reads `encodePassageTokens`'s text back. */
export function decodePassageTokens(text: string): PassageTokens {
  const [heading = [], ...pieces] = text.split('\n').map((line) => (line === '' ? [] : line.split(' ')));
  return { heading, pieces };
}

import type { Analyzer } from '../text/analyzer.js';
import { plainChars } from '../text/longest-common-run.js';
import { headingText, planWindows } from '../text/passage-windows.js';
import type { Chunk } from '../types.js';

/** One window of a passage: a clause, sentence, sentence pair or list item read with its lead. */
export interface Window {
  readonly text: string;
  /** The passage's own run the window stands in, for the quote (`PlannedWindow.span`; else the text). */
  readonly span: string;
  readonly tokens: ReadonlySet<string>;
  readonly plain: string;
}

/** A chunk's text cut into windows, and its heading tokens: what the solver derives from a passage alone. */
export interface CutPassage {
  readonly windows: readonly Window[];
  readonly heading: ReadonlySet<string>;
  /** Every window's tokens, for key coverage (a token is in some window). */
  readonly tokens: ReadonlySet<string>;
  /** Token → the indices of the windows holding it, ascending: a claim's coverage visits only its tokens' windows. */
  readonly postings: ReadonlyMap<string, readonly number[]>;
}

/**
 * Cut passages by text and headings, shared by every question one answerer answers. The same chunks come back for
 * many questions and for every mode, and cutting them (windows, jieba tokens, plain characters) was a fifth of an
 * offline answer. Bounded, dropping the oldest entries. Only what depends on the passage alone is kept, so answers
 * are the same with or without it.
 */
export interface PassageCache {
  /** `stored`: tokens ingest segmented for the passage's texts (`Retriever.passageTokens`), asked for only on a miss. */
  cut(chunk: Chunk, analyzer: Analyzer, stored: () => ReadonlyMap<string, readonly string[]>): CutPassage;
}

/** A passage cache holding at most `maxEntries` passages. */
export function createPassageCache(maxEntries = 2_000): PassageCache {
  const cache = new Map<string, CutPassage>();
  return {
    cut(chunk, analyzer, stored) {
      // Keyed by everything the cut reads: a merged or expanded hit keeps its chunk_id but has other text.
      const key = `${chunk.chapter}\u0000${chunk.section}\u0000${chunk.subsection}\u0000${chunk.figure_ref}\u0000${chunk.text}`;
      let cut = cache.get(key);
      if (!cut) {
        cut = cutPassage(chunk, analyzer, stored());
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(key, cut);
      }
      return cut;
    },
  };
}

export const NOTHING_STORED: ReadonlyMap<string, readonly string[]> = new Map();

/** Cuts one passage: its windows, their tokens and postings, and its heading tokens. */
export function cutPassage(chunk: Chunk, analyzer: Analyzer, stored: ReadonlyMap<string, readonly string[]>): CutPassage {
  const tokensOf = (text: string): readonly string[] => stored.get(text) ?? analyzer.tokens(text);
  const windows = windowsOf(chunk, tokensOf);
  const postings = new Map<string, number[]>();
  windows.forEach((w, i) => {
    for (const t of w.tokens) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  });
  const heading = new Set(tokensOf(headingText(chunk)));
  return { windows, heading, tokens: new Set(postings.keys()), postings };
}

/**
 * Cuts a chunk into windows (`planWindows`: clauses, sentences, consecutive sentence pairs and list items read with
 * their lead), so support is local and an option named in the same clause as the stem's words beats one named
 * elsewhere in the sentence. Each piece of the plan is read once through `tokensOf` (the tokens ingest stored for it,
 * else the analyzer's cut); a window's tokens are the union of its pieces' tokens.
 */
function windowsOf(chunk: Chunk, tokensOf: (text: string) => readonly string[]): Window[] {
  const plan = planWindows(chunk.text);
  const sets: ReadonlySet<string>[] = plan.pieces.map((p) => new Set(tokensOf(p)));
  const plains: (string | undefined)[] = [];
  const plainOf = (piece: number): string => (plains[piece] ??= plainChars(plan.pieces[piece] ?? ''));
  return plan.windows.map((w) => {
    const only = w.pieces.length === 1 ? sets[w.pieces[0] ?? 0] : undefined;
    const tokens = only ?? new Set(w.pieces.flatMap((p) => [...(sets[p] ?? [])]));
    // A window joined at a bare line break reads its plain characters whole (a numeral can span the break).
    const plain = w.bridged ? plainChars(w.text) : w.pieces.map(plainOf).join('');
    return { text: w.text, span: w.span ?? w.text, tokens, plain };
  });
}

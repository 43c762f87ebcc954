import type { Retriever, RetrievalMode } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import { longestRun, plainChars, runPattern } from '../text/longest-common-run.js';
import type { Chunk, Hit } from '../types.js';
import { BLANK } from './claim-forms.js';
import type { CorpusStats } from './corpus-stats.js';
import { cutPassage, NOTHING_STORED, type CutPassage, type PassageCache, type Window } from './passage-cache.js';
import { DEFAULT_WEIGHTS, type SolverWeights } from './solver-weights.js';

export interface OfflineContext {
  retriever: Retriever;
  analyzer: Analyzer;
  stats: CorpusStats;
  mode: RetrievalMode;
  /** Passages retrieved per query (one query per option). */
  topK: number;
  /** Count units of article text shorter than this as their share of a passage (`RetrieveOptions.unitChars`). */
  unitChars?: number;
  weights?: SolverWeights;
  /** Abstain below this calibrated confidence (default `weights.abstainBelow`; config `answer.abstainBelow`). */
  abstainBelow?: number;
  /** Always give a letter: below the threshold the best guess is the answer, marked as a guess (`--guess`). */
  guess?: boolean;
  /** Cut passages kept across questions (`createPassageCache`); without it each question cuts its own. */
  passages?: PassageCache;
}

/** How well the best window of one passage supports a claim (an option or a statement). */
export interface Support {
  score: number;
  chunk: Chunk | null;
  /** The best window's text: what the negation and number checks read. */
  window: string;
  /** …and the run of the passage it stands in, which the quote shows. */
  span: string;
  /** The claim's own words found in the window (marked in the quote). */
  terms: string[];
  /** Longest verbatim run of the claim in the window, as a share of the claim's length. */
  verbatim: number;
  /** The idf-weighted share of the stem's words in the window (1 when the stem is not asked for). */
  stemCoverage: number;
}

/** A claim no window supports (in `chunk`, or in no passage). */
export function noSupport(chunk: Chunk | null): Support {
  return { score: 0, chunk, window: '', span: '', terms: [], verbatim: 0, stemCoverage: 0 };
}

function weightOf(tokens: Iterable<string>, stats: CorpusStats): number {
  let s = 0;
  for (const t of tokens) s += stats.idf(t);
  return s;
}

/** The solver for one question: pooled evidence and cached windows. */
export class Solver {
  private readonly windows = new Map<string, { chunk: Chunk; cut: CutPassage; stemCover: Float64Array }>();
  private readonly stemTokens: Set<string>;
  private readonly stemWeight: number;
  readonly pool: Hit[] = [];
  private readonly seen = new Set<string>();

  private readonly blank: { left: string; right: string } | null;

  constructor(
    private readonly ctx: OfflineContext,
    private readonly weights: SolverWeights,
    stem: string,
  ) {
    this.stemTokens = new Set(ctx.analyzer.tokens(stem));
    this.stemWeight = weightOf(this.stemTokens, ctx.stats);
    this.blank = blankContext(stem, weights.blankContextChars);
  }

  /** Retrieves for each query and pools the hits in query order; the searches run together where the retriever can. */
  async retrieve(queries: readonly string[]): Promise<void> {
    const asked = queries.filter((q) => q.trim() !== '');
    const options = { mode: this.ctx.mode, k: this.ctx.topK, unitChars: this.ctx.unitChars ?? 0 };
    const { retriever } = this.ctx;
    const found: Hit[][] = [];
    if (retriever.searchMany) found.push(...(await retriever.searchMany(asked, options)));
    else for (const q of asked) found.push(await retriever.search(q, options));
    for (const hit of found.flat()) {
      if (this.seen.has(hit.chunk.chunk_id)) continue;
      this.seen.add(hit.chunk.chunk_id);
      this.pool.push(hit);
    }
  }

  private entry(chunk: Chunk): { chunk: Chunk; cut: CutPassage; stemCover: Float64Array } {
    let e = this.windows.get(chunk.chunk_id);
    if (!e) {
      // Tokens ingest stored for the passage's texts: only the texts the index does not hold are cut here.
      const stored = (): ReadonlyMap<string, readonly string[]> => this.ctx.retriever.passageTokens?.(chunk) ?? NOTHING_STORED;
      const cut = this.ctx.passages
        ? this.ctx.passages.cut(chunk, this.ctx.analyzer, stored)
        : cutPassage(chunk, this.ctx.analyzer, stored());
      // NaN: not computed yet (a coverage is never NaN, since the stem's weight is positive when it is asked for).
      e = { chunk, cut, stemCover: new Float64Array(cut.windows.length).fill(Number.NaN) };
      this.windows.set(chunk.chunk_id, e);
    }
    return e;
  }

  /** Idf-weighted share of the stem's tokens in a window or the chunk's headings; the same for every claim, so kept. */
  private stemCoverage(e: { cut: CutPassage; stemCover: Float64Array }, windowIndex: number): number {
    let cover = e.stemCover[windowIndex] as number;
    if (Number.isNaN(cover)) {
      const win = e.cut.windows[windowIndex] as Window;
      let s = 0;
      for (const t of this.stemTokens) if (win.tokens.has(t) || e.cut.heading.has(t)) s += this.ctx.stats.idf(t);
      cover = s / this.stemWeight;
      e.stemCover[windowIndex] = cover;
    }
    return cover;
  }

  /** Support of a claim (option or statement text) in the pooled evidence: the best window's score. */
  support(claim: string, options: { ignoreStem?: boolean } = {}): Support {
    return this.supports(claim, options)[0] ?? noSupport(null);
  }

  /** The best window of every pooled chunk for a claim, strongest first. */
  supports(claim: string, options: { ignoreStem?: boolean } = {}): Support[] {
    const { stats } = this.ctx;
    const claimTokens = new Set(this.ctx.analyzer.tokens(claim));
    let own = options.ignoreStem ? claimTokens : new Set([...claimTokens].filter((t) => !this.stemTokens.has(t)));
    // An option made only of stem words is judged on all its words.
    if (own.size === 0) own = claimTokens;
    const ownWeight = weightOf(own, stats);
    const claimPlain = plainChars(claim);
    const w = this.weights;
    const fill = !options.ignoreStem && this.blank && w.fillShare > 0 ? boundaryGrams(this.blank, claimPlain) : [];
    const pattern = runPattern(claimPlain);
    // The claim's own tokens with their idf, in the set's order, so every window sums the same numbers in the same order.
    const ownTokens = [...own];
    const ownIdf = ownTokens.map((t) => stats.idf(t));
    const out: Support[] = [];
    for (const hit of this.pool) {
      const e = this.entry(hit.chunk);
      let best = noSupport(e.chunk);
      const windows = e.cut.windows;
      // Each window's idf sum of the claim's own tokens it holds, added token by token in the claim's order.
      const cover = new Float64Array(windows.length);
      for (let i = 0; i < ownTokens.length; i++) {
        const holding = e.cut.postings.get(ownTokens[i] as string);
        if (holding) for (const wi of holding) cover[wi] = (cover[wi] as number) + (ownIdf[i] as number);
      }
      for (let wi = 0; wi < windows.length; wi++) {
        const win = windows[wi] as Window;
        const tokenCov = ownWeight > 0 ? (cover[wi] as number) / ownWeight : 0;
        const run = claimPlain.length > 0 ? longestRun(pattern, win.plain) : 0;
        const runCov = run >= w.minRun ? run / claimPlain.length : 0;
        let fillCov = 0;
        if (fill.length > 0) fillCov = fill.filter((g) => win.plain.includes(g)).length / fill.length;
        // Nothing of the claim in this window: its score is 0, which never beats the best so far.
        if (tokenCov === 0 && runCov === 0 && fillCov === 0) continue;
        const stemCov = !options.ignoreStem && this.stemWeight > 0 ? this.stemCoverage(e, wi) : 1;
        // Compactness: the same coverage in a shorter window is stronger evidence (proximity).
        const compact = 1 / (1 + win.plain.length / w.compactLength);
        const score =
          ((w.tokenShare * tokenCov + (1 - w.tokenShare) * runCov) * (w.stemFloor + (1 - w.stemFloor) * stemCov) + w.fillShare * fillCov) *
          compact;
        if (score > best.score) {
          best = {
            score,
            chunk: e.chunk,
            window: win.text,
            span: win.span,
            terms: ownTokens.filter((t) => win.tokens.has(t)),
            verbatim: runCov,
            stemCoverage: stemCov,
          };
        }
      }
      out.push(best);
    }
    return out.sort((a, b) => b.score - a.score);
  }

  /**
   * Evidence coverage of a claim: the largest idf-weighted share of its own key words (those not in the stem)
   * that one pooled passage contains, 0–1. Low when retrieval found nothing that bears on the claim.
   */
  keyCoverage(claim: string, options: { ignoreStem?: boolean } = {}): number {
    const { stats } = this.ctx;
    const claimTokens = new Set(this.ctx.analyzer.tokens(claim));
    let own = options.ignoreStem ? claimTokens : new Set([...claimTokens].filter((t) => !this.stemTokens.has(t)));
    if (own.size === 0) own = claimTokens;
    const total = weightOf(own, stats);
    if (total <= 0) return 0;
    let best = 0;
    for (const hit of this.pool) {
      const e = this.entry(hit.chunk);
      let covered = 0;
      for (const t of own) if (e.cut.tokens.has(t)) covered += stats.idf(t);
      best = Math.max(best, covered / total);
    }
    return best;
  }

  /** Share of the text's content tokens the corpus has seen at all. */
  vocabularyCoverage(text: string): number {
    const tokens = [...new Set(this.ctx.analyzer.tokens(text))];
    if (tokens.length === 0) return 0;
    return tokens.filter((t) => this.ctx.stats.df(t) > 0).length / tokens.length;
  }
}

/** The characters just before and after the stem's blank (`（ ）`, `(  )`, `____`), or null without a blank. */
export function blankContext(stem: string, contextChars = DEFAULT_WEIGHTS.blankContextChars): { left: string; right: string } | null {
  const m = BLANK.exec(stem);
  if (!m) return null;
  const left = plainChars(stem.slice(0, m.index)).slice(-contextChars);
  const right = plainChars(stem.slice(m.index + m[0].length)).slice(0, contextChars);
  if (left.length === 0 && right.length === 0) return null;
  return { left, right };
}

/** Character 2- to 4-grams of `left + option + right` that cross an edge of the option. */
export function boundaryGrams(blank: { left: string; right: string }, option: string): string[] {
  if (option.length === 0) return [];
  const text = blank.left + option + blank.right;
  const start = blank.left.length;
  const end = start + option.length;
  const grams = new Set<string>();
  for (let n = 2; n <= 4; n++) {
    for (let i = 0; i + n <= text.length; i++) {
      const j = i + n;
      if ((i < start && j > start) || (i < end && j > end)) grams.add(text.slice(i, j));
    }
  }
  return [...grams];
}

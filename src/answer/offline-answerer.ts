import type { Retriever, RetrievalMode } from '../retrieve/retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import { normalizeText } from '../text/analyzer.js';
import { longestRun, plainChars, runPattern } from '../text/longest-common-run.js';
import { headingText, planWindows } from '../text/passage-windows.js';
import type { Chunk, Hit } from '../types.js';
import type { AnswerResult, EvidenceItem, ParsedQuestion, QuestionOption } from './answer-types.js';
import type { CalibrationFeatures, CalibrationModel } from './calibration.js';
import { calibratedConfidence } from './calibration.js';
import type { CorpusStats } from './corpus-stats.js';
import { citation, toEvidence } from './evidence.js';
import { statementsInOption } from './parse-question.js';

/**
 * The offline answerer: a retrieval-based solver of the IR-solver family (Clark et al. 2016,
 * "Combining Retrieval, Statistics, and Inference to Answer Elementary Science Questions"; the ARC
 * IR solver reaches 62.55% on ARC-Easy). For every option it retrieves with `stem + option`, pools the
 * evidence, and scores how strongly each passage window supports the option: idf-weighted coverage of
 * the option's own words (those not already in the stem) plus the longest verbatim run of the option's
 * characters, both scaled by how well the same window matches the stem. The option with the most
 * support wins; negated stems take the least supported; combination questions judge each statement.
 */

/** Messages the seed design fixes for the two "cannot answer" outcomes. */
export const NO_EVIDENCE_MESSAGE = '未在教材中找到明确依据';
export const OFF_TOPIC_MESSAGE = '与本知识库内容不符，无法回答';

/**
 * Every tunable of the offline answerer, named. The support-score weights were chosen by accuracy on the
 * sample validation set (hybrid, top-k 8) with `node scripts/bench/answer.mjs`; the decision thresholds by
 * hand on the same set (each comment says how); the calibration model by `node scripts/fit-calibration.mjs`.
 */
export interface SolverWeights {
  /** Share of the score that does not depend on stem match (the rest is scaled by stem coverage). Grid search, sample. */
  stemFloor: number;
  /** Weight of idf-weighted token coverage versus verbatim character overlap. Grid search, sample. */
  tokenShare: number;
  /** Window length (characters) at which support is halved, favouring compact evidence. Grid search, sample. */
  compactLength: number;
  /**
   * Weight of blank filling: the share of the character n-grams that cross the blank's edges in
   * "stem with the option put in the blank" (…由【基金托管人】负责保管…) found verbatim in the window.
   * It separates options named in the same sentence by which one sits where the blank is. Grid search, sample.
   */
  fillShare: number;
  /** Characters of stem taken on each side of the blank for blank filling (a Chinese phrase is 2–6 characters). */
  blankContextChars: number;
  /** Shortest verbatim run (characters) that counts as overlap; one shared character is chance. */
  minRun: number;
  /** Multi-select: options with at least this share of the best support are selected. Grid search, sample. */
  multiRatio: number;
  /** Judge questions: a statement whose best window supports it at least this much is true. Grid search, sample. */
  judgeTrueSupport: number;
  /** Best support below this: no evidence at all (no window shares a key word). Set just above 0 by hand. */
  noEvidence: number;
  /** Share of the question's content words the corpus must know for it to be on topic. Hand-set, sample + nonsense probes. */
  onTopicVocabulary: number;
  /** An unknown-vocabulary question is still on topic when some window supports a claim this well (about 50% verbatim). */
  offTopicSupport: number;
  /** Open questions (no options): the confidence is the best window's support, capped here (no letter is checked). */
  openConfidenceCap: number;
  /** Conflict: two options each supported at least this much, by different passages… */
  conflictSupport: number;
  /** …and within this much of each other. Hand-set on the sample's duplicated-definition questions. */
  conflictGap: number;
  /** Evidence items shown with an answer (with a conflict: one more, to name both sources). */
  evidenceShown: number;
  /**
   * Calibrated confidence below this: the answerer abstains (未在教材中找到明确依据) and shows its best guess as a guess.
   * Overridden by the config key `answer.abstainBelow`. It sits just above the calibration's flat level (0.309, what
   * every answer with support below the knot gets: evidence that matches the options only in fragments), so an answer
   * is given only when its evidence lifts it above that base rate. On FinanceIQ dev the answers at the flat level are
   * right about as often as the 25% of guessing; at 0.31 the sample keeps 67 of 71 answers (3 right ones withheld)
   * and FinanceIQ 44 of 436 (`scripts/fit-calibration.mjs` prints the selective accuracy per threshold). Must stay above
   * σ(intercept) of the fitted model, or weak evidence is presented as an answer again.
   */
  abstainBelow: number;
  /** The logistic calibration turning margins, support and evidence coverage into p(correct). */
  calibration: CalibrationModel;
}

/**
 * Fitted by `node scripts/fit-calibration.mjs ../shared/bench` (logistic regression, Newton–Raphson, each question
 * weighted once) on every answered question of the sample validation set (71 questions over rawdoc/) and FinanceIQ
 * fund dev (436 questions over fund-laws-combined.pdf), hybrid mode, top-k 8. Knot 0.4 and L2 0.0003 chosen by
 * 20 × 3-fold cross-validated log-loss among the candidates whose cross-validated top tenth on FinanceIQ is honest
 * (right at least as often as stated minus 5 points; within 0.001 nats of the best, the most honest). Below the knot
 * every answer gets the base rate, 0.309. Cross-validated (mean ± sd over the 20 partitions): sample ECE (15 bins)
 * 0.128 ± 0.022, Brier 0.162; FinanceIQ ECE 0.020 ± 0.011, Brier 0.210, its 10% most confident right 34.3% at a
 * stated 34.6%. The ECE a perfectly calibrated confidence shows by chance on 71 questions is about 0.13, on 436 about
 * 0.03. Multi-select and true/false questions are absent from both sets, so their terms stay 0. Refit after any
 * change to the support score, the analyzer, chunking or retrieval.
 */
export const FITTED_CALIBRATION: CalibrationModel = {
  intercept: -0.8029,
  knot: 0.4,
  coefficients: {
    strongSupport: 0.4766,
    marginXstrong: 3.3926,
    stemXstrong: 2.7787,
    negatedXstrong: -0.5143,
    combinationXstrong: -2.3589,
    multi: 0,
    judge: 0,
  },
};

export const DEFAULT_WEIGHTS: SolverWeights = {
  stemFloor: 0.35,
  tokenShare: 0.6,
  compactLength: 400,
  fillShare: 0.5,
  blankContextChars: 6,
  minRun: 2,
  multiRatio: 0.75,
  judgeTrueSupport: 0.55,
  noEvidence: 0.02,
  onTopicVocabulary: 0.25,
  offTopicSupport: 0.5,
  openConfidenceCap: 0.95,
  conflictSupport: 0.8,
  conflictGap: 0.03,
  evidenceShown: 3,
  abstainBelow: 0.31,
  calibration: FITTED_CALIBRATION,
};

/** Why a question gets no letter before any option is weighed: outside the books, or nothing relevant found. */
export type EvidenceVerdict = 'off_topic' | 'no_evidence' | null;

/**
 * The one no-evidence / off-topic decision, for the offline and the LLM path alike.
 * - `vocabulary`: share of the question's content words the corpus knows;
 * - `passages`: number of passages retrieved (undefined before retrieval);
 * - `support`: the best support any claim found (undefined when not measured, as on the LLM path).
 * Off topic: the corpus knows too little of the question's vocabulary and no passage supports a claim well.
 * No evidence: nothing was retrieved, or no window shares a key word with any claim.
 */
export function evidenceVerdict(
  e: { vocabulary: number; passages?: number; support?: number },
  weights: SolverWeights = DEFAULT_WEIGHTS,
): EvidenceVerdict {
  const unknownVocabulary = e.vocabulary < weights.onTopicVocabulary;
  if (unknownVocabulary && (e.support === undefined || e.support < weights.offTopicSupport)) return 'off_topic';
  if (e.passages === 0) return 'no_evidence';
  if (e.support !== undefined && e.support < weights.noEvidence) return 'no_evidence';
  return null;
}

/** The message shown for a verdict. */
export function verdictMessage(verdict: Exclude<EvidenceVerdict, null>): string {
  return verdict === 'off_topic' ? OFF_TOPIC_MESSAGE : NO_EVIDENCE_MESSAGE;
}

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

interface Window {
  readonly text: string;
  /** The passage's own run the window stands in, for the quote (`PlannedWindow.span`; else the text). */
  readonly span: string;
  readonly tokens: ReadonlySet<string>;
  readonly plain: string;
}

/** A chunk's text cut into windows, and its heading tokens: what the solver derives from a passage alone. */
interface CutPassage {
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

const NOTHING_STORED: ReadonlyMap<string, readonly string[]> = new Map();

function cutPassage(chunk: Chunk, analyzer: Analyzer, stored: ReadonlyMap<string, readonly string[]>): CutPassage {
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

interface Support {
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
function noSupport(chunk: Chunk | null): Support {
  return { score: 0, chunk, window: '', span: '', terms: [], verbatim: 0, stemCoverage: 0 };
}

const JUDGE_TRUE = /^(正确|对|是|√|✓|true|t)$/i;
const NEGATIVE_CUES = /不得|不能|不可|不应|无须|无需|不需要|不必|禁止|严禁|不属于|不包括|不是|并非|没有|无权/;

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

function weightOf(tokens: Iterable<string>, stats: CorpusStats): number {
  let s = 0;
  for (const t of tokens) s += stats.idf(t);
  return s;
}

/** The solver for one question: pooled evidence and cached windows. */
class Solver {
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

const BLANK = /[（(][\s\u3000]*[)）]|_{2,}|＿{2,}/;

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

function evidenceFrom(supports: Support[], claims: readonly string[], limit: number): EvidenceItem[] {
  const out: EvidenceItem[] = [];
  const ids = new Set<string>();
  const order = supports.map((s, i) => ({ s, claim: claims[i] ?? claims[0] ?? '' })).sort((a, b) => b.s.score - a.s.score);
  for (const { s, claim } of order) {
    if (!s.chunk || s.score <= 0 || ids.has(s.chunk.chunk_id)) continue;
    ids.add(s.chunk.chunk_id);
    out.push(toEvidence(s.chunk, s.span, s.terms.length > 0 ? s.terms : [claim]));
    if (out.length >= limit) break;
  }
  return out;
}

function base(
  question: ParsedQuestion,
  ctx: OfflineContext,
  started: number,
): Omit<AnswerResult, 'answer' | 'confidence' | 'evidence' | 'fallback'> {
  return { question, mode: ctx.mode, answerer: 'offline', context: [], latencyMs: Date.now() - started };
}

/** What one kind of question decided, before confidence: the letters, how clearly, and what to cite. */
interface Decision {
  answer: string;
  /** See {@link CalibrationFeatures.margin}. */
  margin: number;
  /** Indices of the claims whose key-term coverage measures the evidence for this answer. */
  decisive: number[];
  evidence: EvidenceItem[];
  optionScores: Record<string, number>;
  fallback?: 'conflict';
  message?: string;
}

/** Answers a parsed question from the index alone. */
export async function answerOffline(question: ParsedQuestion, ctx: OfflineContext): Promise<AnswerResult> {
  const started = Date.now();
  const weights = ctx.weights ?? DEFAULT_WEIGHTS;
  const judge = question.kind === 'judge';
  const combination = question.kind === 'combination';
  // Blank filling assumes one option fills the blank; a multi-select blank takes several.
  const solverWeights = question.kind === 'multi' ? { ...weights, fillShare: 0 } : weights;
  const solver = new Solver(ctx, solverWeights, judge ? '' : question.stem);

  // Retrieval: one query per claim (option or statement), plus the stem, pooled.
  const claims: string[] = combination
    ? question.statements.map((s) => s.text)
    : judge || question.kind === 'open'
      ? []
      : question.options.map((o) => o.text);
  await solver.retrieve([question.stem, ...claims.map((claim) => `${question.stem} ${claim}`)]);

  // Topic is judged on the question itself (stem and statements), not the options: unknown option words
  // mean "no evidence", an unknown stem means "not about these books".
  const vocab = solver.vocabularyCoverage([question.stem, ...(combination ? claims : [])].join(' '));
  const finish = (r: Pick<AnswerResult, 'answer' | 'confidence' | 'evidence' | 'fallback'> & Partial<AnswerResult>): AnswerResult => ({
    ...base(question, ctx, started),
    context: solver.pool,
    ...r,
    latencyMs: Date.now() - started,
  });

  if (question.kind === 'open') {
    const supports = solver.supports(question.stem, { ignoreStem: true });
    const best = supports[0]?.score ?? 0;
    const verdict = evidenceVerdict({ vocabulary: vocab, passages: solver.pool.length, support: best }, weights);
    if (verdict) return finish({ answer: '', confidence: 0, evidence: [], fallback: verdict, message: verdictMessage(verdict) });
    // No letter to choose: the confidence is how much of the question the best passage covers.
    return finish({
      answer: '',
      confidence: round(Math.min(weights.openConfidenceCap, best)),
      evidence: evidenceFrom(supports, [question.stem], weights.evidenceShown),
      fallback: null,
      message: 'open question (no options): the cited passages answer it; no letter is chosen',
    });
  }

  // The claims weighed: the judge statement, the combination statements, or the options.
  const judged = judge ? [judgeStatement(question.stem)] : claims;
  const supports = judged.map((c) => solver.support(c, { ignoreStem: judge }));
  const best = Math.max(0, ...supports.map((s) => s.score));
  const verdict = evidenceVerdict({ vocabulary: vocab, passages: solver.pool.length, support: best }, weights);
  const decision = judge
    ? judgeDecision(question, judged[0] ?? '', supports[0], weights)
    : combination
      ? combinationDecision(question, supports, weights)
      : question.kind === 'multi'
        ? multiDecision(question, supports, weights)
        : singleDecision(question, supports, weights);
  const chance = 1 / Math.max(2, question.options.length);

  if (verdict || !decision) {
    // Nothing bears on the claims: no letter, and a best guess worth exactly chance.
    const v = verdict ?? 'no_evidence';
    const guess = decision && decision.answer !== '' ? { answer: decision.answer, confidence: round(chance) } : undefined;
    const scores = decision ? { optionScores: decision.optionScores } : {};
    if (ctx.guess && guess) {
      return finish({
        answer: guess.answer,
        confidence: guess.confidence,
        evidence: [],
        fallback: null,
        message: `${verdictMessage(v)}；${GUESS_NOTE}`,
        guess,
        ...scores,
      });
    }
    return finish({
      answer: '',
      confidence: guess ? guess.confidence : 0,
      evidence: [],
      fallback: v,
      message: verdictMessage(v),
      ...(guess ? { guess } : {}),
      ...scores,
    });
  }

  const decisiveCoverage = decision.decisive.map((i) => solver.keyCoverage(judged[i] ?? '', { ignoreStem: judge }));
  const features: CalibrationFeatures = {
    margin: decision.margin,
    support: best,
    coverage: mean(decisiveCoverage),
    verbatim: mean(decision.decisive.map((i) => supports[i]?.verbatim ?? 0)),
    stemCoverage: mean(decision.decisive.map((i) => supports[i]?.stemCoverage ?? 0)),
    vocabulary: vocab,
    negated: question.negated ? 1 : 0,
    combination: combination ? 1 : 0,
    multi: question.kind === 'multi' ? 1 : 0,
    judge: judge ? 1 : 0,
  };
  const confidence = round(calibratedConfidence(features, weights.calibration));
  const abstainBelow = ctx.abstainBelow ?? weights.abstainBelow;
  if (confidence < abstainBelow) {
    // Selective answering: the evidence does not single out an option beyond chance. Say so, show the closest
    // passages, and keep the best letter as a guess (given as the answer only with `--guess`).
    const guess = { answer: decision.answer, confidence };
    const closest = evidenceFrom(supports, judged, weights.evidenceShown);
    const common = { confidence, evidence: closest, guess, optionScores: decision.optionScores, calibration: features };
    if (ctx.guess) return finish({ ...common, answer: decision.answer, fallback: null, message: `${NO_EVIDENCE_MESSAGE}；${GUESS_NOTE}` });
    return finish({ ...common, answer: '', fallback: 'no_evidence', message: NO_EVIDENCE_MESSAGE });
  }
  return finish({
    answer: decision.answer,
    confidence,
    evidence: decision.evidence,
    fallback: decision.fallback ?? null,
    ...(decision.message ? { message: decision.message } : {}),
    optionScores: decision.optionScores,
    calibration: features,
  });
}

/** Shown after the no-evidence message when a best guess is given anyway. */
export const GUESS_NOTE = '所给答案为猜测，并非教材依据';

function optionScoresOf(labels: readonly string[], supports: readonly Support[]): Record<string, number> {
  return Object.fromEntries(labels.map((l, i) => [l, round(supports[i]?.score ?? 0)]));
}

function singleDecision(question: ParsedQuestion, supports: Support[], weights: SolverWeights): Decision {
  const claims = question.options.map((o) => o.text);
  const scores = supports.map((s) => s.score);
  // A negated stem asks for the statement the book contradicts. An option whose best passage matches it as well as a
  // true statement would (judgeTrueSupport) but disagrees on negation (不得, 不能, … on one side only) is that
  // statement, more surely than an option the book never mentions; it ranks above every uncontradicted option.
  const contradicted = supports.map(
    (s, i) => s.score >= weights.judgeTrueSupport && NEGATIVE_CUES.test(claims[i] ?? '') !== NEGATIVE_CUES.test(s.window),
  );
  const signed = question.negated ? scores.map((s, i) => (contradicted[i] ? s : -s)) : scores;
  const idx = argmax(signed);
  const runnerUp = Math.max(...signed.filter((_, i) => i !== idx));
  const others = supports.map((_, i) => i).filter((i) => i !== idx);
  // For a negated stem the chosen option is the contradicted one, shown with the passage that contradicts it, or else
  // the unsupported one, shown with the passages that support the others.
  const byOthers = question.negated && !contradicted[idx];
  const decision: Decision = {
    answer: question.options[idx]?.letter ?? '',
    margin: Number.isFinite(runnerUp) ? (signed[idx] ?? 0) - runnerUp : 0,
    decisive: byOthers ? others : [idx],
    evidence: byOthers
      ? evidenceFrom(
          others.map((i) => supports[i] as Support),
          others.map((i) => claims[i] ?? ''),
          weights.evidenceShown,
        )
      : evidenceFrom([supports[idx] as Support], [claims[idx] ?? ''], weights.evidenceShown),
    optionScores: optionScoresOf(
      question.options.map((o) => o.letter),
      supports,
    ),
  };
  if (!question.negated) {
    const conflict = detectConflict(question.options, supports, weights);
    if (conflict) {
      decision.fallback = 'conflict';
      decision.message = conflict;
      decision.evidence = evidenceFrom(supports, claims, weights.evidenceShown + 1);
    }
  }
  return decision;
}

function multiDecision(question: ParsedQuestion, supports: Support[], weights: SolverWeights): Decision {
  const claims = question.options.map((o) => o.text);
  const scores = supports.map((s) => s.score);
  const threshold = weights.multiRatio * Math.max(...scores);
  const pickedIdx = scores
    .map((_, i) => i)
    .filter((i) => (question.negated ? (scores[i] ?? 0) < threshold : (scores[i] ?? 0) >= threshold));
  const supported = scores.map((_, i) => i).filter((i) => (scores[i] ?? 0) >= threshold);
  return {
    answer: pickedIdx.map((i) => question.options[i]?.letter ?? '').join(''),
    // How clearly the selected and unselected options separate around the threshold.
    margin: Math.min(...scores.map((s) => Math.abs(s - threshold))),
    decisive: supported,
    evidence: evidenceFrom(
      supported.map((i) => supports[i] as Support),
      supported.map((i) => claims[i] ?? ''),
      weights.evidenceShown,
    ),
    optionScores: optionScoresOf(
      question.options.map((o) => o.letter),
      supports,
    ),
  };
}

/** Two options both strongly and almost equally supported by different passages: name both sources. */
function detectConflict(options: QuestionOption[], supports: Support[], weights: SolverWeights): string | null {
  const order = supports.map((s, i) => ({ s, i })).sort((a, b) => b.s.score - a.s.score);
  const [first, second] = order;
  if (!first || !second || !first.s.chunk || !second.s.chunk) return null;
  if (
    first.s.score < weights.conflictSupport ||
    second.s.score < weights.conflictSupport ||
    first.s.score - second.s.score > weights.conflictGap
  )
    return null;
  if (first.s.chunk.chunk_id === second.s.chunk.chunk_id) return null;
  const a = options[first.i];
  const b = options[second.i];
  return `证据冲突：选项 ${a?.letter ?? '?'} 见 ${citation(toEvidence(first.s.chunk))}；选项 ${b?.letter ?? '?'} 见 ${citation(toEvidence(second.s.chunk))}`;
}

/** The statement a true/false question asks about: the stem without its 判断题 label and trailing blank. */
function judgeStatement(stem: string): string {
  return stem.replace(/^[\s\S]*?(判断题|判断)[:：]?/, '').replace(/[（(]\s*[)）]\s*$/, '');
}

function judgeDecision(question: ParsedQuestion, statement: string, s: Support | undefined, weights: SolverWeights): Decision {
  const support = s ?? noSupport(null);
  const trueOpt = question.options.find((o) => JUDGE_TRUE.test(o.text)) ?? question.options[0];
  const falseOpt = question.options.find((o) => o !== trueOpt) ?? question.options[1];
  // Contradiction: the statement and its best passage disagree on negation, or on the numbers they state.
  const negMismatch = NEGATIVE_CUES.test(statement) !== NEGATIVE_CUES.test(support.window);
  const nums = (t: string): string[] => normalizeText(t).match(/\d+(?:\.\d+)?/g) ?? [];
  const stNums = nums(statement);
  const winNums = nums(support.window);
  const numMismatch = stNums.length > 0 && winNums.length > 0 && stNums.some((n) => !winNums.includes(n));
  // True: most of the statement is found in one window, with no contradiction cue. A contradiction in the
  // passage that matches the statement best makes it false, as surely as that passage matches.
  const contradicted = negMismatch || numMismatch;
  const isTrue = !contradicted && support.score > weights.judgeTrueSupport;
  const message = !isTrue && contradicted ? `教材原文与题干不一致（${negMismatch ? '肯定/否定相反' : '数字不同'}）` : undefined;
  return {
    answer: (isTrue ? trueOpt : falseOpt)?.letter ?? '',
    margin: contradicted ? support.score : Math.abs(support.score - weights.judgeTrueSupport),
    decisive: [0],
    evidence: evidenceFrom([support], [statement], weights.evidenceShown),
    optionScores: { [trueOpt?.letter ?? 'A']: round(support.score) },
    ...(message ? { message } : {}),
  };
}

function combinationDecision(question: ParsedQuestion, supports: Support[], weights: SolverWeights): Decision | null {
  const claims = question.statements.map((s) => s.text);
  const scores = supports.map((s) => s.score);
  // A statement counts as supported relative to the others: above the mean support of all statements.
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const sign = question.negated ? -1 : 1;
  const z = new Map(question.statements.map((st, i) => [st.label, sign * ((scores[i] ?? 0) - mean)]));
  const optionFit = question.options.map((o) => {
    const set = new Set(statementsInOption(o.text, question.statements));
    if (set.size === 0) return -Infinity;
    let fit = 0;
    for (const [label, v] of z) fit += set.has(label) ? v : -v;
    return fit;
  });
  const valid = optionFit.filter((f) => Number.isFinite(f));
  if (valid.length === 0) return null;
  const idx = argmax(optionFit);
  const runnerUp = Math.max(...optionFit.filter((_, i) => i !== idx));
  const chosen = new Set(statementsInOption(question.options[idx]?.text ?? '', question.statements));
  const cited = question.statements.map((_, i) => i).filter((i) => chosen.has(question.statements[i]?.label ?? '') !== question.negated);
  const evidence = evidenceFrom(
    cited.map((i) => supports[i] as Support),
    cited.map((i) => claims[i] ?? ''),
    weights.evidenceShown,
  );
  return {
    answer: question.options[idx]?.letter ?? '',
    // Per statement, so questions with more statements are not more confident for it.
    margin: Number.isFinite(runnerUp) ? ((optionFit[idx] ?? 0) - runnerUp) / question.statements.length : 0,
    decisive: cited,
    evidence: evidence.length > 0 ? evidence : evidenceFrom(supports, claims, weights.evidenceShown),
    optionScores: optionScoresOf(
      question.statements.map((s) => s.label),
      supports,
    ),
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function argmax(values: readonly number[]): number {
  let idx = 0;
  for (let i = 1; i < values.length; i++) if ((values[i] ?? -Infinity) > (values[idx] ?? -Infinity)) idx = i;
  return idx;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { AnswerResult, OptionVerdict, VerdictKind } from '../../src/answer/answer-types.js';
import { flattenText, readerForm } from '../../src/answer/evidence.js';
import { runAsk } from '../../src/answer/run-ask.js';
import { loadConfig } from '../../src/config/load-config.js';
import { runIngest } from '../../src/ingest/run-ingest.js';
import { makeTempRoot, type TempRoot } from './temp-root.js';

/** A book of notes ingested for real, and asked as `ask` does by default. */
export interface NotesBook {
  /** The root it was ingested into (once the test file's `before` has run). */
  root: () => string;
  /** One question asked offline: hybrid, top 8, no reranking, no cache. */
  ask: (question: string) => Promise<AnswerResult>;
}

/**
 * Ingests `files` (paths under the root → text) into a temp root before the test file's tests and removes it after them.
 * Call at the top level of a test file.
 */
export function notesBook(files: Record<string, string>): NotesBook {
  let tr: TempRoot | undefined;
  before(async () => {
    tr = makeTempRoot({ files });
    const { config } = loadConfig({ root: tr.root, env: {} });
    await runIngest({ root: tr.root, config });
  });
  after(() => tr?.cleanup());
  const root = (): string => {
    assert.ok(tr, 'the book is ingested in before()');
    return tr.root;
  };
  return {
    root,
    ask: async (question) => {
      const { config } = loadConfig({ root: root(), env: {} });
      const { result } = await runAsk({
        root: root(),
        config,
        mode: 'hybrid',
        topK: 8,
        rerank: false,
        cache: false,
        showContext: false,
        question,
      });
      return result;
    },
  };
}

/** The verdict of the option or statement with this label; fails the test when there is none. */
export function verdictOf(result: AnswerResult, label: string): OptionVerdict {
  const v = result.verdicts?.find((x) => x.label === label);
  assert.ok(v, `a verdict for ${label}`);
  return v;
}

/**
 * The answer, an option its clause supports (showing `quote` where given) and one its clause contradicts, for `reason`;
 * every quote verbatim. Returns the contradicted option's verdict.
 */
export function assertSettled(
  r: AnswerResult,
  expected: { answer: string; supported: string; quote?: RegExp; contradicted: string; reason: string },
): OptionVerdict {
  assert.equal(r.answer, expected.answer);
  const supported = verdictOf(r, expected.supported);
  assert.equal(supported.verdict, 'supported');
  if (expected.quote) assert.match(supported.evidence?.quote ?? '', expected.quote);
  const contradicted = verdictOf(r, expected.contradicted);
  assert.equal(contradicted.verdict, 'contradicted');
  assert.equal(contradicted.reason, expected.reason);
  assertVerbatim(r);
  return contradicted;
}

/**
 * Each listed option's verdict and reason (undefined: no reason given), and every quote verbatim: for a test that
 * pins how several options of one question read.
 */
export function assertReadings(r: AnswerResult, expected: Record<string, { verdict: VerdictKind; reason?: string }>): void {
  for (const [label, want] of Object.entries(expected)) {
    const v = verdictOf(r, label);
    assert.equal(v.verdict, want.verdict, label);
    assert.equal(v.reason, want.reason, label);
  }
  assertVerbatim(r);
}

/** Every verdict with evidence quotes whole text of a passage the answerer read, verbatim (parts around an ellipsis). */
export function assertVerbatim(r: AnswerResult): void {
  // As its reader sees it: a note without its Markdown (bold, table pipes).
  const passages = new Map(r.context.map((h) => [h.chunk.chunk_id, flattenText(readerForm(h.chunk, h.chunk.text))]));
  for (const v of r.verdicts ?? []) {
    if (v.verdict === 'not_found') {
      assert.equal(v.evidence, undefined, `${v.label}: not_found carries no passage`);
      continue;
    }
    assert.ok(v.evidence, `${v.label}: a ${v.verdict} verdict has its clause`);
    const passage = passages.get(v.evidence.chunk_id);
    assert.ok(passage, `${v.label}: the cited chunk is one the answerer read`);
    for (const part of v.evidence.quote.split('…').filter((p) => p.trim() !== '')) {
      assert.ok(passage.includes(part.trim()), `${v.label}: "${part}" is verbatim in ${v.evidence.chunk_id}`);
    }
  }
}

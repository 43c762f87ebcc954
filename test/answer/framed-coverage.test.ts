import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coverageOf, framedCoverage, framedHoldsKey, headingsOf, holds, unitCoverage, type Topic } from '../../src/answer/claim-reading.js';
import { normalizeText } from '../../src/text/analyzer.js';
import { readFixtureCorpus } from '../retrieve/fixture-index.js';

/** Two-character words taken at fixed places of a text, as a question's topic words come from the analyzer. */
function wordsOf(text: string): string[] {
  const normal = normalizeText(text).toLowerCase().replace(/\s+/gu, '');
  return [0, 3, 7, 12].map((at) => normal.slice(at, at + 2)).filter((w) => w.length === 2);
}

/** A topic of the given words, weighted unevenly (so the sums' order matters), keyed by its second word. */
function topicOf(words: readonly string[]): Topic {
  const idfs = words.map((_, i) => 0.37 + i * 1.13);
  return { words, idfs, total: idfs.reduce((a, b) => a + b, 0), key: words[1] ?? null };
}

describe("a unit's coverage read with its passage's headings", () => {
  it('equals the coverage of the headings and the unit joined, to the same double, on every sentence of the fixture corpus', () => {
    const { chunks } = readFixtureCorpus();
    let compared = 0;
    for (const [i, chunk] of chunks.entries()) {
      const other = chunks[(i + 1) % chunks.length]!;
      const sentences = chunk.text.split(/(?<=[。；])/u).filter((s) => s.trim() !== '');
      // Words of the headings and of the text together, of the text alone, of another passage, and a word with a space.
      const topics = [
        topicOf([...wordsOf(headingsOf(chunk)), ...wordsOf(chunk.text)]),
        topicOf(wordsOf(chunk.text)),
        topicOf([...wordsOf(other.text), ...wordsOf(headingsOf(other))]),
        topicOf([...wordsOf(chunk.text), 'a b']),
        { words: [], idfs: [], total: 0, key: null },
      ];
      for (const topic of topics) {
        for (const text of sentences) {
          const joined = `${headingsOf(chunk)} ${text}`;
          assert.equal(framedCoverage(chunk, text, topic), coverageOf(joined, topic), `${chunk.chunk_id}: ${text}`);
          assert.equal(unitCoverage(text, chunk, topic), coverageOf(text, topic) + coverageOf(joined, topic) / 100);
          assert.equal(framedHoldsKey(chunk, text, topic), holds(joined, topic.key));
          compared++;
        }
      }
    }
    assert.ok(compared > 100, `${compared} units compared`);
  });
});

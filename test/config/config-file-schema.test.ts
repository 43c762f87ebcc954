import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { checkConfigFile, ConfigIssue } from '../../src/config/config-file-schema.js';
import { loadConfig } from '../../src/config/load-config.js';
import { UserError } from '../../src/errors.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

/** The path and message of the issue `checkConfigFile` raises for `raw`. */
function issueOf(raw: unknown): { where: string; message: string } {
  try {
    checkConfigFile(raw);
  } catch (error) {
    assert.ok(error instanceof ConfigIssue, String(error));
    return { where: error.path.join('.'), message: error.message };
  }
  assert.fail(`accepted ${JSON.stringify(raw)}`);
}

describe('config file schema', () => {
  it('accepts the shipped example config unchanged', () => {
    const example: unknown = JSON.parse(readFileSync(path.join(repoRoot, 'exam-copilot.config.example.json'), 'utf8'));
    assert.deepEqual(checkConfigFile(example), example);
    assert.deepEqual(checkConfigFile({}), {});
  });

  it('names the field and what is wrong: types, whole numbers, ranges, options, URLs, unknown keys', () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ chunking: { minChars: '300' } }, 'chunking.minChars', /expected number, received string/],
      [{ vector: { hnswM: 4.5 } }, 'vector.hnswM', /expected int/],
      [{ vector: { hnswM: 2 } }, 'vector.hnswM', />=4/],
      [{ embedder: { dimension: 5000 } }, 'embedder.dimension', /<=4096/],
      [{ retrieval: { rrfK: 0 } }, 'retrieval.rrfK', />0/],
      [{ retrieval: { weights: { keyword: -1 } } }, 'retrieval.weights.keyword', />=0/],
      [{ retrieval: { phraseWeight: -0.5 } }, 'retrieval.phraseWeight', />=0/],
      [{ embedder: { kind: 'word2vec' } }, 'embedder.kind', /expected one of "lsa"\|"transformers"\|"openai"/],
      [{ llm: { baseURL: 'not a url' } }, 'llm.baseURL', /Invalid URL/],
      [{ llm: { modle: 'x' } }, 'llm', /Unrecognized key: "modle"/],
      [{ userDict: ['a.txt', 3] }, 'userDict.1', /expected string/],
      [{ books: { 'a.pdf': 1 } }, 'books.a.pdf', /expected string/],
      [{ answer: { agent: 'yes' } }, 'answer.agent', /expected boolean/],
      [{ exam: { name: '' } }, 'exam.name', />=1 characters/],
      [{ pdf: null }, 'pdf', /expected object, received null/],
      [{ colour: true }, '', /Unrecognized key: "colour"/],
    ];
    for (const [raw, where, message] of cases) {
      const issue = issueOf(raw);
      assert.equal(issue.where, where, JSON.stringify(raw));
      assert.match(issue.message, message, JSON.stringify(raw));
    }
    assert.equal(issueOf([]).where, '');
  });

  it('loadConfig reports the issue in one line naming the file and the field', () => {
    const tmp = makeTempRoot();
    try {
      const file = path.join(tmp.root, 'exam-copilot.config.json');
      writeFileSync(file, JSON.stringify({ retrieval: { depth: 0 } }));
      assert.throws(
        () => loadConfig({ root: tmp.root, env: {} }),
        (error: unknown) =>
          error instanceof UserError &&
          error.message === `${file}: retrieval.depth: Too small: expected number to be >0; see docs/configuration.md`,
      );
      writeFileSync(file, JSON.stringify([1]));
      assert.throws(
        () => loadConfig({ root: tmp.root, env: {} }),
        (error: unknown) => error instanceof UserError && error.message.startsWith(`${file}: (top level): Invalid input: expected object`),
      );
    } finally {
      tmp.cleanup();
    }
  });
});

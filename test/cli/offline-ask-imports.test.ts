import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../helpers/temp-root.js';
import { offlineEnv } from '../helpers/run-cli.js';
import { bundleFresh, COMPILED_CLI, tracedModules } from '../helpers/traced-modules.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

const bin = path.join(repoRoot, 'bin', 'exam-copilot.js');
const QUESTION = '基金财产由（　）负责保管。A.基金托管人 B.基金管理人 C.基金销售机构 D.基金份额登记机构';

// One offline answer is a whole process per question, so what it loads is its cost: the LLM path, the prompts,
// the LSA fit (ingest's) and the keyword search thread (for large indexes only) must stay out of it.
describe('an offline ask loads only what answering offline needs', () => {
  let fx: FixtureIndex;
  before(async () => {
    fx = await buildFixtureIndex();
  });
  after(() => fx.cleanup());

  /** Runs one offline ask through `launcher` with the import trace on; returns the trace's file. */
  const tracedAsk = (launcher: string): string => {
    const trace = path.join(fx.root, 'imports.txt');
    writeFileSync(trace, '');
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        path.join(repoRoot, 'test', 'fixtures', 'cli', 'trace-imports.mjs'),
        launcher,
        '--root',
        fx.root,
        'ask',
        '--answerer',
        'offline',
        QUESTION,
      ],
      {
        encoding: 'utf8',
        env: offlineEnv({ EXAM_COPILOT_VECTOR_BACKEND: 'js', TRACE_IMPORTS_FILE: trace }),
        timeout: 120_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Answer: A/);
    return trace;
  };
  // What loads at all: the LLM client package stays out, SQLite (a require) comes in.
  const packagesOf = (loaded: string): void => {
    assert.ok(loaded.includes('/node_modules/better-sqlite3/'), 'the trace saw the modules loaded with require');
    assert.ok(!loaded.includes('/node_modules/openai/'), 'an offline ask loaded the openai package');
  };

  it('answers without loading the LLM path, the prompts, the LLM client, the LSA fit, the search thread or the stdin reader', () => {
    // Module by module, as the compiled code loads them; the bundle keeps the same modules lazy (its own test below).
    const loaded = tracedModules(tracedAsk(COMPILED_CLI));
    // The trace sees both kinds of loading: the answerer (import) and SQLite (require).
    assert.ok(loaded.includes('/dist/src/answer/offline-answerer.js'), 'the trace saw the offline answerer');
    packagesOf(loaded);
    for (const lazy of [
      '/dist/src/answer/answer-through-llm.js',
      '/dist/src/answer/llm-reranker.js',
      '/dist/src/answer/prompt-templates.js',
      '/dist/src/answer/llm-client.js',
      '/dist/src/indexing/fts-rank-thread.js',
      '/dist/src/indexing/index-thread.js',
      '/dist/src/indexing/vector-scan-thread.js',
      '/dist/src/start-worker.js',
      '/dist/src/cli/ask-input.js',
      '/dist/src/indexing/embedders/lsa-fit.js',
      '/dist/src/indexing/embedders/randomized-svd.js',
    ]) {
      assert.ok(!loaded.includes(lazy), `an offline ask loaded ${lazy}`);
    }
  });

  it('through the launcher, runs the bundle built after the compiled code, and loads no package the compiled code does not', (t) => {
    if (!bundleFresh()) {
      t.skip('dist/bundle/cli.cjs is older than dist/src/ (a bare tsc): the launcher runs the compiled code, tested above');
      return;
    }
    const loaded = tracedModules(tracedAsk(bin));
    assert.ok(!loaded.includes('/dist/src/'), 'the launcher ran no module of dist/src/');
    packagesOf(loaded);
  });
});

import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { describeEndpoint, loadConfig, redactSecrets } from '../../src/config/load-config.js';
import { UserError } from '../../src/errors.js';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

describe('loadConfig', () => {
  it('defaults to the offline stack with no LLM', () => {
    const tmp = makeTempRoot();
    try {
      const { config, warnings } = loadConfig({ root: tmp.root, env: {} });
      assert.equal(config.llm, null);
      assert.equal(config.embedder.kind, 'lsa');
      assert.deepEqual(config.chunking, { minChars: 300, maxChars: 800, overlap: 100, articleUnits: true });
      assert.equal(config.retrieval.rrfK, 2);
      assert.equal(config.retrieval.keywordDepth, 10);
      assert.equal(config.retrieval.phraseWeight, 0.5);
      assert.deepEqual(warnings, []);
    } finally {
      tmp.cleanup();
    }
  });

  it('reads the file, then .env, then the environment, in increasing precedence', () => {
    const tmp = makeTempRoot();
    try {
      writeFileSync(
        path.join(tmp.root, 'exam-copilot.config.json'),
        JSON.stringify({ llm: { baseURL: 'http://file.example/v1', model: 'file-model' }, retrieval: { rrfK: 30 } }),
      );
      writeFileSync(path.join(tmp.root, '.env'), 'OPENAI_MODEL=dotenv-model\nOPENAI_API_KEY=sk-dotenv\n');
      const { config } = loadConfig({ root: tmp.root, env: { OPENAI_BASE_URL: 'http://env.example/v1' } });
      assert.equal(config.llm?.baseURL, 'http://env.example/v1');
      assert.equal(config.llm?.model, 'dotenv-model');
      assert.equal(config.llm?.apiKey, 'sk-dotenv');
      assert.equal(config.retrieval.rrfK, 30);
      const { config: overridden } = loadConfig({ root: tmp.root, env: { EXAM_COPILOT_LLM_MODEL: 'env-model' } });
      assert.equal(overridden.llm?.model, 'env-model');
    } finally {
      tmp.cleanup();
    }
  });

  it('reads a config file saved with a UTF-8 byte-order mark (as Windows Notepad saves it)', () => {
    const tmp = makeTempRoot();
    try {
      writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), `\uFEFF${JSON.stringify({ retrieval: { rrfK: 30 } })}`);
      const { config, warnings } = loadConfig({ root: tmp.root, env: {} });
      assert.equal(config.retrieval.rrfK, 30);
      assert.deepEqual(warnings, []);
    } finally {
      tmp.cleanup();
    }
  });

  it('warns, and stays offline, when a key is set without a model', () => {
    const tmp = makeTempRoot();
    try {
      const { config, warnings } = loadConfig({ root: tmp.root, env: { OPENAI_API_KEY: 'sk-x' } });
      assert.equal(config.llm, null);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]?.message ?? '', /no model/);
    } finally {
      tmp.cleanup();
    }
  });

  it('rejects an unknown key in the config file, naming the file and the field', () => {
    const tmp = makeTempRoot();
    try {
      writeFileSync(path.join(tmp.root, 'exam-copilot.config.json'), JSON.stringify({ embedder: { kind: 'word2vec' } }));
      assert.throws(
        () => loadConfig({ root: tmp.root, env: {} }),
        (error: unknown) => error instanceof UserError && /exam-copilot\.config\.json: embedder\.kind/.test(error.message),
      );
    } finally {
      tmp.cleanup();
    }
  });

  it('accepts EXAM_COPILOT_LLM_MAX_RETRIES=0 (no retries) and warns about a negative or fractional count', () => {
    const tmp = makeTempRoot();
    try {
      const llmEnv = { EXAM_COPILOT_LLM_MODEL: 'm', EXAM_COPILOT_LLM_MAX_RETRIES: '0' };
      const zero = loadConfig({ root: tmp.root, env: llmEnv });
      assert.equal(zero.config.llm?.maxRetries, 0);
      assert.deepEqual(zero.warnings, []);
      const negative = loadConfig({
        root: tmp.root,
        env: { ...llmEnv, EXAM_COPILOT_LLM_MAX_RETRIES: '-1', EXAM_COPILOT_LLM_CONCURRENCY: '0' },
      });
      assert.equal(negative.config.llm?.maxRetries, 3);
      assert.equal(negative.config.llm?.concurrency, 4);
      assert.deepEqual(
        negative.warnings.map((w) => w.where),
        ['env EXAM_COPILOT_LLM_MAX_RETRIES', 'env EXAM_COPILOT_LLM_CONCURRENCY'],
      );
      const fractional = loadConfig({ root: tmp.root, env: { ...llmEnv, EXAM_COPILOT_LLM_TIMEOUT_MS: '2.5' } });
      // The default per-attempt timeout: half the per-question deadline (30 s).
      assert.equal(fractional.config.llm?.timeoutMs, 15_000);
      assert.match(fractional.warnings[0]?.message ?? '', /whole number/);
    } finally {
      tmp.cleanup();
    }
  });

  it('never shows the API key', () => {
    const tmp = makeTempRoot();
    try {
      const key = 'sk-abcdefghijklmnop';
      const { config } = loadConfig({ root: tmp.root, env: { OPENAI_API_KEY: key, OPENAI_MODEL: 'm' } });
      assert.ok(config.llm);
      assert.ok(!describeEndpoint(config.llm).includes(key.slice(3)));
      assert.equal(redactSecrets(`401 for key ${key}`, config), '401 for key ***');
    } finally {
      tmp.cleanup();
    }
  });

  it('accepts the shipped example config', () => {
    const tmp = makeTempRoot();
    try {
      copyFileSync(path.join(repoRoot, 'exam-copilot.config.example.json'), path.join(tmp.root, 'exam-copilot.config.json'));
      const { config, warnings } = loadConfig({ root: tmp.root, env: {} });
      assert.deepEqual(warnings, []);
      assert.equal(config.books['证券投资基金_上册.pdf'], '上册');
      assert.equal(config.llm?.model, 'qwen2.5:7b');
    } finally {
      tmp.cleanup();
    }
  });
});

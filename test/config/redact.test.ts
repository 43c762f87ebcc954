import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEndpoint, loadConfig, redactSecrets } from '../../src/config/load-config.js';
import { endpointSecrets, redactText, redactUrl } from '../../src/config/redact.js';
import { makeTempRoot } from '../helpers/temp-root.js';

void test('URL credentials and keys are redacted by shape and by value', () => {
  assert.equal(redactUrl('https://user:s3cret%21@api.example.com/v1'), 'https://***@api.example.com/v1');
  assert.equal(redactUrl('https://api.example.com/v1?x=a@b'), 'https://api.example.com/v1?x=a@b');
  const secrets = endpointSecrets({ baseURL: 'https://user-name:s3cret%21@api.example.com/v1', apiKey: 'sk-abcdef123' });
  assert.ok(secrets.includes('s3cret!') && secrets.includes('s3cret%21') && secrets.includes('sk-abcdef123'));
  const text = 'failed: https://user-name:s3cret%21@api.example.com/v1 said "bad key sk-abcdef123, password s3cret!"';
  assert.equal(redactText(text, secrets), 'failed: https://***@api.example.com/v1 said "bad key ***, password ***"');
});

void test('config: deadline, attempt timeout, cache bounds and exam name; describeEndpoint and redactSecrets hide URL credentials', () => {
  const tmp = makeTempRoot();
  try {
    const env = {
      EXAM_COPILOT_LLM_BASE_URL: 'http://bob:hunter2hunter@127.0.0.1:9/v1',
      EXAM_COPILOT_LLM_MODEL: 'm',
      EXAM_COPILOT_LLM_DEADLINE_MS: '8000',
    };
    const { config } = loadConfig({ root: tmp.root, env });
    assert.deepEqual(
      [config.llm?.deadlineMs, config.llm?.timeoutMs, config.llm?.cacheMaxEntries, config.llm?.cacheMaxBytes, config.exam.name],
      [8000, 4000, 10_000, 64 * 1024 * 1024, '基金从业资格'],
    );
    assert.equal(describeEndpoint(config.llm!), 'm @ http://***@127.0.0.1:9/v1 (no key)');
    assert.equal(
      redactSecrets('error for http://bob:hunter2hunter@127.0.0.1:9/v1: hunter2hunter', config),
      'error for http://***@127.0.0.1:9/v1: ***',
    );
    const defaults = loadConfig({ root: tmp.root, env: { EXAM_COPILOT_LLM_MODEL: 'm' } }).config;
    assert.deepEqual([defaults.llm?.deadlineMs, defaults.llm?.timeoutMs], [30_000, 15_000]);
  } finally {
    tmp.cleanup();
  }
});

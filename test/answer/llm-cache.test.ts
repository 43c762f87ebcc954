import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { clearLlmCache, llmCacheStats, openLlmCache } from '../../src/answer/llm-cache.js';
import { Database } from '../../src/sqlite-database.js';

const KEY = 'sk-cache-secret-0123456789';

describe('the LLM response cache', () => {
  it('keeps running totals and evicts the oldest entries in one batch down to 90% of the bound', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-llm-cache-'));
    try {
      const file = path.join(dir, 'llm.db');
      const cache = openLlmCache(file, { maxEntries: 20, maxBytes: 1024 * 1024, redact: (t) => t.split(KEY).join('***') });
      const reply = (i: number) => ({
        content: `reply ${i} ${KEY}`,
        finishReason: 'stop',
        usage: { promptTokens: 1, completionTokens: 1 },
        cached: false,
      });
      for (let i = 0; i < 21; i++) cache.put(`k${i}`, reply(i));
      // The 21st write passed the bound: 3 oldest go at once (to 18), not 1 per write.
      assert.equal(cache.get('k2'), undefined);
      assert.equal(cache.get('k3')?.content, 'reply 3 ***');
      cache.put('k3', reply(3));
      cache.close();
      const db = new Database(file, { readonly: true });
      try {
        const totals = db.prepare<[], { entries: number; bytes: number }>('SELECT entries, bytes FROM cache_totals').get();
        const actual = db
          .prepare<[], { entries: number; bytes: number }>(
            'SELECT count(*) AS entries, sum(length(CAST(value AS BLOB))) AS bytes FROM responses',
          )
          .get();
        assert.deepEqual(totals, actual, 'the running totals match the table');
        assert.equal(actual?.entries, 18);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an llm.db written by an earlier version', () => {
  it('is counted whole (agent turns too), gets running totals on open, and loses its unredacted agent-turn table', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'exam-copilot-llm-cache-'));
    try {
      const file = path.join(dir, 'llm.db');
      const old = new Database(file);
      old.exec(`CREATE TABLE responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
        CREATE TABLE agent_turns (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
        INSERT INTO responses VALUES ('a', '{"content":"A","finishReason":"stop","usage":{"promptTokens":1,"completionTokens":1}}', 'x');
        INSERT INTO responses VALUES ('b', 'not json', 'x');
        INSERT INTO agent_turns VALUES ('t', '{"content":"${KEY}"}', 'x');`);
      old.close();
      assert.equal(llmCacheStats(file).entries, 3, 'the agent turns are counted');
      const cache = openLlmCache(file, { redact: (t) => t });
      assert.equal(cache.get('a')?.content, 'A');
      assert.equal(cache.get('b'), undefined, 'a stored value that is not a reply is not replayed');
      cache.close();
      const db = new Database(file, { readonly: true });
      try {
        assert.deepEqual(db.prepare('SELECT entries FROM cache_totals').get(), { entries: 2 });
        assert.equal(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'agent_turns'").get(), undefined);
      } finally {
        db.close();
      }
      assert.equal(clearLlmCache(file).entries, 2);
      assert.deepEqual(llmCacheStats(file), { entries: 0, bytes: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

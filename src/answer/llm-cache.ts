import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { LLM_CACHE_DEFAULTS, type EndpointConfig } from '../config/load-config.js';
import { redactUrl } from '../config/redact.js';
import { Database, type SqliteDatabase } from '../sqlite-database.js';
import type { ChatRequest, ChatResult } from './llm-chat.js';

/**
 * The LLM response cache (`.exam-copilot/cache/llm.db`): one table of validated replies, one-shot answers and agent
 * turns alike, keyed by endpoint, model and the full request (tools included). Values are redacted before they are
 * written and checked against their schema when read. The cache is bounded by entries and bytes: running totals in
 * a one-row table are updated with every write, so a write never aggregates the table, and eviction removes the
 * oldest entries in one batch down to 90% of the bounds. The file also remembers which endpoints reject `tools`
 * (the agent's `auto` protocol). `cache` counts and `cache --clear` empties every table.
 */

/** A tool protocol the agent remembered for an endpoint. */
export type RememberedToolProtocol = 'native' | 'simulated';

/** Size of the LLM response cache. */
export interface LlmCacheStats {
  entries: number;
  bytes: number;
}

/** An open cache. */
export interface LlmResponseCache {
  /** A stored reply that still has the shape of a reply, or undefined. */
  get(key: string): Omit<ChatResult, 'cached'> | undefined;
  /** Stores a reply (redacted); evicts the oldest entries when a bound is passed. */
  put(key: string, value: ChatResult): void;
  toolProtocol(endpoint: string): RememberedToolProtocol | undefined;
  rememberToolProtocol(endpoint: string, protocol: RememberedToolProtocol): void;
  close(): void;
}

export interface OpenLlmCacheOptions {
  /** Most entries kept (`llm.cacheMaxEntries`; default `LLM_CACHE_DEFAULTS`, from the configuration). */
  maxEntries?: number | undefined;
  /** Most bytes of stored values kept (`llm.cacheMaxBytes`). */
  maxBytes?: number | undefined;
  /** The one redactor, applied to the whole stored value. */
  redact: (t: string) => string;
}

/** Eviction goes down to this share of the bounds, so it runs once per many writes, not on every one. */
const EVICT_TO = 0.9;

const storedReply = z.object({
  content: z.string(),
  finishReason: z.string(),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number() }),
  reasoning: z.string().optional(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
});

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL, bytes INTEGER NOT NULL DEFAULT 0);
  CREATE TABLE IF NOT EXISTS cache_totals (id INTEGER PRIMARY KEY CHECK (id = 1), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS endpoint_tools (endpoint TEXT PRIMARY KEY, protocol TEXT NOT NULL, noted_at TEXT NOT NULL);`;

/**
 * Brings a file up to the current schema: a `bytes` column on files written before it existed, the totals row,
 * and no `agent_turns` (the agent's earlier, separate table held unredacted, unbounded turns).
 */
function migrate(db: SqliteDatabase): void {
  db.exec(SCHEMA);
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(responses)').all();
  if (!columns.some((c) => c.name === 'bytes')) {
    db.exec('ALTER TABLE responses ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0');
    db.exec('UPDATE responses SET bytes = length(CAST(value AS BLOB))');
    db.exec('DELETE FROM cache_totals');
  }
  db.exec('INSERT OR IGNORE INTO cache_totals (id, entries, bytes) SELECT 1, count(*), coalesce(sum(bytes), 0) FROM responses');
  db.exec('DROP TABLE IF EXISTS agent_turns');
}

/** Opens (creating) the cache file for reading and writing. */
export function openLlmCache(file: string, options: OpenLlmCacheOptions): LlmResponseCache {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.transaction(() => migrate(db)).immediate();
  const maxEntries = options.maxEntries ?? LLM_CACHE_DEFAULTS.maxEntries;
  const maxBytes = options.maxBytes ?? LLM_CACHE_DEFAULTS.maxBytes;
  const keepEntries = Math.ceil(maxEntries * EVICT_TO);
  const keepBytes = Math.floor(maxBytes * EVICT_TO);
  const select = db.prepare<[string], { value: string }>('SELECT value FROM responses WHERE key = ?');
  const sizeOf = db.prepare<[string], { bytes: number }>('SELECT bytes FROM responses WHERE key = ?');
  const removeKey = db.prepare<[string]>('DELETE FROM responses WHERE key = ?');
  const insert = db.prepare<[string, string, string, number]>('INSERT INTO responses (key, value, created_at, bytes) VALUES (?, ?, ?, ?)');
  const totals = db.prepare<[], LlmCacheStats>('SELECT entries, bytes FROM cache_totals WHERE id = 1');
  const addTotals = db.prepare<[number, number]>('UPDATE cache_totals SET entries = entries + ?, bytes = bytes + ? WHERE id = 1');
  // Oldest first: a rewritten entry is deleted and inserted again, so rowid order is insertion order.
  const oldest = db.prepare<[], { rowid: number; bytes: number }>('SELECT rowid, bytes FROM responses ORDER BY rowid');
  const removeUpTo = db.prepare<[number]>('DELETE FROM responses WHERE rowid <= ?');
  const selectProtocol = db.prepare<[string], { protocol: string }>('SELECT protocol FROM endpoint_tools WHERE endpoint = ?');
  const insertProtocol = db.prepare<[string, string, string]>(
    'INSERT OR REPLACE INTO endpoint_tools (endpoint, protocol, noted_at) VALUES (?, ?, ?)',
  );

  /** Removes the oldest entries, in one statement, until both totals are at or below 90% of the bounds. */
  const evict = (current: LlmCacheStats): void => {
    let entries = current.entries;
    let bytes = current.bytes;
    let last: number | null = null;
    for (const row of oldest.iterate()) {
      if (entries <= keepEntries && bytes <= keepBytes) break;
      last = row.rowid;
      entries--;
      bytes -= row.bytes;
    }
    if (last === null) return;
    removeUpTo.run(last);
    addTotals.run(entries - current.entries, bytes - current.bytes);
  };

  const write = db.transaction((key: string, text: string, size: number) => {
    const previous = sizeOf.get(key);
    if (previous) {
      removeKey.run(key);
      addTotals.run(-1, -previous.bytes);
    }
    insert.run(key, text, new Date().toISOString(), size);
    addTotals.run(1, size);
    const now = totals.get() ?? { entries: 0, bytes: 0 };
    if (now.entries > maxEntries || now.bytes > maxBytes) evict(now);
  });

  return {
    get(key) {
      const row = select.get(key);
      if (!row) return undefined;
      try {
        const parsed = storedReply.safeParse(JSON.parse(row.value));
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    },
    put(key, value) {
      const { cached: _cached, ...rest } = value;
      const text = options.redact(JSON.stringify(rest));
      const size = Buffer.byteLength(text);
      // An entry larger than the whole budget would only evict everything else.
      if (size > maxBytes) return;
      write.immediate(key, text, size);
    },
    toolProtocol(endpoint) {
      const p = selectProtocol.get(endpoint)?.protocol;
      return p === 'native' || p === 'simulated' ? p : undefined;
    },
    rememberToolProtocol(endpoint, protocol) {
      insertProtocol.run(endpoint, protocol, new Date().toISOString());
    },
    close() {
      db.close();
    },
  };
}

/** The cache key: endpoint (credentials removed), model and the full request (tools included), hashed. */
export function cacheKey(endpoint: Pick<EndpointConfig, 'baseURL' | 'model'>, request: ChatRequest): string {
  const canonical = JSON.stringify({ baseURL: redactUrl(endpoint.baseURL).replace(/\/+$/, ''), model: endpoint.model, request });
  return createHash('sha256').update(canonical).digest('hex');
}

/** Tables of the file that hold replies: the cache, and the agent's earlier table if an older version left one. */
const REPLY_TABLES = ['responses', 'agent_turns'] as const;

/** Entries and bytes in an LLM response cache file, every reply table counted (zero when it does not exist). */
export function llmCacheStats(file: string): LlmCacheStats {
  if (!existsSync(file)) return { entries: 0, bytes: 0 };
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const stats: LlmCacheStats = { entries: 0, bytes: 0 };
    for (const table of REPLY_TABLES) {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) continue;
      // The true size, not the running totals: this is what the user is about to keep or clear.
      const row = db
        .prepare<[], { n: number; bytes: number | null }>(`SELECT count(*) AS n, sum(length(CAST(value AS BLOB))) AS bytes FROM ${table}`)
        .get();
      stats.entries += row?.n ?? 0;
      stats.bytes += row?.bytes ?? 0;
    }
    return stats;
  } finally {
    db.close();
  }
}

/** Empties every table of an LLM response cache and gives its space back; returns what was removed. */
export function clearLlmCache(file: string): LlmCacheStats {
  const before = llmCacheStats(file);
  if (!existsSync(file)) return before;
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.transaction(() => {
      migrate(db);
      db.exec('DELETE FROM responses; DELETE FROM endpoint_tools; UPDATE cache_totals SET entries = 0, bytes = 0');
    }).immediate();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
  } finally {
    db.close();
  }
  return before;
}

import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Database, type SqliteDatabase, type SqliteStatement } from '../sqlite-database.js';
import type { Embedder } from '../types.js';

/** sha256 of a text: the cache key together with the embedder id. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Embeddings by (embedder id, sha256(text)) in SQLite, so a re-ingest embeds only new or changed
 * chunks. It lives in `.exam-copilot/cache/` (outside `index/`), so it survives index rebuilds.
 * LSA's id changes with every refit of a changed corpus, so LSA re-embeds then (cheap: a sparse
 * product); model-backed embedders keep their id and hit the cache.
 */
export class EmbeddingCache {
  private readonly db: SqliteDatabase;
  private readonly getStmt: SqliteStatement;
  private readonly putStmt: SqliteStatement;

  constructor(file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS embeddings (embedder TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (embedder, hash)) WITHOUT ROWID',
    );
    this.getStmt = this.db.prepare('SELECT vector FROM embeddings WHERE embedder = ? AND hash = ?');
    this.putStmt = this.db.prepare('INSERT OR REPLACE INTO embeddings (embedder, hash, vector) VALUES (?, ?, ?)');
  }

  get(embedderId: string, text: string, dimension: number): Float32Array | undefined {
    const row = this.getStmt.get(embedderId, textHash(text)) as { vector: Buffer } | undefined;
    if (!row || row.vector.byteLength !== dimension * 4) return undefined;
    return new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength));
  }

  putMany(embedderId: string, entries: readonly { text: string; vector: Float32Array }[]): void {
    const tx = this.db.transaction(() => {
      for (const e of entries)
        this.putStmt.run(embedderId, textHash(e.text), Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength));
    });
    tx();
  }

  close(): void {
    this.db.close();
  }
}

/** Embeds documents through the cache: cached texts are read back, the rest embedded in batches and stored. */
export async function embedWithCache(
  embedder: Embedder,
  texts: readonly string[],
  cache: EmbeddingCache | null,
  onProgress?: (done: number, total: number) => void,
  batchSize = 256,
): Promise<{ vectors: Float32Array[]; embedded: number; cached: number }> {
  const vectors: (Float32Array | undefined)[] = texts.map((t) => cache?.get(embedder.id, t, embedder.dimension));
  const missing: number[] = [];
  vectors.forEach((v, i) => {
    if (!v) missing.push(i);
  });
  const cached = texts.length - missing.length;
  for (let b = 0; b < missing.length; b += batchSize) {
    const ids = missing.slice(b, b + batchSize);
    const out = await embedder.embedDocuments(ids.map((i) => texts[i]!));
    ids.forEach((i, j) => {
      vectors[i] = out[j];
    });
    cache?.putMany(
      embedder.id,
      ids.map((i, j) => ({ text: texts[i]!, vector: out[j]! })),
    );
    onProgress?.(cached + Math.min(b + batchSize, missing.length), texts.length);
  }
  return { vectors: vectors as Float32Array[], embedded: missing.length, cached };
}

/**
 * Embeddings cache: vectors keyed by (embedder id, SHA-256 of the retrieval text), so an
 * unchanged tool is never embedded twice and a restart with the same catalog embeds
 * nothing.
 */
import { createHash } from 'node:crypto';
import type { Db } from './db.js';

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class EmbeddingStore {
  private readonly getStmt;
  private readonly putStmt;

  constructor(private readonly db: Db) {
    db.exec(`CREATE TABLE IF NOT EXISTS embeddings (
      embedder TEXT NOT NULL, text_hash TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL,
      created_at INTEGER NOT NULL, PRIMARY KEY (embedder, text_hash))`);
    this.getStmt = db.prepare<[string, string], { dim: number; vector: Buffer }>(
      'SELECT dim, vector FROM embeddings WHERE embedder = ? AND text_hash = ?',
    );
    this.putStmt = db.prepare('INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?, ?)');
  }

  /** Cached vectors for `texts` (same order); undefined where absent. */
  get(embedderId: string, texts: string[]): (Float32Array | undefined)[] {
    return texts.map((t) => {
      const row = this.getStmt.get(embedderId, textHash(t));
      if (!row) return undefined;
      const buf = row.vector;
      return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + row.dim * 4));
    });
  }

  put(embedderId: string, entries: { text: string; vector: Float32Array }[]): void {
    const now = Date.now();
    this.db.transaction(() => {
      for (const { text, vector } of entries) {
        this.putStmt.run(embedderId, textHash(text), vector.length, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), now);
      }
    })();
  }
}

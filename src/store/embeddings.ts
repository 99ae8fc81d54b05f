/**
 * Embeddings cache: vectors keyed by (embedder id, SHA-256 of the text), so an unchanged
 * tool is never embedded twice, a restart with the same catalog embeds nothing, and a
 * fleet embeds each text once: a replica claims the texts it is about to embed
 * (`embedding_claims`, one row per text, lapsing after a TTL), the others skip those and
 * wait for their vectors (curator/embedCache.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { migrate } from './schema.js';
import { chunks, marks, type Sql } from './sql.js';
import { SqliteSql } from './sqliteSql.js';
import type { Db } from './db.js';
import type { EmbeddingCache, EventsPart } from './types.js';

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Keys per statement (SQLite and PostgreSQL both take far more; this keeps statements small). */
const KEYS_PER_STATEMENT = 500;

export class SqlEmbeddings implements Required<EmbeddingCache> {
  /** Who holds a claim: this store instance. */
  private readonly owner = randomUUID();

  constructor(
    protected readonly sql: Sql,
    private readonly events?: EventsPart,
  ) {}

  async get(embedderId: string, texts: readonly string[]): Promise<(Float32Array | undefined)[]> {
    const hashes = texts.map(textHash);
    const found = new Map<string, Float32Array>();
    for (const part of chunks([...new Set(hashes)], KEYS_PER_STATEMENT)) {
      const rows = await this.sql.all<{ text_hash: string; dim: number; vector: Buffer }>(
        `SELECT text_hash, dim, vector FROM embeddings WHERE embedder = ? AND text_hash IN (${marks(part.length)})`,
        [embedderId, ...part],
      );
      for (const r of rows) found.set(r.text_hash, new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + Number(r.dim) * 4)));
    }
    return hashes.map((h) => found.get(h));
  }

  async put(embedderId: string, entries: readonly { text: string; vector: Float32Array }[]): Promise<void> {
    if (entries.length === 0) return;
    const now = Date.now();
    const byHash = new Map(entries.map((e) => [textHash(e.text), e.vector]));
    await this.sql.tx(async (t) => {
      for (const part of chunks([...byHash], KEYS_PER_STATEMENT / 5)) {
        await t.run(
          `INSERT INTO embeddings (embedder, text_hash, dim, vector, created_at) VALUES ${part.map(() => `(${marks(5)})`).join(', ')}
           ON CONFLICT (embedder, text_hash) DO UPDATE SET dim = excluded.dim, vector = excluded.vector, created_at = excluded.created_at`,
          part.flatMap(([hash, v]) => [embedderId, hash, v.length, Buffer.from(v.buffer, v.byteOffset, v.byteLength), now]),
        );
        await t.run(`DELETE FROM embedding_claims WHERE embedder = ? AND text_hash IN (${marks(part.length)})`, [embedderId, ...part.map(([h]) => h)]);
      }
    });
    await this.events?.emit('embeddings', { embedder: embedderId });
  }

  async claim(embedderId: string, texts: readonly string[], ttlMs: number): Promise<string[]> {
    const cached = await this.get(embedderId, texts);
    const byHash = new Map<string, string>();
    texts.forEach((t, i) => cached[i] === undefined && byHash.set(textHash(t), t));
    if (byHash.size === 0) return [];
    const now = Date.now();
    const mine = new Set<string>();
    await this.sql.tx(async (t) => {
      for (const part of chunks([...byHash.keys()], KEYS_PER_STATEMENT / 4)) {
        // A claim is taken when there is none, when it lapsed, or when it is already ours (renewed).
        await t.run(
          `INSERT INTO embedding_claims (embedder, text_hash, owner, claimed_at) VALUES ${part.map(() => `(${marks(4)})`).join(', ')}
           ON CONFLICT (embedder, text_hash) DO UPDATE SET owner = excluded.owner, claimed_at = excluded.claimed_at
           WHERE embedding_claims.claimed_at < ? OR embedding_claims.owner = excluded.owner`,
          [...part.flatMap((h) => [embedderId, h, this.owner, now]), now - ttlMs],
        );
        // Vectors stored since the look above (their claims gone with them) are not claimed: drop those claims again.
        await t.run(
          `DELETE FROM embedding_claims WHERE embedder = ? AND owner = ? AND text_hash IN (${marks(part.length)})
           AND EXISTS (SELECT 1 FROM embeddings e WHERE e.embedder = embedding_claims.embedder AND e.text_hash = embedding_claims.text_hash)`,
          [embedderId, this.owner, ...part],
        );
        const rows = await t.all<{ text_hash: string }>(
          `SELECT text_hash FROM embedding_claims WHERE embedder = ? AND owner = ? AND text_hash IN (${marks(part.length)})`,
          [embedderId, this.owner, ...part],
        );
        for (const r of rows) mine.add(r.text_hash);
      }
    });
    return [...byHash].filter(([h]) => mine.has(h)).map(([, text]) => text);
  }

  onPut(fn: (embedderId: string) => void): () => void {
    return this.events ? this.events.on('embeddings', (p) => fn(p.embedder)) : () => undefined;
  }
}

/**
 * The embeddings cache on a SQLite file opened with `openDb`, for library users who keep
 * only this part (`new EmbeddingStore(openDb(path))`); `openStore` gives the whole store.
 */
export class EmbeddingStore extends SqlEmbeddings {
  private readonly ready: Promise<unknown>;

  constructor(db: Db) {
    const sql = new SqliteSql(db);
    super(sql);
    this.ready = migrate(sql, db.name);
    // Reported by the first get or put, which await it.
    this.ready.catch(() => undefined);
  }

  override async get(embedderId: string, texts: readonly string[]): Promise<(Float32Array | undefined)[]> {
    await this.ready;
    return super.get(embedderId, texts);
  }

  override async put(embedderId: string, entries: readonly { text: string; vector: Float32Array }[]): Promise<void> {
    await this.ready;
    return super.put(embedderId, entries);
  }

  override async claim(embedderId: string, texts: readonly string[], ttlMs: number): Promise<string[]> {
    await this.ready;
    return super.claim(embedderId, texts, ttlMs);
  }
}

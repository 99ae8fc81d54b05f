/**
 * What the gateway remembers of its upstreams' protocol: each connection's era verdict
 * (upstream/era.ts decides when one is fresh) and the response cache behind the SDK
 * client's `ResponseCacheStore` (upstream/responseCache.ts). Both are plain rows: every
 * freshness and scope decision is the caller's.
 */
import type { Sql } from './sql.js';
import type { CachedResponse, EraVerdictRow, EraVerdictsPart, ResponseCachePart } from './types.js';

export class SqlEraVerdicts implements EraVerdictsPart {
  constructor(private readonly sql: Sql) {}

  async get(key: string): Promise<EraVerdictRow | undefined> {
    const row = await this.sql.get<{ era: string; discover: string | null; stored_at: number }>('SELECT era, discover, stored_at FROM upstream_eras WHERE conn_key = ?', [key]);
    if (!row || (row.era !== 'modern' && row.era !== 'legacy')) return undefined;
    return { era: row.era, ...(row.discover !== null && { discover: row.discover }), storedAt: Number(row.stored_at) };
  }

  async put(key: string, verdict: Omit<EraVerdictRow, 'storedAt'>, now = Date.now()): Promise<void> {
    await this.sql.run(
      `INSERT INTO upstream_eras (conn_key, era, discover, stored_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (conn_key) DO UPDATE SET era = excluded.era, discover = excluded.discover, stored_at = excluded.stored_at`,
      [key, verdict.era, verdict.discover ?? null, now],
    );
  }

  async drop(key: string): Promise<void> {
    await this.sql.run('DELETE FROM upstream_eras WHERE conn_key = ?', [key]);
  }
}

/** Stamps: epoch ms times 1024 plus a per-process counter, increasing and below 2^53 until the year 2250. */
let counter = 0;
const nextStamp = () => Date.now() * 1024 + (counter++ % 1024);
/** Writes per process between two checks of the row bound. */
const PRUNE_EVERY = 64;

export class SqlResponseCache implements ResponseCachePart {
  constructor(private readonly sql: Sql) {}

  async get(method: string, params: string, part: string): Promise<CachedResponse | undefined> {
    const row = await this.sql.get<{ value: string; stamp: number; expires_at: number | null; scope: string | null }>(
      'SELECT value, stamp, expires_at, scope FROM response_cache WHERE method = ? AND params = ? AND part = ?',
      [method, params, part],
    );
    if (!row) return undefined;
    const scope = row.scope === 'public' || row.scope === 'private' ? row.scope : undefined;
    return { value: row.value, stamp: Number(row.stamp), ...(row.expires_at !== null && { expiresAt: Number(row.expires_at) }), ...(scope && { scope }) };
  }

  async set(method: string, params: string, part: string, entry: Omit<CachedResponse, 'stamp'>, maxRows: number): Promise<number> {
    const stamp = nextStamp();
    await this.sql.run(
      `INSERT INTO response_cache (method, params, part, value, expires_at, scope, stamp) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (method, params, part) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, scope = excluded.scope, stamp = excluded.stamp`,
      [method, params, part, entry.value, entry.expiresAt ?? null, entry.scope ?? null, stamp],
    );
    // Bounded: past `maxRows`, the oldest writes go (the newest `maxRows` stay).
    if (counter % PRUNE_EVERY === 0) {
      const edge = await this.sql.get<{ stamp: number }>('SELECT stamp FROM response_cache ORDER BY stamp DESC LIMIT 1 OFFSET ?', [maxRows]);
      if (edge) await this.sql.run('DELETE FROM response_cache WHERE stamp <= ?', [Number(edge.stamp)]);
    }
    return stamp;
  }

  async delete(method: string, params: string, part: string): Promise<void> {
    await this.sql.run('DELETE FROM response_cache WHERE method = ? AND params = ? AND part = ?', [method, params, part]);
  }

  async evict(method: string, partPrefix: string): Promise<void> {
    await this.sql.run('DELETE FROM response_cache WHERE method = ? AND substr(part, 1, ?) = ?', [method, partPrefix.length, partPrefix]);
  }

  async clear(partPrefix: string): Promise<void> {
    await this.sql.run('DELETE FROM response_cache WHERE substr(part, 1, ?) = ?', [partPrefix.length, partPrefix]);
  }
}

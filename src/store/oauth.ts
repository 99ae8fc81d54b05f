/**
 * OAuth client state per remote upstream: registered client information, tokens, the
 * PKCE code verifier of an authorization in progress, cached discovery, and a scope an
 * upstream asked for (step-up) that still needs the user's consent. Values are stored as
 * the SDK hands them over (JSON), keyed by upstream name and bound to the upstream's URL:
 * state saved for another URL reads back as absent.
 *
 * The store file holds secrets once a row exists here, so every write narrows the file
 * (and its WAL/SHM companions) to mode 0600.
 */
import { chmodSync, existsSync } from 'node:fs';
import type { Db } from './db.js';

export type OAuthField = 'client_information' | 'tokens' | 'code_verifier' | 'discovery' | 'pending_scope';

const FIELDS: readonly OAuthField[] = ['client_information', 'tokens', 'code_verifier', 'discovery', 'pending_scope'];

interface Row {
  url: string;
  client_information: string | null;
  tokens: string | null;
  code_verifier: string | null;
  discovery: string | null;
  pending_scope: string | null;
  updated_at: number;
}

export class OAuthStore {
  constructor(private readonly db: Db) {
    db.exec(`CREATE TABLE IF NOT EXISTS oauth_state (
      upstream TEXT PRIMARY KEY,
      url TEXT NOT NULL,
      client_information TEXT,
      tokens TEXT,
      code_verifier TEXT,
      discovery TEXT,
      pending_scope TEXT,
      updated_at INTEGER NOT NULL
    )`);
  }

  private row(upstream: string, url: string): Row | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_state WHERE upstream = ?').get(upstream) as Row | undefined;
    return row && row.url === url ? row : undefined;
  }

  /** The stored value of `field`, or `undefined` when absent or saved for another URL. */
  get(upstream: string, url: string, field: OAuthField): string | undefined {
    return this.row(upstream, url)?.[field] ?? undefined;
  }

  /** Sets (or with `undefined` clears) one field. A row saved for another URL is replaced. */
  set(upstream: string, url: string, field: OAuthField, value: string | undefined): void {
    if (!FIELDS.includes(field)) throw new Error(`unknown OAuth field ${field}`);
    const existing = this.db.prepare('SELECT url FROM oauth_state WHERE upstream = ?').get(upstream) as { url: string } | undefined;
    if (existing && existing.url !== url) this.clear(upstream);
    this.db
      .prepare(
        `INSERT INTO oauth_state (upstream, url, ${field}, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(upstream) DO UPDATE SET ${field} = excluded.${field}, updated_at = excluded.updated_at`,
      )
      .run(upstream, url, value ?? null, Date.now());
    this.restrictFileMode();
  }

  /**
   * A number that changes whenever the upstream's stored state changes (0 when none), so
   * a gateway that found an upstream unauthorized can tell when `tool-curator auth` ran.
   */
  version(upstream: string): number {
    const row = this.db.prepare('SELECT updated_at FROM oauth_state WHERE upstream = ?').get(upstream) as { updated_at: number } | undefined;
    return row?.updated_at ?? 0;
  }

  /** Deletes everything stored for `upstream`. Returns whether there was anything. */
  clear(upstream: string): boolean {
    return this.db.prepare('DELETE FROM oauth_state WHERE upstream = ?').run(upstream).changes > 0;
  }

  /** Narrows the store file and its WAL/SHM companions to owner read/write. */
  private restrictFileMode(): void {
    const file = this.db.name;
    if (!file || file === ':memory:') return;
    for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
  }
}

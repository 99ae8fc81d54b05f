/**
 * The exposed-name memory: which name each (server, upstream tool) was exposed as, so a
 * name a host has seen keeps meaning the same tool across restarts and across tools added
 * later (catalog/names.ts decides the names; this table only remembers them).
 */
import type { Db } from './db.js';

/** Upstream names longer than this are not remembered (a tool with such a name gets a hashed name anyway). */
const MAX_KEY_CHARS = 1024;

export interface RememberedName {
  server: string;
  upstreamName: string;
  name: string;
}

export class NameStore {
  constructor(private readonly db: Db) {
    db.exec(`CREATE TABLE IF NOT EXISTS tool_names (
      server TEXT NOT NULL, upstream_name TEXT NOT NULL, exposed TEXT NOT NULL, updated_at INTEGER NOT NULL,
      PRIMARY KEY (server, upstream_name))`);
  }

  /** Every remembered name, keyed by `${server}\0${upstreamName}` (catalog/names.ts toolKey). */
  load(): Map<string, string> {
    const rows = this.db.prepare<[], { server: string; upstream_name: string; exposed: string }>('SELECT server, upstream_name, exposed FROM tool_names').all();
    return new Map(rows.map((r) => [`${r.server}\0${r.upstream_name}`, r.exposed]));
  }

  /** Remembers these names (insert or replace); rows of tools not listed stay, for when they come back. */
  save(entries: RememberedName[], now: number = Date.now()): void {
    const put = this.db.prepare('INSERT INTO tool_names (server, upstream_name, exposed, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (server, upstream_name) DO UPDATE SET exposed = excluded.exposed, updated_at = excluded.updated_at WHERE exposed <> excluded.exposed');
    this.db.transaction(() => {
      for (const e of entries) if (e.server.length + e.upstreamName.length <= MAX_KEY_CHARS) put.run(e.server, e.upstreamName, e.name, now);
    })();
  }
}

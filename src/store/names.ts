/**
 * The exposed-name memory: which name each (server, upstream tool) was exposed as, so a
 * name a host has seen keeps meaning the same tool across restarts, tools added later and
 * replicas (catalog/names.ts decides the names; this table only remembers them).
 */
import { chunks, marks, type Sql } from './sql.js';
import type { EventsPart, NamesPart, RememberedName } from './types.js';

/** Upstream names longer than this are not remembered (a tool with such a name gets a hashed name anyway). */
const MAX_KEY_CHARS = 1024;
/** Rows per INSERT statement. */
const ROWS_PER_STATEMENT = 200;

export class SqlNames implements NamesPart {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsPart,
  ) {}

  async load(): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ server: string; upstream_name: string; exposed: string }>('SELECT server, upstream_name, exposed FROM tool_names');
    return new Map(rows.map((r) => [`${r.server}\0${r.upstream_name}`, r.exposed]));
  }

  async save(entries: RememberedName[]): Promise<void> {
    // One row per key (PostgreSQL refuses a statement that updates a row twice).
    const byKey = new Map(entries.filter((e) => e.server.length + e.upstreamName.length <= MAX_KEY_CHARS).map((e) => [`${e.server}\0${e.upstreamName}`, e]));
    const kept = [...byKey.values()];
    if (kept.length === 0) return;
    const now = Date.now();
    const changed = await this.sql.tx(async (t) => {
      let n = 0;
      for (const part of chunks(kept, ROWS_PER_STATEMENT)) {
        n += await t.run(
          `INSERT INTO tool_names (server, upstream_name, exposed, updated_at) VALUES ${part.map(() => `(${marks(4)})`).join(', ')}
           ON CONFLICT (server, upstream_name) DO UPDATE SET exposed = excluded.exposed, updated_at = excluded.updated_at
           WHERE tool_names.exposed <> excluded.exposed`,
          part.flatMap((e) => [e.server, e.upstreamName, e.name, now]),
        );
      }
      return n;
    });
    if (changed > 0) await this.events.emit('names', {});
  }
}

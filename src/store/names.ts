/**
 * The exposed-name memory: which name each (server, upstream tool) was exposed as, so a
 * name a host has seen keeps meaning the same tool across restarts, tools added later and
 * replicas (catalog/names.ts decides the names; this table only remembers them). Relayed
 * prompts, resources and templates have a memory of their own, per kind (`relay_names`;
 * relay/names.ts decides those).
 */
import { chunks, marks, type Param, type Sql } from './sql.js';
import type { EventsPart, NamesPart, RelayNameKind, RelayNamesPart, RememberedName } from './types.js';

/** Upstream names longer than this are not remembered (a tool with such a name gets a hashed name anyway). */
const MAX_KEY_CHARS = 1024;
/** Rows per INSERT statement. */
const ROWS_PER_STATEMENT = 200;

const keyOf = (server: string, upstream: string) => `${server}\0${upstream}`;

/**
 * Upserts `entries` into `table` (one row per key: PostgreSQL refuses a statement that
 * updates a row twice), `lead` the values of its leading key columns; a row changes only
 * when its name does. Returns how many rows changed.
 */
async function upsert(sql: Sql, table: 'tool_names' | 'relay_names', lead: Param[], entries: RememberedName[]): Promise<number> {
  const byKey = new Map(entries.filter((e) => e.server.length + e.upstreamName.length <= MAX_KEY_CHARS).map((e) => [keyOf(e.server, e.upstreamName), e]));
  const kept = [...byKey.values()];
  if (kept.length === 0) return 0;
  const [columns, key] = table === 'tool_names' ? ['server, upstream_name', 'server, upstream_name'] : ['kind, server, upstream', 'kind, server, upstream'];
  const now = Date.now();
  return sql.tx(async (t) => {
    let n = 0;
    for (const part of chunks(kept, ROWS_PER_STATEMENT)) {
      n += await t.run(
        `INSERT INTO ${table} (${columns}, exposed, updated_at) VALUES ${part.map(() => `(${marks(lead.length + 4)})`).join(', ')}
         ON CONFLICT (${key}) DO UPDATE SET exposed = excluded.exposed, updated_at = excluded.updated_at
         WHERE ${table}.exposed <> excluded.exposed`,
        part.flatMap((e) => [...lead, e.server, e.upstreamName, e.name, now]),
      );
    }
    return n;
  });
}

export class SqlNames implements NamesPart {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsPart,
  ) {}

  async load(): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ server: string; upstream_name: string; exposed: string }>('SELECT server, upstream_name, exposed FROM tool_names');
    return new Map(rows.map((r) => [keyOf(r.server, r.upstream_name), r.exposed]));
  }

  async save(entries: RememberedName[]): Promise<void> {
    if ((await upsert(this.sql, 'tool_names', [], entries)) > 0) await this.events.emit('names', {});
  }
}

export class SqlRelayNames implements RelayNamesPart {
  constructor(private readonly sql: Sql) {}

  async load(kind: RelayNameKind): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ server: string; upstream: string; exposed: string }>('SELECT server, upstream, exposed FROM relay_names WHERE kind = ?', [kind]);
    return new Map(rows.map((r) => [keyOf(r.server, r.upstream), r.exposed]));
  }

  async save(kind: RelayNameKind, entries: RememberedName[], max: number): Promise<void> {
    if ((await upsert(this.sql, 'relay_names', [kind], entries)) === 0) return;
    const count = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM relay_names WHERE kind = ?', [kind]);
    if (Number(count?.n ?? 0) <= max) return;
    // The newest `max` stay; rows of one instant in key order, so exactly `max` do.
    const order = 'updated_at DESC, server DESC, upstream DESC';
    const edge = await this.sql.get<{ updated_at: number; server: string; upstream: string }>(
      `SELECT updated_at, server, upstream FROM relay_names WHERE kind = ? ORDER BY ${order} LIMIT 1 OFFSET ?`,
      [kind, max],
    );
    if (!edge) return;
    await this.sql.run('DELETE FROM relay_names WHERE kind = ? AND (updated_at < ? OR (updated_at = ? AND (server < ? OR (server = ? AND upstream <= ?))))', [
      kind, Number(edge.updated_at), Number(edge.updated_at), edge.server, edge.server, edge.upstream,
    ]);
  }
}

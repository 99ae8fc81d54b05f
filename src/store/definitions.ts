/**
 * Pinned tool definitions: the definition of each (server, upstream tool) as first seen
 * (its digest and JSON text), and a changed one waiting for a person. What a definition
 * is, what its digest covers and what counts as a change are the guards' business; this
 * module keeps the rows and takes each step atomically.
 */
import { chunks, marks, type Sql } from './sql.js';
import type { DefinitionPin, DefinitionsPart, DefinitionStatus, EventsPart } from './types.js';

interface Row {
  server: string;
  upstream_name: string;
  digest: string;
  definition: string;
  status: DefinitionStatus;
  pending_digest: string | null;
  pending_definition: string | null;
  first_seen_at: number;
  changed_at: number | null;
  decided_at: number | null;
  decided_by: string | null;
  proof: string | null;
  prior_digest: string | null;
  prior_definition: string | null;
  voided: string | null;
}

function fromRow(r: Row): DefinitionPin {
  const pin: DefinitionPin = {
    server: r.server,
    upstreamName: r.upstream_name,
    digest: r.digest,
    definition: r.definition,
    status: r.status,
    firstSeenAt: Number(r.first_seen_at),
  };
  if (r.pending_digest !== null) pin.pendingDigest = r.pending_digest;
  if (r.pending_definition !== null) pin.pendingDefinition = r.pending_definition;
  if (r.changed_at !== null) pin.changedAt = Number(r.changed_at);
  if (r.decided_at !== null) pin.decidedAt = Number(r.decided_at);
  if (r.decided_by !== null) pin.decidedBy = r.decided_by;
  if (r.proof !== null) pin.proof = r.proof;
  if (r.prior_digest !== null) pin.priorDigest = r.prior_digest;
  if (r.prior_definition !== null) pin.priorDefinition = r.prior_definition;
  if (r.voided !== null) pin.voided = r.voided;
  return pin;
}

/** Definitions pinned per transaction by pinAllIfAbsent (and names per SELECT: under every engine's parameter limit). */
const PIN_CHUNK = 500;

export class SqlDefinitions implements DefinitionsPart {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsPart,
    private readonly now: () => number,
  ) {}

  async get(server: string, upstreamName: string): Promise<DefinitionPin | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM tool_definitions WHERE server = ? AND upstream_name = ?', [server, upstreamName]);
    return row && fromRow(row);
  }

  async list(options: { status?: DefinitionStatus; server?: string } = {}): Promise<DefinitionPin[]> {
    const where: string[] = [];
    const params: string[] = [];
    for (const [column, value] of [['status', options.status], ['server', options.server]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    const rows = await this.sql.all<Row>(`SELECT * FROM tool_definitions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY server, upstream_name`, params);
    return rows.map(fromRow);
  }

  async pinIfAbsent(pin: { server: string; upstreamName: string; digest: string; definition: string }): Promise<{ pin: DefinitionPin; created: boolean }> {
    const created = await this.sql.run(
      `INSERT INTO tool_definitions (server, upstream_name, digest, definition, status, first_seen_at) VALUES (?, ?, ?, ?, 'accepted', ?)
       ON CONFLICT (server, upstream_name) DO NOTHING`,
      [pin.server, pin.upstreamName, pin.digest, pin.definition, this.now()],
    );
    return { pin: (await this.get(pin.server, pin.upstreamName))!, created: created === 1 };
  }

  async pinAllIfAbsent(pins: readonly { server: string; upstreamName: string; digest: string; definition: string }[]): Promise<DefinitionPin[]> {
    const out: DefinitionPin[] = [];
    for (const chunk of chunks(pins, PIN_CHUNK)) {
      const rows = await this.sql.tx(async (tx) => {
        const at = this.now();
        for (const pin of chunk) {
          await tx.run(
            `INSERT INTO tool_definitions (server, upstream_name, digest, definition, status, first_seen_at) VALUES (?, ?, ?, ?, 'accepted', ?)
             ON CONFLICT (server, upstream_name) DO NOTHING`,
            [pin.server, pin.upstreamName, pin.digest, pin.definition, at],
          );
        }
        const found: Row[] = [];
        const byServer = new Map<string, string[]>();
        for (const pin of chunk) byServer.set(pin.server, [...(byServer.get(pin.server) ?? []), pin.upstreamName]);
        for (const [server, names] of byServer) {
          found.push(...(await tx.all<Row>(`SELECT * FROM tool_definitions WHERE server = ? AND upstream_name IN (${marks(names.length)})`, [server, ...names])));
        }
        return found;
      });
      out.push(...rows.map(fromRow));
    }
    return out;
  }

  async markChanged(server: string, upstreamName: string, pendingDigest: string, pendingDefinition: string): Promise<DefinitionPin | undefined> {
    // The time of a change is when this pending definition was first seen: marking it again keeps it.
    await this.sql.run(
      `UPDATE tool_definitions SET status = 'changed', pending_digest = ?, pending_definition = ?, changed_at = ?
       WHERE server = ? AND upstream_name = ? AND (pending_digest IS NULL OR pending_digest <> ?)`,
      [pendingDigest, pendingDefinition, this.now(), server, upstreamName, pendingDigest],
    );
    return this.get(server, upstreamName);
  }

  async accept(server: string, upstreamName: string, digest: string, by: string, proof?: string, at = this.now()): Promise<boolean> {
    const done = await this.sql.run(
      `UPDATE tool_definitions SET prior_digest = digest, prior_definition = definition, digest = pending_digest, definition = pending_definition,
       status = 'accepted', pending_digest = NULL, pending_definition = NULL, decided_at = ?, decided_by = ?, proof = ?, voided = NULL
       WHERE server = ? AND upstream_name = ? AND pending_digest = ?`,
      [at, by, proof ?? null, server, upstreamName, digest],
    );
    if (done === 1) await this.events.emit('definition', { server, upstreamName });
    return done === 1;
  }

  async reopen(server: string, upstreamName: string, digest: string, why: string): Promise<DefinitionPin | undefined> {
    // The acceptance is gone with it (by, when, signature): what stays pinned is the prior definition, as first seen or
    // accepted. A change already pending since stays the pending one (it is what the upstream lists).
    const done = await this.sql.run(
      `UPDATE tool_definitions SET pending_digest = COALESCE(pending_digest, digest), pending_definition = COALESCE(pending_definition, definition),
       digest = COALESCE(prior_digest, 'none'), definition = COALESCE(prior_definition, ''), status = 'changed', changed_at = ?, voided = ?,
       prior_digest = NULL, prior_definition = NULL, decided_at = NULL, decided_by = NULL, proof = NULL
       WHERE server = ? AND upstream_name = ? AND digest = ? AND decided_by IS NOT NULL`,
      [this.now(), why, server, upstreamName, digest],
    );
    if (done === 1) await this.events.emit('definition', { server, upstreamName });
    return this.get(server, upstreamName);
  }

  async clearChange(server: string, upstreamName: string): Promise<void> {
    await this.sql.run(
      `UPDATE tool_definitions SET status = 'accepted', pending_digest = NULL, pending_definition = NULL WHERE server = ? AND upstream_name = ?`,
      [server, upstreamName],
    );
  }
}

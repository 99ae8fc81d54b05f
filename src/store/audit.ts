/**
 * Audit log rows: one per tool call that reached the gateway, whatever became of it. A
 * call that is forwarded is begun (`running`) before the upstream is called and completed
 * after, so a crash in between leaves a visible row. Values arrive redacted and bounded
 * (guards/audit.ts); this module only stores and reads them.
 */
import type { Sql } from './sql.js';
import type { AuditCompletion, AuditEntry, AuditPart, AuditRecord, Decision, Outcome } from './types.js';

interface Row {
  id: number;
  time: number;
  session_id: string;
  persona: string | null;
  user_id: string | null;
  tool: string;
  requested_name: string;
  args_json: string;
  decision: Decision;
  decisions: string;
  notes_json: string;
  upstream_ms: number | null;
  outcome: Outcome;
  detail: string | null;
}

function fromRow(r: Row): AuditRecord {
  const rec: AuditRecord = {
    id: Number(r.id),
    time: Number(r.time),
    sessionId: r.session_id,
    tool: r.tool,
    requestedName: r.requested_name,
    args: JSON.parse(r.args_json) as Record<string, unknown>,
    decision: r.decision,
    decisions: r.decisions === '' ? [] : (r.decisions.split(',') as Decision[]),
    notes: JSON.parse(r.notes_json) as string[],
    outcome: r.outcome,
  };
  if (r.persona !== null) rec.persona = r.persona;
  if (r.user_id !== null) rec.userId = r.user_id;
  if (r.upstream_ms !== null) rec.upstreamMs = r.upstream_ms;
  if (r.detail !== null) rec.detail = r.detail;
  return rec;
}

const INSERT = `INSERT INTO audit (time, session_id, persona, user_id, tool, requested_name, args_json, decision, decisions,
  notes_json, upstream_ms, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;

export class SqlAudit implements AuditPart {
  constructor(private readonly sql: Sql) {}

  private async insert(e: AuditEntry): Promise<number> {
    const row = await this.sql.get<{ id: number }>(INSERT, [
      e.time, e.sessionId, e.persona ?? null, e.userId ?? null, e.tool, e.requestedName, JSON.stringify(e.args), e.decision,
      e.decisions.join(','), JSON.stringify(e.notes), e.upstreamMs ?? null, e.outcome, e.detail ?? null,
    ]);
    return Number(row!.id);
  }

  begin(entry: Omit<AuditEntry, 'outcome'>): Promise<number> {
    return this.insert({ ...entry, outcome: 'running' });
  }

  async complete(id: number, c: AuditCompletion): Promise<boolean> {
    const changed = await this.sql.run(
      `UPDATE audit SET outcome = ?, decision = ?, decisions = ?, notes_json = ?, upstream_ms = ?, detail = ? WHERE id = ? AND outcome = 'running'`,
      [c.outcome, c.decision, c.decisions.join(','), JSON.stringify(c.notes), c.upstreamMs ?? null, c.detail ?? null, id],
    );
    return changed === 1;
  }

  record(entry: AuditEntry): Promise<number> {
    return this.insert(entry);
  }

  async tail(n: number): Promise<AuditRecord[]> {
    const rows = await this.sql.all<Row>('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) AS last ORDER BY id', [n]);
    return rows.map(fromRow);
  }
}

/**
 * Audit log rows: one per tool call that reached the gateway, whatever became of it. A
 * call that is forwarded is begun (`running`) before the upstream is called and completed
 * after, so a crash in between leaves a visible row. Values arrive redacted and bounded
 * (guards/audit.ts); this module only stores and reads them.
 *
 * `begin` and `record` are committed when their promise resolves. Completions are written
 * behind: those of one event-loop turn together, in one transaction, once the turn is over
 * (`setImmediate`), so a call's answer never waits for its row's second write. `tail` and
 * `flush` (which the store's `close` calls) write the waiting ones first; another process
 * may see a finished call `running` until the end of that turn.
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

const COMPLETE = `UPDATE audit SET outcome = ?, decision = ?, decisions = ?, notes_json = ?, upstream_ms = ?, detail = ? WHERE id = ? AND outcome = 'running'`;

/** A completion waiting for the end of the turn, and its caller's promise. */
interface Waiting {
  id: number;
  c: AuditCompletion;
  done: (found: boolean) => void;
  failed: (err: unknown) => void;
}

async function completeRow(sql: Sql, { id, c }: Waiting): Promise<boolean> {
  const params = [c.outcome, c.decision, c.decisions.join(','), JSON.stringify(c.notes), c.upstreamMs ?? null, c.detail ?? null, id];
  return (await sql.run(COMPLETE, params)) === 1;
}

export class SqlAudit implements AuditPart {
  private waiting: Waiting[] = [];
  private turnEnd: NodeJS.Immediate | undefined;
  /** The batches handed to the database so far, in order; never rejects (each caller's promise does). */
  private written: Promise<void> = Promise.resolve();

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

  /** Queues the completion of row `id` for the end of this turn (see the module comment); resolves once written. */
  complete(id: number, c: AuditCompletion): Promise<boolean> {
    return new Promise((done, failed) => {
      this.waiting.push({ id, c, done, failed });
      this.turnEnd ??= setImmediate(() => void this.flush());
    });
  }

  /** Writes the waiting completions now; resolves once they and every earlier batch are written (or failed: their callers are told). */
  flush(): Promise<void> {
    clearImmediate(this.turnEnd);
    this.turnEnd = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length > 0) this.written = this.written.then(() => this.write(batch));
    return this.written;
  }

  private async write(batch: Waiting[]): Promise<void> {
    try {
      const found =
        batch.length === 1
          ? [await completeRow(this.sql, batch[0]!)]
          : await this.sql.tx(async (tx) => {
              const rows: boolean[] = [];
              for (const w of batch) rows.push(await completeRow(tx, w));
              return rows;
            });
      batch.forEach((w, i) => w.done(found[i]!));
    } catch (err) {
      for (const w of batch) w.failed(err);
    }
  }

  record(entry: AuditEntry): Promise<number> {
    return this.insert(entry);
  }

  async tail(n: number): Promise<AuditRecord[]> {
    await this.flush();
    const rows = await this.sql.all<Row>('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) AS last ORDER BY id', [n]);
    return rows.map(fromRow);
  }
}

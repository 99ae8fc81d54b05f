/**
 * Audit log rows: one per tool call that reached the gateway, whatever became of it. A
 * call that is forwarded is begun (`running`) before the upstream is called and completed
 * after, so a crash in between leaves a visible row. Values arrive redacted and bounded
 * (guards/audit.ts); this module only stores and reads them.
 *
 * `begin` and `record` are committed when their promise resolves. Completions are written
 * behind, so a call's answer never waits for its row's second write: they wait for the
 * next `begin` and are committed in its transaction (one commit where there were two), or
 * on their own after COMPLETION_LINGER_MS when no call comes. `tail` and `flush` (which the
 * store's `close` calls) write the waiting ones first; another process may see a finished
 * call `running` for up to COMPLETION_LINGER_MS.
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

/**
 * Longest a completion waits to ride with the next `begin`, in ms, before it is written on
 * its own: a finished call reads `running` for another process at most this long.
 */
export const COMPLETION_LINGER_MS = 20;

/** A completion waiting to be written, and its caller's promise. */
interface Waiting {
  id: number;
  c: AuditCompletion;
  done: (found: boolean) => void;
  failed: (err: unknown) => void;
}

async function insertRow(sql: Sql, e: AuditEntry): Promise<number> {
  const row = await sql.get<{ id: number }>(INSERT, [
    e.time, e.sessionId, e.persona ?? null, e.userId ?? null, e.tool, e.requestedName, JSON.stringify(e.args), e.decision,
    e.decisions.join(','), JSON.stringify(e.notes), e.upstreamMs ?? null, e.outcome, e.detail ?? null,
  ]);
  return Number(row!.id);
}

/** Completes each row of `batch`, in order; whether each was found running. */
async function completeRows(sql: Sql, batch: Waiting[]): Promise<boolean[]> {
  const found: boolean[] = [];
  for (const { id, c } of batch) {
    const params = [c.outcome, c.decision, c.decisions.join(','), JSON.stringify(c.notes), c.upstreamMs ?? null, c.detail ?? null, id];
    found.push((await sql.run(COMPLETE, params)) === 1);
  }
  return found;
}

export class SqlAudit implements AuditPart {
  private waiting: Waiting[] = [];
  private linger: NodeJS.Timeout | undefined;
  /** Every write of completions so far; never rejects (each caller's promise does). */
  private written: Promise<void> = Promise.resolve();

  constructor(private readonly sql: Sql) {}

  /** The waiting completions, taken (their linger timer stopped). */
  private take(): Waiting[] {
    clearTimeout(this.linger);
    this.linger = undefined;
    const batch = this.waiting;
    this.waiting = [];
    return batch;
  }

  /** Tells each caller of `batch` what `found` says once written; `flush` waits for it. */
  private tell(batch: Waiting[], found: Promise<boolean[]>): void {
    const told = found.then(
      (rows) => batch.forEach((w, i) => w.done(rows[i]!)),
      (err: unknown) => batch.forEach((w) => w.failed(err)),
    );
    this.written = Promise.all([this.written, told]).then(() => undefined);
  }

  /** Commits the `running` row, and in the same transaction the completions waiting (see the module comment). */
  begin(entry: Omit<AuditEntry, 'outcome'>): Promise<number> {
    const batch = this.take();
    const row: AuditEntry = { ...entry, outcome: 'running' };
    if (batch.length === 0) return insertRow(this.sql, row);
    const both = this.sql.tx(async (tx) => ({ found: await completeRows(tx, batch), id: await insertRow(tx, row) }));
    this.tell(batch, both.then((b) => b.found));
    // An earlier call's completion that cannot be written (its callers are told) must not refuse this call: its row alone.
    return both.then((b) => b.id, () => insertRow(this.sql, row));
  }

  /** Queues the completion of row `id` (see the module comment); resolves once written. */
  complete(id: number, c: AuditCompletion): Promise<boolean> {
    return new Promise((done, failed) => {
      this.waiting.push({ id, c, done, failed });
      this.linger ??= setTimeout(() => void this.flush(), COMPLETION_LINGER_MS);
    });
  }

  /** Writes the waiting completions now; resolves once they and every earlier one are written (or failed: their callers are told). */
  flush(): Promise<void> {
    const batch = this.take();
    if (batch.length === 1) this.tell(batch, completeRows(this.sql, batch));
    else if (batch.length > 1) this.tell(batch, this.sql.tx((tx) => completeRows(tx, batch)));
    return this.written;
  }

  record(entry: AuditEntry): Promise<number> {
    return insertRow(this.sql, entry);
  }

  async tail(n: number): Promise<AuditRecord[]> {
    await this.flush();
    const rows = await this.sql.all<Row>('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) AS last ORDER BY id', [n]);
    return rows.map(fromRow);
  }
}

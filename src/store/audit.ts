/**
 * Audit log: one row per tool call that reached the gateway, whatever became of it.
 * The audit guard decides what goes in; this module redacts and bounds the arguments on the
 * way in (so no writer can forget to), clips names and notes, and stores and reads the rows.
 */
import { boundValue, clipName, DEFAULT_MAX_VALUE_BYTES } from '../guards/bound.js';
import { redact } from '../guards/redact.js';
import type { Decision } from '../guards/types.js';
import type { Db } from './db.js';

/** What happened to the call: it ran and succeeded, ran and failed (tool error or upstream failure), or never ran. */
export type Outcome = 'ok' | 'error' | 'not_run';

export interface AuditEntry {
  /** Epoch ms when the call arrived. */
  time: number;
  sessionId: string;
  /** Absent when no personas are configured. */
  persona?: string;
  userId?: string;
  /** Resolved tool name, or the requested one when it resolved to nothing. */
  tool: string;
  /** Name as the host sent it (differs from `tool` after a correction). */
  requestedName: string;
  /** Arguments as forwarded (identity injected); redacted when recorded. */
  args: Record<string, unknown>;
  /** The final decision. */
  decision: Decision;
  /** Every decision taken on the way, in order (`corrected`, `approved`). */
  decisions: Decision[];
  notes: string[];
  /** Upstream latency in ms; absent when the call was not forwarded. */
  upstreamMs?: number;
  outcome: Outcome;
  /** Error text of a failed call, or the refusal the host got; at most 500 characters. */
  detail?: string;
}

export interface AuditRecord extends AuditEntry {
  id: number;
}

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

export class AuditLog {
  private readonly insert;
  private readonly tailStmt;

  /**
   * @param redactFields field names whose values never reach the log (config
   *   `audit.redact`; matching rules in guards/redact.ts). Default: none.
   * @param maxValueBytes longest argument value stored (config `audit.max_value_bytes`);
   *   longer ones are cut with a marker (guards/bound.ts). Default 4096.
   */
  constructor(
    db: Db,
    private readonly redactFields: string[] = [],
    private readonly maxValueBytes: number = DEFAULT_MAX_VALUE_BYTES,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS audit (
      id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, session_id TEXT NOT NULL,
      persona TEXT, user_id TEXT, tool TEXT NOT NULL, requested_name TEXT NOT NULL,
      args_json TEXT NOT NULL, decision TEXT NOT NULL, decisions TEXT NOT NULL, notes_json TEXT NOT NULL,
      upstream_ms REAL, outcome TEXT NOT NULL, detail TEXT)`);
    this.insert = db.prepare(
      `INSERT INTO audit (time, session_id, persona, user_id, tool, requested_name, args_json, decision, decisions,
       notes_json, upstream_ms, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.tailStmt = db.prepare<[number], Row>('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id');
  }

  record(e: AuditEntry): number {
    return Number(
      this.insert.run(
        e.time, e.sessionId, e.persona ?? null, e.userId ?? null, clipName(e.tool), clipName(e.requestedName),
        JSON.stringify(boundValue(redact(e.args, this.redactFields), this.maxValueBytes)), e.decision,
        e.decisions.join(','), JSON.stringify(boundValue(e.notes, this.maxValueBytes)), e.upstreamMs ?? null, e.outcome,
        e.detail === undefined ? null : e.detail.slice(0, this.maxValueBytes),
      ).lastInsertRowid,
    );
  }

  /** The last `n` records, oldest first. */
  tail(n: number): AuditRecord[] {
    return this.tailStmt.all(n).map((r) => {
      const rec: AuditRecord = {
        id: r.id,
        time: r.time,
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
    });
  }
}

/**
 * Pending approvals: calls of action tools waiting for a person's decision, for hosts
 * without MCP elicitation. A request is keyed by an opaque `key` (the confirmation guard
 * derives it from who calls, the tool and the canonical arguments); this module keeps
 * the states and their clock, nothing else.
 *
 * States: pending → approved → used, pending → denied, pending|approved → expired.
 * A pending request expires `ttlMs` after it is made; an approval can be used once, within
 * `ttlMs` after it was given; a denial blocks the same call for `ttlMs` after it was given.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'used' | 'expired';

export interface Approval {
  /** Short random id a person types: `tool-curator approvals approve <id>`. */
  id: string;
  key: string;
  sessionId: string;
  persona?: string;
  userId?: string;
  /** Exposed tool name. */
  tool: string;
  /** The name the model asked for, when the name guard corrected it to `tool`. */
  requestedName?: string;
  /** Arguments as shown to the person deciding (already redacted by the caller). */
  args: Record<string, unknown>;
  status: ApprovalStatus;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms after which the request (or the approval, or the denial) no longer counts. */
  expiresAt: number;
  decidedAt?: number;
  /** Who decided: `cli`, `web`, ... */
  decidedBy?: string;
  /** The decider's signature (guards/approver.ts); the gateway honours only approvals whose signature verifies. */
  proof?: string;
  usedAt?: number;
}

export interface NewApproval extends Pick<Approval, 'key' | 'sessionId' | 'persona' | 'userId' | 'tool' | 'requestedName' | 'args'> {
  /** How long the request, and later the approval, stays valid, in ms. */
  ttlMs: number;
}

/** A decision that cannot be taken: unknown id, already decided, expired. The message says which. */
export class ApprovalError extends Error {}

interface Row {
  id: string;
  key: string;
  session_id: string;
  persona: string | null;
  user_id: string | null;
  tool: string;
  args_json: string;
  status: ApprovalStatus;
  ttl_ms: number;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  used_at: number | null;
  requested_name: string | null;
  proof: string | null;
}

function fromRow(r: Row): Approval {
  const a: Approval = {
    id: r.id,
    key: r.key,
    sessionId: r.session_id,
    tool: r.tool,
    args: JSON.parse(r.args_json) as Record<string, unknown>,
    status: r.status,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
  if (r.persona !== null) a.persona = r.persona;
  if (r.user_id !== null) a.userId = r.user_id;
  if (r.decided_at !== null) a.decidedAt = r.decided_at;
  if (r.decided_by !== null) a.decidedBy = r.decided_by;
  if (r.used_at !== null) a.usedAt = r.used_at;
  if (r.requested_name !== null) a.requestedName = r.requested_name;
  if (r.proof !== null) a.proof = r.proof;
  return a;
}

/** Ids avoid look-alike characters (0/O, 1/l/I) since people read and type them. */
const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

function newId(): string {
  return Array.from(randomBytes(8), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

export interface ApprovalStoreOptions {
  /** Clock in epoch ms; tests inject one. Default `Date.now`. */
  now?: () => number;
}

export class ApprovalStore {
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    options: ApprovalStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    db.exec(`CREATE TABLE IF NOT EXISTS approvals (
      id TEXT PRIMARY KEY, key TEXT NOT NULL, session_id TEXT NOT NULL, persona TEXT,
      user_id TEXT, tool TEXT NOT NULL, args_json TEXT NOT NULL, status TEXT NOT NULL,
      ttl_ms INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
      decided_at INTEGER, decided_by TEXT, used_at INTEGER, requested_name TEXT, proof TEXT);
      CREATE INDEX IF NOT EXISTS approvals_key ON approvals (key, created_at)`);
    // Stores made before these columns existed get them; their old rows have no proof, so no old approval counts.
    const columns = new Set(db.prepare<[], { name: string }>('PRAGMA table_info(approvals)').all().map((c) => c.name));
    for (const c of ['requested_name', 'proof']) if (!columns.has(c)) db.exec(`ALTER TABLE approvals ADD COLUMN ${c} TEXT`);
  }

  /** Marks pending requests and unused approvals past their time as expired. */
  private expireDue(): void {
    this.db
      .prepare(`UPDATE approvals SET status = 'expired' WHERE status IN ('pending', 'approved') AND expires_at <= ?`)
      .run(this.now());
  }

  /** Records a new pending request. */
  request(input: NewApproval): Approval {
    const now = this.now();
    const id = newId();
    this.db
      .prepare(
        `INSERT INTO approvals (id, key, session_id, persona, user_id, tool, requested_name, args_json, status, ttl_ms, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      )
      .run(
        id, input.key, input.sessionId, input.persona ?? null, input.userId ?? null, input.tool, input.requestedName ?? null,
        JSON.stringify(input.args), input.ttlMs, now, now + input.ttlMs,
      );
    return this.get(id)!;
  }

  /** The request with this id, or `undefined` if there is none. */
  get(id: string): Approval | undefined {
    this.expireDue();
    const row = this.db.prepare<[string], Row>('SELECT * FROM approvals WHERE id = ?').get(id);
    return row && fromRow(row);
  }

  /**
   * The newest request for `key` that still counts: pending, approved but unused, or
   * denied, and not past its time. `undefined` when the call has no live request (never
   * asked, used, or expired), i.e. when a new request is due.
   */
  live(key: string): Approval | undefined {
    const row = this.db
      .prepare<[string, number], Row>(
        `SELECT * FROM approvals WHERE key = ? AND status IN ('pending', 'approved', 'denied') AND expires_at > ?
         ORDER BY created_at DESC, rowid DESC LIMIT 1`,
      )
      .get(key, this.now());
    return row && fromRow(row);
  }

  /**
   * A person's decision on a pending request. An approval is valid for the request's TTL
   * from now, so a person deciding late does not leave the model seconds to retry.
   * @param proof the decider's signature (guards/approver.ts); without a valid one the gateway ignores an approval.
   * @throws ApprovalError when the id is unknown, the request was already decided, or it expired.
   */
  decide(id: string, decision: 'approved' | 'denied', by: string, proof?: string): Approval {
    const now = this.now();
    const done = this.db
      .prepare(
        `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, proof = ?, expires_at = ? + ttl_ms
         WHERE id = ? AND status = 'pending' AND expires_at > ?`,
      )
      .run(decision, now, by, proof ?? null, now, id, now);
    const a = this.get(id);
    if (done.changes === 1) return a!;
    if (!a) throw new ApprovalError(`no approval request with id ${id}; run \`tool-curator approvals list\` to see the pending ones`);
    if (a.status === 'expired') {
      throw new ApprovalError(`approval request ${id} expired at ${new Date(a.expiresAt).toISOString()}; the model has to call again to ask anew`);
    }
    throw new ApprovalError(`approval request ${id} is already ${a.status}`);
  }

  /**
   * Uses an approval: true exactly once per approved, unexpired request, also when
   * several gateways race for it (the update is one SQLite statement).
   */
  consume(id: string): boolean {
    const now = this.now();
    return (
      this.db
        .prepare(`UPDATE approvals SET status = 'used', used_at = ? WHERE id = ? AND status = 'approved' AND expires_at > ?`)
        .run(now, id, now).changes === 1
    );
  }

  /** Pending requests, oldest first; or, with `all`, the newest `limit` requests of any status, newest first. */
  list(options: { all?: boolean; limit?: number } = {}): Approval[] {
    this.expireDue();
    const rows = options.all
      ? this.db.prepare<[number], Row>('SELECT * FROM approvals ORDER BY created_at DESC, rowid DESC LIMIT ?').all(options.limit ?? 50)
      : this.db.prepare<[], Row>(`SELECT * FROM approvals WHERE status = 'pending' ORDER BY created_at, rowid`).all();
    return rows.map(fromRow);
  }

  /** The current time of the store's clock, in epoch ms. */
  clock(): number {
    return this.now();
  }
}

/**
 * Pending approvals: calls of action tools waiting for a person's decision. A request is
 * keyed by an opaque `key` (the confirmation guard derives it from who calls, the tool
 * and the canonical arguments) and may carry the `statement` a person signs; this module
 * keeps the states and their clock, nothing else.
 *
 * A use is a row of its own in `approval_uses`, inserted once or not at all and read back:
 * setting an approval's status back to `approved` in the table does not make it usable
 * again, and a row the store drops as it is written is no use. Each use is announced on
 * the `approval` event (`onUse`), so the replicas running then remember it whatever the
 * table says later.
 */
import { randomBytes } from 'node:crypto';
import { ApprovalError } from './errors.js';
import type { Sql } from './sql.js';
import type { Approval, ApprovalsPart, ApprovalStatus, EventsPart, NewApproval } from './types.js';

interface Row {
  id: string;
  key: string;
  session_id: string;
  persona: string | null;
  user_id: string | null;
  tool: string;
  args_json: string;
  status: ApprovalStatus;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  requested_name: string | null;
  proof: string | null;
  statement: string | null;
  /** From approval_uses: set iff the approval was used. */
  use_at: number | null;
}

function fromRow(r: Row): Approval {
  const a: Approval = {
    id: r.id,
    key: r.key,
    sessionId: r.session_id,
    tool: r.tool,
    args: JSON.parse(r.args_json) as Record<string, unknown>,
    status: r.use_at !== null ? 'used' : r.status,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
  if (r.persona !== null) a.persona = r.persona;
  if (r.user_id !== null) a.userId = r.user_id;
  if (r.decided_at !== null) a.decidedAt = Number(r.decided_at);
  if (r.decided_by !== null) a.decidedBy = r.decided_by;
  if (r.use_at !== null) a.usedAt = Number(r.use_at);
  if (r.requested_name !== null) a.requestedName = r.requested_name;
  if (r.proof !== null) a.proof = r.proof;
  if (r.statement !== null) a.statement = r.statement;
  return a;
}

const SELECT = `SELECT a.id, a.key, a.session_id, a.persona, a.user_id, a.tool, a.args_json, a.status, a.created_at, a.expires_at,
  a.decided_at, a.decided_by, a.requested_name, a.proof, a.statement, u.used_at AS use_at
  FROM approvals a LEFT JOIN approval_uses u ON u.id = a.id`;

/** Ids avoid look-alike characters (0/O, 1/l/I) since people read and type them. */
export const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** 8 random characters of ID_ALPHABET: a request's id when its maker gives none, or the random part of one it makes. */
export function newId(): string {
  return Array.from(randomBytes(8), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

/** How often a waiting call re-reads its request besides the `approval` event (a missed event costs at most this). */
const WAIT_REREAD_MS = 2_000;

export class SqlApprovals implements ApprovalsPart {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventsPart,
    private readonly now: () => number,
  ) {}

  /** Marks pending requests and unused approvals past their time as expired. */
  private async expireDue(): Promise<void> {
    await this.sql.run(`UPDATE approvals SET status = 'expired' WHERE status IN ('pending', 'approved') AND expires_at <= ?`, [this.now()]);
  }

  async request(input: NewApproval): Promise<Approval> {
    const now = this.now();
    const id = input.id ?? newId();
    await this.sql.run(
      `INSERT INTO approvals (id, key, session_id, persona, user_id, tool, requested_name, args_json, statement, status, ttl_ms, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      [
        id, input.key, input.sessionId, input.persona ?? null, input.userId ?? null, input.tool, input.requestedName ?? null,
        JSON.stringify(input.args), input.statement ?? null, input.ttlMs, now, now + input.ttlMs,
      ],
    );
    await this.events.emit('approval', { id, status: 'pending' });
    return (await this.get(id))!;
  }

  async get(id: string): Promise<Approval | undefined> {
    await this.expireDue();
    const row = await this.sql.get<Row>(`${SELECT} WHERE a.id = ?`, [id]);
    return row && fromRow(row);
  }

  async live(key: string): Promise<Approval | undefined> {
    const row = await this.sql.get<Row>(
      `${SELECT} WHERE a.key = ? AND a.status IN ('pending', 'approved', 'denied') AND a.expires_at > ? AND u.id IS NULL
       ORDER BY a.created_at DESC, a.rowid DESC LIMIT 1`,
      [key, this.now()],
    );
    return row && fromRow(row);
  }

  async decide(id: string, decision: 'approved' | 'denied', by: string, proof?: string): Promise<Approval> {
    const now = this.now();
    const done = await this.sql.run(
      `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, proof = ?, expires_at = ? + ttl_ms
       WHERE id = ? AND status = 'pending' AND expires_at > ?`,
      [decision, now, by, proof ?? null, now, id, now],
    );
    if (done === 1) await this.events.emit('approval', { id, status: decision });
    const a = await this.get(id);
    if (done === 1) return a!;
    if (!a) throw new ApprovalError(`no approval request with id ${id}; run \`tool-curator approvals list\` to see the pending ones`);
    if (a.status === 'expired') {
      throw new ApprovalError(`approval request ${id} expired at ${new Date(a.expiresAt).toISOString()}; the model has to call again to ask anew`);
    }
    throw new ApprovalError(`approval request ${id} is already ${a.status}`);
  }

  async consume(id: string): Promise<boolean> {
    const now = this.now();
    // One statement: the use row exists after it iff this call (or an earlier one) inserted it.
    const used = await this.sql.run(
      `INSERT INTO approval_uses (id, used_at) SELECT id, CAST(? AS BIGINT) FROM approvals WHERE id = ? AND status = 'approved' AND expires_at > ?
       ON CONFLICT (id) DO NOTHING`,
      [now, id, now],
    );
    if (used !== 1) return false;
    // Read back: a store that drops the row as it is written (a trigger) would let every
    // replica insert it anew, so a use the store did not keep is no use.
    if (!(await this.sql.get(`SELECT id FROM approval_uses WHERE id = ?`, [id]))) return false;
    await this.sql.run(`UPDATE approvals SET status = 'used', used_at = ? WHERE id = ?`, [now, id]);
    await this.events.emit('approval', { id, status: 'used' });
    return true;
  }

  onUse(listener: (id: string) => void): () => void {
    return this.events.on('approval', (p) => {
      if (p.status === 'used' && typeof p.id === 'string') listener(p.id);
    });
  }

  async list(options: { all?: boolean; limit?: number } = {}): Promise<Approval[]> {
    await this.expireDue();
    const rows = options.all
      ? await this.sql.all<Row>(`${SELECT} ORDER BY a.created_at DESC, a.rowid DESC LIMIT ?`, [options.limit ?? 50])
      : await this.sql.all<Row>(`${SELECT} WHERE a.status = 'pending' ORDER BY a.created_at, a.rowid`);
    return rows.map(fromRow);
  }

  wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<Approval | undefined> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let reading = false;
      const finish = (result: Approval | undefined, err?: unknown) => {
        if (settled) return;
        settled = true;
        off();
        clearInterval(reread);
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        if (err) reject(err);
        else resolve(result);
      };
      const check = async (final = false) => {
        if (settled || (reading && !final)) return;
        reading = true;
        try {
          const a = await this.get(id);
          if (final || !a || a.status !== 'pending') finish(a);
        } catch (err) {
          // A failed re-read waits for the next one; only the last read's failure is the caller's.
          if (final) finish(undefined, err);
        } finally {
          reading = false;
        }
      };
      const offDecided = this.events.on('approval', (p) => {
        if (p.id === id) void check();
      });
      const offResync = this.events.on('resync', () => void check());
      const off = () => {
        offDecided();
        offResync();
      };
      const reread = setInterval(() => void check(), WAIT_REREAD_MS);
      const timer = setTimeout(() => void check(true), timeoutMs);
      const aborted = () => void check(true);
      signal?.addEventListener('abort', aborted, { once: true });
      void check();
    });
  }

  clock(): number {
    return this.now();
  }
}

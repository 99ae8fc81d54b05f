/**
 * `tool-curator approvals …` and `tool-curator audit …`: a person's side of the
 * confirmation guard and the audit log. They print to stdout (command output, not
 * protocol) and return the process exit code.
 */
import { parseArgs } from 'node:util';
import { ApprovalError } from '../store/errors.js';
import type { Approval, Store } from '../store/types.js';
import { ApproverKeyError, cliProof, createApproverKey, publicKeyPath, readApproverKey } from './approver.js';

/** Where a command writes; tests pass their own. Default: process.stdout and process.stderr. */
export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
}

export const stdio: CommandIO = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

export const APPROVALS_USAGE = 'usage: tool-curator approvals list [--all] [--json] | approve ID [--key-file F] | deny ID [--key-file F] | init-key';
export const AUDIT_USAGE = 'usage: tool-curator audit [--tail N] [--json]';

/** Left-aligned columns, two spaces apart; no trailing blanks. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** `90 s` → `1m` (`2m` with `Math.ceil`), `2 h` → `2h`; at least `0m`. */
function duration(ms: number, round: (x: number) => number = Math.floor): string {
  const m = Math.max(0, round(ms / 60_000));
  return m < 60 ? `${m}m` : `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

function compact(value: unknown, max = 100): string {
  const s = JSON.stringify(value);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function approvalRows(list: Approval[], now: number): string[][] {
  return list.map((a) => [
    a.id,
    a.status,
    a.requestedName ? `${a.tool} (asked: ${a.requestedName})` : a.tool,
    a.persona ?? '-',
    a.userId ?? '-',
    duration(now - a.createdAt),
    a.status === 'pending' || a.status === 'approved' ? duration(a.expiresAt - now, Math.ceil) : '-',
    compact(a.args),
  ]);
}

/**
 * `approvals list [--all] [--json]`: pending requests (with `--all`, the latest 50 of
 * any status); `approvals approve ID`, `approvals deny ID`: decide one, signed with the
 * approver key (`--key-file`, default `keyPath`; guards/approver.ts), which only the
 * approving person holds; `approvals init-key`: create that key, once.
 * @param keyPath the configured approver key (`confirmation.approver_key`, or beside the store).
 * @returns 0 on success, 1 when the decision cannot be taken (no key, unknown id, …), 2 on a usage error.
 */
export async function approvalsCommand(args: string[], stores: Pick<Store, 'approvals'>, keyPath: string, io: CommandIO = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, 'key-file': { type: 'string' } },
    allowPositionals: true,
    strict: false,
  });
  const store = stores.approvals;
  const [verb, id] = positionals;
  if (verb === 'list' || verb === undefined) {
    const list = await store.list({ all: values.all === true });
    if (values.json) io.out(`${JSON.stringify(list.map(({ proof: _, ...a }) => a), null, 2)}\n`);
    else if (list.length === 0) io.out(values.all ? 'no approval requests\n' : 'no pending approvals\n');
    else io.out(table(['ID', 'STATUS', 'TOOL', 'PERSONA', 'USER', 'AGE', 'EXPIRES IN', 'ARGUMENTS'], approvalRows(list, store.clock())));
    return 0;
  }
  if (verb === 'init-key') {
    try {
      createApproverKey(keyPath);
    } catch (err) {
      if (!(err instanceof ApproverKeyError)) throw err;
      io.err(`${err.message}\n`);
      return 1;
    }
    io.out(
      `created the approver key ${keyPath} (mode 0600) and ${publicKeyPath(keyPath)}.\n` +
        'Only whoever can read the key can approve: keep it with your own OS user, not the one the agent or its shell runs as ' +
        `(e.g. sudo chown you ${keyPath}).\n`,
    );
    return 0;
  }
  if ((verb === 'approve' || verb === 'deny') && id !== undefined) {
    const decision = verb === 'approve' ? 'approved' : 'denied';
    try {
      const key = readApproverKey(typeof values['key-file'] === 'string' ? values['key-file'] : keyPath, publicKeyPath(keyPath));
      const request = await store.get(id);
      const a = await store.decide(id, decision, 'cli', request && cliProof(key, request, decision));
      const who = [a.persona, a.userId].filter(Boolean).join(' ') || `session ${a.sessionId}`;
      io.out(
        verb === 'approve'
          ? `approved ${a.id}: ${a.tool} for ${who}; the next identical call runs once (within ${duration(a.expiresAt - a.decidedAt!)})\n`
          : `denied ${a.id}: ${a.tool} for ${who}; it will not run\n`,
      );
      return 0;
    } catch (err) {
      if (!(err instanceof ApprovalError) && !(err instanceof ApproverKeyError)) throw err;
      io.err(`${err.message}\n`);
      return 1;
    }
  }
  io.err(`${APPROVALS_USAGE}\n`);
  return 2;
}

/**
 * `audit [--tail N] [--json]`: the last N audit records (default 20), oldest first; as a
 * JSON array with `--json`. A call being forwarded (or whose gateway died while it ran)
 * shows outcome `running`. Unknown flags (e.g. the CLI's own `--config`) are ignored.
 * @returns 0, or 2 on a usage error.
 */
export async function auditCommand(args: string[], store: Pick<Store, 'audit'>, io: CommandIO = stdio): Promise<number> {
  const { values } = parseArgs({ args, options: { tail: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: false });
  const n = values.tail === undefined ? 20 : Number(values.tail);
  if (!Number.isInteger(n) || n < 1) {
    io.err(`--tail needs a positive integer, got "${String(values.tail)}"\n${AUDIT_USAGE}\n`);
    return 2;
  }
  const records = await store.audit.tail(n);
  if (values.json) {
    io.out(`${JSON.stringify(records, null, 2)}\n`);
    return 0;
  }
  if (records.length === 0) {
    io.out('no audit records\n');
    return 0;
  }
  const rows = records.map((r) => [
    new Date(r.time).toISOString().replace('T', ' ').slice(0, 19),
    r.persona ?? '-',
    r.userId ?? '-',
    r.tool,
    r.decisions.length > 1 ? r.decisions.join('+') : r.decision,
    r.outcome,
    r.upstreamMs === undefined ? '-' : `${Math.round(r.upstreamMs)}ms`,
    compact(r.args, 80),
    r.notes.join('; '),
  ]);
  io.out(table(['TIME', 'PERSONA', 'USER', 'TOOL', 'DECISION', 'OUTCOME', 'UPSTREAM', 'ARGUMENTS', 'NOTES'], rows));
  return 0;
}

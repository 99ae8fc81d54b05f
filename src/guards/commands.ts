/**
 * `tool-curator approvals …` and `tool-curator audit …`: a person's side of the
 * confirmation guard and the audit log. They print to stdout (command output, not
 * protocol) and return the process exit code.
 */
import { createPublicKey, randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ApprovalError } from '../store/errors.js';
import type { Approval, Store } from '../store/types.js';
import { ApproverKeyError, cliProof, createApproverKey, keyIdOf, publicKeyPath, readApproverKey } from './approver.js';
import { compact, duration, stdio, table, timestamp, type CommandIO } from './commandIO.js';
import { clipName } from './bound.js';
import { asStored, type Standing, type StandingOf } from './standing.js';
import { callerText, review, statementDigest } from './statement.js';

export type { CommandIO } from './commandIO.js';

export const APPROVALS_USAGE =
  'usage: tool-curator approvals list [--all] [--json] | show ID | approve ID [--statement DIGEST] [--key-file F] | deny ID [--key-file F] | init-key';
export const AUDIT_USAGE = 'usage: tool-curator audit [--tail N] [--json]';

/** The digest of a request's statement, whole: what `show` prints and `--statement` takes. */
const fullDigest = (a: Approval): string => (a.statement ? statementDigest(a.statement) : '-');

/**
 * Fewest hex digits a person may give of a digest they were shown (`--statement`,
 * `definitions accept`): 128 bits, so making a statement or definition whose digest
 * starts with the one shown takes about 2^128 digests (8 digits took 2^32, seconds on
 * one core).
 */
export const MIN_DIGEST_HEX = 32;

function approvalRows(list: Approval[], standings: Standing[], now: number): string[][] {
  return list.map((a, i) => {
    const { statement: s, problem } = review(a);
    const status = standings[i]!.status;
    return [
      a.id,
      problem && status !== 'voided' ? `${status} (not approvable)` : status,
      s ? `${s.tool}${a.requestedName ? ` (asked: ${a.requestedName})` : ''}` : a.tool,
      s ? `${s.upstream}.${s.upstreamTool}` : '-',
      s?.persona ?? a.persona ?? '-',
      s?.caller ?? a.userId ?? '-',
      duration(now - a.createdAt),
      a.status === 'pending' || a.status === 'approved' ? duration(a.expiresAt - now, Math.ceil) : '-',
      a.decidedBy ?? '-',
      compact(a.args),
    ];
  });
}

/** Who decided (or accepted a definition), in words: `web:<id>` is an approver signed in with the identity provider on the page. */
export function deciderText(decidedBy: string): string {
  if (decidedBy === 'cli') return 'cli (the approver key)';
  if (decidedBy === 'web') return 'web (the approvals page, http.approvals_token)';
  return decidedBy.startsWith('web:') ? `${decidedBy.slice(4)} (the approvals page, signed in with the identity provider)` : decidedBy;
}

/** `approvals show ID`: every part of the statement a person signs, whether it can be signed, and whether a decision still counts. */
function showText(a: Approval, standing: Standing, now: number): string {
  const { statement: s, problem } = review(a);
  const lines = [`approval ${a.id}: ${standing.status}${a.status === 'pending' ? `, expires in ${duration(a.expiresAt - now, Math.ceil)}` : ''}`];
  if (s) {
    lines.push(
      `  tool          ${s.tool}${a.requestedName ? ` (the model asked for ${a.requestedName})` : ''}`,
      `  upstream      ${s.upstream}, its tool ${s.upstreamTool}`,
      `  caller        ${callerText(s)}`,
      `  arguments     ${JSON.stringify(a.args, null, 2).replace(/\n/g, '\n                ')}`,
      `                (as shown: secrets redacted, long values cut; the signature covers the arguments as sent, ${s.arguments.slice(0, 23)}…)`,
      `  definition    ${s.definition.slice(0, 23)}… (the tool's upstream definition when the call was made)`,
      `  approver key  ${s.approverKey}`,
      `  valid for     ${duration(s.validForMs)} once approved`,
      `  statement     ${fullDigest(a)}`,
    );
  }
  if (a.decidedBy) lines.push(`  decided by    ${deciderText(a.decidedBy)} at ${timestamp(a.decidedAt ?? 0)}`);
  if (standing.voided) lines.push(`  voided        the approval no longer counts: ${standing.voided}`);
  else if (problem) lines.push(`  not approvable: ${problem}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `init-key`: the approver key is made by a person at a terminal, who types back a code
 * shown on screen; from a pipe or an agent's shell it is refused and nothing is made.
 */
async function initKey(keyPath: string, io: CommandIO): Promise<number> {
  if (!io.ask) {
    io.err('approvals init-key makes the key that lets its holder approve calls; it runs only in an interactive terminal, for the person who approves. Nothing was created.\n');
    return 1;
  }
  const code = String(randomInt(100_000, 1_000_000));
  io.out(
    `This creates the approver key ${keyPath}.\n` +
      'Whoever can read it can approve every parked call: create it as the person who approves, with an OS user the agent does not run as.\n' +
      'A running gateway honours it once restarted; calls parked before then need to be made again.\n',
  );
  const typed = (await io.ask(`Type ${code} to create it: `)).trim();
  if (typed !== code) {
    io.err('the code did not match; nothing was created\n');
    return 1;
  }
  try {
    createApproverKey(keyPath);
  } catch (err) {
    if (!(err instanceof ApproverKeyError)) throw err;
    io.err(`${err.message}\n`);
    return 1;
  }
  io.out(`created the approver key ${keyPath} (mode 0600) and ${publicKeyPath(keyPath)}.\n`);
  return 0;
}

/** `approve`/`deny ID`: signs the request's statement with the approver key, after checking it is the statement of the call shown. */
async function decideCommand(store: Store['approvals'], id: string, decision: 'approved' | 'denied', keyFile: string, keyPath: string, bound: string | undefined, io: CommandIO): Promise<number> {
  try {
    const key = readApproverKey(keyFile, publicKeyPath(keyPath));
    const request = await store.get(id);
    if (!request) throw new ApprovalError(`no approval request with id ${id}`);
    const { statement: s, problem } = review(request);
    if (!s || (problem && decision === 'approved')) throw new ApprovalError(`approval request ${id} cannot be approved: ${problem}`);
    // readApproverKey checked that this key's public half is the .pub the gateway reads.
    const keyId = keyIdOf(createPublicKey(key));
    if (s.approverKey !== keyId) {
      throw new ApprovalError(
        `approval request ${id} was made when the gateway honoured ${s.approverKey === 'none' ? 'no approver key' : `approver key ${s.approverKey}`}, and this key is ${keyId}: ` +
          'a gateway honours only the key it read when it started, so this request cannot be decided with it',
      );
    }
    const hex = bound?.replace(/^sha256:/i, '').toLowerCase();
    if (hex !== undefined && !new RegExp(`^[0-9a-f]{${MIN_DIGEST_HEX},64}$`).test(hex)) {
      throw new ApprovalError(
        `--statement takes the statement's digest as \`approvals show ${id}\` prints it: sha256: and its 64 hex digits (at least the first ${MIN_DIGEST_HEX}); got ${clipName(bound!, 80)}; nothing was decided`,
      );
    }
    if (hex !== undefined && !statementDigest(request.statement!).slice('sha256:'.length).startsWith(hex)) {
      throw new ApprovalError(`approval request ${id} is not the statement ${bound} (its statement is ${fullDigest(request)}); nothing was decided`);
    }
    const expiresAt = store.clock() + s.validForMs;
    const a = await store.decide(id, decision, 'cli', cliProof(key, { id, statement: request.statement! }, decision, expiresAt));
    const what = `${s.tool} (upstream ${s.upstream}, its tool ${s.upstreamTool}) for ${callerText(s)}, arguments ${compact(a.args, 200)}`;
    io.out(
      decision === 'approved'
        ? `approved ${a.id}: ${what}; the next identical call runs once (within ${duration(s.validForMs)})\n`
        : `denied ${a.id}: ${what}; it will not run\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof ApprovalError) && !(err instanceof ApproverKeyError)) throw err;
    io.err(`${err.message}\n`);
    return 1;
  }
}

/**
 * `approvals list [--all] [--json]`: pending requests (with `--all`, the latest 50 of any
 * status), each with the parts of its statement; `approvals show ID`: every part a person
 * signs; `approvals approve ID`, `approvals deny ID`: decide one, signed with the approver
 * key (`--key-file`, default `keyPath`; guards/approver.ts), which only the approving
 * person holds — `--statement DIGEST` signs only if the request still is the statement
 * `show` printed; `approvals init-key`: create that key, once, at a terminal. An approval
 * the gateway would no longer honour is listed and shown `voided`, with why (`standing`).
 * @param keyPath the configured approver key (`confirmation.approver_key`, or beside the store).
 * @param standing judges each approval as the gateway would (standing.ts); default: the row's status.
 * @returns 0 on success, 1 when the command is refused (no key, unknown id, not a terminal, …), 2 on a usage error.
 */
export async function approvalsCommand(args: string[], stores: Pick<Store, 'approvals'>, keyPath: string, io: CommandIO = stdio, standing: StandingOf = asStored): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, 'key-file': { type: 'string' }, statement: { type: 'string' } },
    allowPositionals: true,
    strict: false,
  });
  const store = stores.approvals;
  const [verb, id] = positionals;
  if (verb === 'list' || verb === undefined) {
    const list = await store.list({ all: values.all === true });
    const standings = await Promise.all(list.map(standing));
    if (values.json) io.out(`${JSON.stringify(list.map(({ proof: _, ...a }, i) => ({ ...a, ...review(a), ...standings[i] })), null, 2)}\n`);
    else if (list.length === 0) io.out(values.all ? 'no approval requests\n' : 'no pending approvals\n');
    else io.out(table(['ID', 'STATUS', 'TOOL', 'UPSTREAM', 'PERSONA', 'CALLER', 'AGE', 'EXPIRES IN', 'DECIDED BY', 'ARGUMENTS'], approvalRows(list, standings, store.clock())));
    return 0;
  }
  if (verb === 'show' && id !== undefined) {
    const a = await store.get(id);
    if (!a) {
      io.err(`no approval request with id ${id}\n`);
      return 1;
    }
    io.out(showText(a, await standing(a), store.clock()));
    return 0;
  }
  if (verb === 'init-key') return initKey(keyPath, io);
  if ((verb === 'approve' || verb === 'deny') && id !== undefined) {
    const keyFile = typeof values['key-file'] === 'string' ? values['key-file'] : keyPath;
    const bound = typeof values.statement === 'string' ? values.statement : undefined;
    return decideCommand(store, id, verb === 'approve' ? 'approved' : 'denied', keyFile, keyPath, bound, io);
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
    timestamp(r.time),
    r.persona ?? '-',
    r.userId ?? '-',
    r.tool,
    r.decisions.length > 1 ? r.decisions.join('+') : r.decision,
    r.outcome,
    r.upstreamMs === undefined ? '-' : `${Math.round(r.upstreamMs)}ms`,
    compact(r.args, 80),
    r.notes.join('; '),
  ]);
  io.out(table(['TIME', 'PERSONA', 'USER', 'TOOL', 'DECISION', 'OUTCOME', 'UPSTREAM TIME', 'ARGUMENTS', 'NOTES'], rows));
  return 0;
}

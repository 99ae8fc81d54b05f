/**
 * The statement of a call: what a person approves and signs. The confirmation guard
 * writes it when it parks a call, the approvals CLI and page show its parts and sign it,
 * and before the call runs the guard writes it again from the call in hand and checks the
 * signature over that — so what runs is what was signed, whatever the store's rows say.
 *
 * It names who calls (persona, user or session), the tool (exposed name, upstream and the
 * upstream's own name), the SHA-256 digest of the arguments exactly as they will be sent
 * (after identity injection), the digest of the arguments as shown to the person
 * (redacted and bounded, so the stored copy can be checked against it), the digest of the
 * tool's upstream definition, the approver key the gateway honoured when the call was
 * made, and how long an approval stays valid. The request's id (the nonce) and the
 * approval's expiry are signed beside it (approver.ts).
 */
import { createHash } from 'node:crypto';
import type { ToolRecord } from '../catalog/types.js';
import { ID_ALPHABET, newId } from '../store/approvals.js';
import { canonicalJson, digestOf, sha256 } from './canonical.js';
import { definitionDigest } from './definition.js';
import type { SessionIdentity } from './types.js';

export interface Statement {
  v: 2;
  persona: string | null;
  /** `user <id>` within the persona, or `session <id>` for a session without a user id. */
  caller: string;
  tool: string;
  upstream: string;
  upstreamTool: string;
  /** Digest of the canonical arguments as forwarded. */
  arguments: string;
  /** Digest of the canonical arguments as shown (redacted, bounded): the approval row's `args`. */
  shown: string;
  definition: string;
  /** The approver key id (approver.ts keyIdOf) the gateway honoured when the call was made, or `none`. */
  approverKey: string;
  /** How long an approval of this call stays valid once given, in ms. */
  validForMs: number;
}

const TEXT_FIELDS = ['caller', 'tool', 'upstream', 'upstreamTool', 'arguments', 'shown', 'definition', 'approverKey'] as const;

/**
 * Whether `x` is a statement of this version with exactly its fields. Checked here rather
 * than with zod: importing the package loads no zod (library/lazy.ts), and the call path
 * reaches this module.
 */
function isStatement(x: unknown): x is Statement {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  return (
    Object.keys(o).length === TEXT_FIELDS.length + 3 &&
    o.v === 2 &&
    'persona' in o && (o.persona === null || typeof o.persona === 'string') &&
    TEXT_FIELDS.every((k) => typeof o[k] === 'string') &&
    Number.isSafeInteger(o.validForMs) && (o.validForMs as number) > 0
  );
}

/**
 * A user signed in with the identity provider `issuer`, as a statement names them:
 * `signed-in user "ann" (https://idp.example.com/realms/acme)`. Never `user <id>`, the
 * name of a static token's (or stdio's) user: the two are separate namespaces, so a
 * token's `user_id` that equals a signed-in user's id neither runs that user's approved
 * calls nor has them run its own.
 */
export const signedInCaller = (issuer: string, userId: string): string => `signed-in user ${JSON.stringify(userId)} (${issuer})`;

/**
 * Who a call belongs to: the user within a persona (an HTTP reconnect keeps its approvals)
 * — signed in with the identity provider, or named by a static token — else the session.
 */
function callerOf(session: SessionIdentity): string {
  if (session.userId === undefined) return `session ${session.sessionId}`;
  return session.principal ? signedInCaller(session.principal.issuer, session.userId) : `user ${session.userId}`;
}

/**
 * Whether a statement's call is the own call of `approver`, signed in with the identity
 * provider `issuer`: theirs as a signed-in user, or a static token's user with the same id
 * (the gateway cannot tell whether that token is theirs, so it counts as theirs).
 */
export function isOwnCall(s: Statement, approver: string, issuer: string | undefined): boolean {
  return s.caller === `user ${approver}` || (issuer !== undefined && s.caller === signedInCaller(issuer, approver));
}

/**
 * The statement text of a call of `tool` by `session` with `args` (as forwarded) and
 * `shown` (as the person sees them).
 */
export function statementOf(
  session: SessionIdentity,
  tool: ToolRecord,
  args: Record<string, unknown>,
  shown: Record<string, unknown>,
  approverKey: string,
  validForMs: number,
): string {
  const s: Statement = {
    v: 2,
    persona: session.persona ?? null,
    caller: callerOf(session),
    tool: tool.name,
    upstream: tool.server,
    upstreamTool: tool.upstreamName,
    arguments: digestOf(args),
    shown: digestOf(shown),
    definition: definitionDigest(tool),
    approverKey,
    validForMs,
  };
  return canonicalJson(s);
}

/** The parts of a statement text, or undefined when it is none (absent, malformed, another version). */
export function parseStatement(text: string | undefined): Statement | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isStatement(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The digest of a statement text: what the approvals page binds its form to, and a call's approval key. */
export const statementDigest = (text: string): string => sha256(text);

/** Characters of a request id that name its statement: 12 of 31 letters, about 59 bits. */
const ID_CHECK_LENGTH = 12;

/** The characters of a request id after `nonce` that name `statement` (a digest of both, in ID_ALPHABET). */
function idCheck(nonce: string, statement: string): string {
  let n = BigInt(`0x${createHash('sha256').update(`tool-curator request v1\n${nonce}\n${statement}`).digest('hex')}`);
  const base = BigInt(ID_ALPHABET.length);
  let out = '';
  for (let i = 0; i < ID_CHECK_LENGTH; i++, n /= base) out += ID_ALPHABET[Number(n % base)];
  return out;
}

/**
 * The id of a new request for `statement`: 8 random characters (the nonce a person's
 * signature covers) and 12 that name the statement. The id is what a person reads in
 * `approvals list` or `show` and then approves, so a statement written into the row
 * afterwards (with that call's key and arguments) is not the one its id names, and
 * nothing signs it: finding another statement with the same 12 characters takes about
 * 2^59 digests, within the request's minutes.
 */
export function requestIdFor(statement: string): string {
  const nonce = newId();
  return `${nonce}${idCheck(nonce, statement)}`;
}

/** Whether request id `id` was made for `statement` (requestIdFor). */
const idNames = (id: string, statement: string): boolean =>
  id.length > ID_CHECK_LENGTH && id.slice(-ID_CHECK_LENGTH) === idCheck(id.slice(0, -ID_CHECK_LENGTH), statement);

/** Whether `shown` (a stored request's arguments) is what the statement says the person is shown. */
const showsArguments = (s: Statement, shown: unknown): boolean => digestOf(shown) === s.shown;

/**
 * The bytes a decision signs: the statement, the request id (the nonce), the decision, the
 * approval's expiry and, for an approver signed in with the identity provider, their user
 * id and the claims (canonical JSON) the approvers rules read when they decided.
 */
export function signedText(statement: string, id: string, decision: 'approved' | 'denied', expiresAt: number, approver?: string, claims?: string): Buffer {
  const by = approver === undefined ? '' : `\napprover ${JSON.stringify(approver)}`;
  const seen = claims === undefined ? '' : `\nclaims ${claims}`;
  return Buffer.from(`tool-curator approval v2\n${statement}\nid ${id}\ndecision ${decision}\nexpires ${expiresAt}${by}${seen}`);
}

/** A stored request as a person reviews it: its statement's parts, and why it cannot be approved, if it cannot. */
export interface Review {
  statement?: Statement;
  /** Absent when the request can be approved as stored. */
  problem?: string;
}

/**
 * Reviews a stored request: a statement is needed, the stored arguments must be the ones
 * it covers, and the request's id must have been made for it (requestIdFor).
 */
export function review(a: { id: string; statement?: string; args: unknown }): Review {
  const statement = parseStatement(a.statement);
  if (!statement) return { problem: 'it carries no statement of the call (made by an older version, or the store was changed), so no one can approve it; the call has to be made again' };
  if (!showsArguments(statement, a.args)) return { statement, problem: 'its stored arguments are not the ones its statement covers (the store was changed), so no one can approve it' };
  if (!idNames(a.id, a.statement!)) return { statement, problem: 'its id was not made for its statement (made by an older version, or the store was changed), so no one can approve it; the call has to be made again' };
  return { statement };
}

/** `student, user S0001` — who a statement says calls. */
export function callerText(s: Statement): string {
  return s.persona === null ? s.caller : `${s.persona}, ${s.caller}`;
}

/**
 * The approver's credential: what makes an approval a person's and not the model's.
 *
 * A decision taken with the CLI is signed with the approver key, an Ed25519 private key
 * in a file only the approving person's OS user can read (mode 0600), created once by that
 * person at a terminal (`approvals init-key`, commands.ts). The gateway holds only the
 * public half (`<key>.pub`), reads it once when it starts (a key created or replaced
 * later counts after a restart, never for the calls parked before it) and honours an
 * approval only if its signature verifies over the statement of the call in hand
 * (statement.ts), so neither running the CLI without the key nor writing the store
 * directly approves anything. A decision taken on the approvals page is signed with an
 * HMAC of `http.approvals_token`, which the gateway holds and hosts do not; where
 * approvers sign in with the identity provider (`confirmation.approvers`), the approver's
 * user id and the claims the rules read are signed with it, a page decision without them
 * no longer counts, and an approval counts only while the rules in force (this gateway's,
 * when the call is to run) still cover its approver for the call's persona.
 *
 * What it cannot do: an agent whose shell runs as the approver's OS user can read the
 * key like that user can. Keep the key with a user (or a machine) the agent's shell is not.
 */
import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isPostgresUrl } from '../store/location.js';
import type { Approval } from '../store/types.js';
import { canonicalJson } from './canonical.js';
import { isOwnCall, parseStatement, signedText, type Statement } from './statement.js';

export type Decision = 'approved' | 'denied';

/** A missing, unreadable, exposed or mismatched approver key; the message says what is wrong. */
export class ApproverKeyError extends Error {}

/**
 * The approver key's path: `confirmation.approver_key`, else `approver.key` beside the
 * store's file (for a PostgreSQL store, in `.tool-curator/`); relative to the config's folder.
 */
export function approverKeyPath(config: { store: string; confirmation: { approver_key?: string | undefined } }, baseDir: string): string {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  if (config.confirmation.approver_key) return abs(config.confirmation.approver_key);
  return join(isPostgresUrl(config.store) ? abs('.tool-curator') : dirname(abs(config.store)), 'approver.key');
}

/** Public key path for an approver key path. */
export const publicKeyPath = (keyPath: string): string => `${keyPath}.pub`;

/** A public key's id as statements name it: `ed25519:` and the first 16 hex digits of the SHA-256 of its DER form. */
export function keyIdOf(pub: KeyObject): string {
  return `ed25519:${createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16)}`;
}

/**
 * Creates the approver key pair: `keyPath` (private, PEM, mode 0600) and `keyPath.pub`.
 * The CLI calls it only for a person at a terminal (commands.ts `init-key`).
 * @throws ApproverKeyError when the key already exists (it is never overwritten: the
 *   gateway would stop honouring approvals signed with the old one).
 */
export function createApproverKey(keyPath: string): void {
  mkdirSync(dirname(keyPath), { recursive: true });
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  let fd: number;
  try {
    fd = openSync(keyPath, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ApproverKeyError(`an approver key already exists at ${keyPath}; it is never overwritten (delete it and its .pub first to make a new one)`);
    throw err;
  }
  writeSync(fd, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  closeSync(fd);
  chmodSync(keyPath, 0o600); // in case a umask or file system widened it
  const pub = openSync(publicKeyPath(keyPath), 'w', 0o644);
  writeSync(pub, publicKey.export({ type: 'spki', format: 'pem' }) as string);
  closeSync(pub);
}

/**
 * Reads the approver's private key for the CLI, refusing one others may read or one whose
 * public half is not `expectedPub` (the gateway checks signatures against that file; by
 * default the key's own `.pub`).
 * @throws ApproverKeyError naming the path and what is wrong.
 */
export function readApproverKey(keyPath: string, expectedPub: string = publicKeyPath(keyPath)): KeyObject {
  let text: string;
  try {
    if ((statSync(keyPath).mode & 0o077) !== 0 && process.platform !== 'win32') {
      throw new ApproverKeyError(`the approver key ${keyPath} is readable by other users; run \`chmod 600 ${keyPath}\` (only the approving person may hold it)`);
    }
    text = readFileSync(keyPath, 'utf8');
  } catch (err) {
    if (err instanceof ApproverKeyError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    // No command here: an agent with a shell that tries to approve must not learn how to make a key.
    if (code === 'ENOENT') throw new ApproverKeyError(`approving needs the approver key, and there is none at ${keyPath}: only the person who approves holds it (docs/SAFETY.md, "The approver key")`);
    if (code === 'EACCES') throw new ApproverKeyError(`cannot read the approver key ${keyPath}: only the approving person's OS user can approve or deny`);
    throw err;
  }
  const key = createPrivateKey(text);
  const pub = readPublicKey(expectedPub);
  if (!pub) throw new ApproverKeyError(`there is no approver public key at ${expectedPub}, so the gateway could not check an approval; keep the .pub made with the key there`);
  if (!createPublicKey(key).equals(pub)) {
    throw new ApproverKeyError(`the approver key ${keyPath} does not match ${expectedPub}, which the gateway checks approvals against`);
  }
  return key;
}

/** The public key at `path`, or undefined when there is none that parses. */
export function readPublicKey(path: string): KeyObject | undefined {
  try {
    return createPublicKey(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A decision's proof: `<ed25519|hmac|idp>:<expiry, epoch ms>:<signature, base64>`; `idp`
 * is the page's HMAC over a decision that names its approver (the row's `decidedBy`), and
 * for a call's decision it ends with `:<the approver's claims, canonical JSON in base64url>`.
 */
export interface Proof {
  kind: string;
  expiresAt: number;
  signature: string;
  /** The approver's claims as signed (canonical JSON), when the proof records them. */
  claims?: string;
}

export function parseProof(proof: string | undefined): Proof | undefined {
  const m = /^(ed25519|hmac|idp):(\d{1,16}):([A-Za-z0-9+/=]+)(?::([A-Za-z0-9_-]+))?$/.exec(proof ?? '');
  if (!m || (m[4] !== undefined && m[1] !== 'idp')) return undefined;
  return { kind: m[1]!, expiresAt: Number(m[2]), signature: m[3]!, ...(m[4] !== undefined && { claims: Buffer.from(m[4], 'base64url').toString('utf8') }) };
}

/** What a decision covers: the request's id and statement (statement.ts). */
export type Decided = Pick<Approval, 'id'> & { statement: string };

export const hmac = (token: string, data: Buffer): string => createHmac('sha256', token).update(data).digest('base64');

/** The CLI's signature of a decision on `request`, valid until `expiresAt` (epoch ms). */
export function cliProof(key: KeyObject, request: Decided, decision: Decision, expiresAt: number): string {
  return `ed25519:${expiresAt}:${sign(null, signedText(request.statement, request.id, decision, expiresAt), key).toString('base64')}`;
}

/** An approver signed in with the identity provider, as a decision signs them. */
export interface SignedApprover {
  /** Their user id (`http.oauth.user_claim`). */
  id: string;
  /** The claims of their sign-in that the approvers rules read (host/auth/rules.ts approverClaims). */
  claims: Record<string, unknown>;
}

/**
 * The approvals page's signature of a decision on `request`, valid until `expiresAt`; with
 * `approver` (signed in with the identity provider) it signs their id and claims too, and
 * the row must say `decidedBy: approverDecider(approver.id)`.
 */
export function webProof(approvalsToken: string, request: Decided, decision: Decision, expiresAt: number, approver?: SignedApprover): string {
  if (approver === undefined) return `hmac:${expiresAt}:${hmac(approvalsToken, signedText(request.statement, request.id, decision, expiresAt))}`;
  const claims = canonicalJson(approver.claims);
  const signature = hmac(approvalsToken, signedText(request.statement, request.id, decision, expiresAt, approver.id, claims));
  return `idp:${expiresAt}:${signature}:${Buffer.from(claims).toString('base64url')}`;
}

/** The `decidedBy` of a decision taken on the page by a signed-in approver: `web:<user id>`. */
export const approverDecider = (userId: string): string => `web:${userId}`;

/** The approver a `decidedBy` names (`web:<user id>`), or undefined. */
export function approverOf(decidedBy: string | undefined): string | undefined {
  return decidedBy?.startsWith('web:') && decidedBy.length > 4 ? decidedBy.slice(4) : undefined;
}

/** What the gateway asks of page decisions where approvers sign in with the identity provider. */
export interface ApproverPolicy {
  /** `confirmation.approvers` is set: a page decision must name its approver. */
  required: boolean;
  /** `confirmation.approvers_may_approve_own_calls`. */
  mayApproveOwn: boolean;
  /** `http.oauth.issuer`: whose user ids approvers' ids are (statement.ts signedInCaller). */
  issuer?: string;
  /**
   * Whether the approvers rules in force cover an approver with these (recorded) claims
   * for calls of `persona` (undefined: of any persona, as for accepting a definition); set
   * where `confirmation.approvers` is. An approval or acceptance whose approver they do
   * not cover does not count.
   */
  covers?: (claims: Record<string, unknown>, persona?: string | null) => boolean;
}

const NO_APPROVERS: ApproverPolicy = { required: false, mayApproveOwn: false };

export type Verdict = { valid: true; expiresAt: number } | { valid: false; reason: string };

export interface ApproverCheck {
  /** The id of the approver key this gateway honours (keyIdOf), or `none`: statements name it. */
  readonly keyId: string;
  /**
   * Whether `a`'s decision is a person's signature over `statement` — the statement the
   * gateway wrote from the call in hand, not the row's — and still valid at `now` by the
   * expiry it signed (not the row's).
   */
  verify(statement: string, a: Approval, now: number): Verdict;
}

/** Whether two texts are equal, in constant time. */
export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The gateway's check of decisions: CLI decisions against `<keyPath>.pub` as read now (a
 * key created or replaced later counts after a restart), page decisions against
 * `approvalsToken` and, for signed-in approvers, `policy`.
 */
export function approverCheck(keyPath: string, approvalsToken: () => string | undefined, policy: () => ApproverPolicy = () => NO_APPROVERS): ApproverCheck {
  const pub = readPublicKey(publicKeyPath(keyPath));
  return {
    keyId: pub ? keyIdOf(pub) : 'none',
    verify(statement, a, now) {
      if (a.status !== 'approved' && a.status !== 'denied') return { valid: false, reason: `the request is ${a.status}` };
      const proof = parseProof(a.proof);
      if (!proof) return { valid: false, reason: 'no approver signature' };
      const approver = proof.kind === 'idp' ? approverOf(a.decidedBy) : undefined;
      if (proof.kind === 'idp' && approver === undefined) return { valid: false, reason: 'the decision names no approver' };
      if (proof.kind === 'hmac' && policy().required) return { valid: false, reason: 'a page decision without a signed-in approver does not count where confirmation.approvers is set' };
      const text = signedText(statement, a.id, a.status, proof.expiresAt, approver, proof.claims);
      let signed = false;
      if (proof.kind === 'ed25519') signed = pub !== undefined && verify(null, text, pub, Buffer.from(proof.signature, 'base64'));
      else {
        const token = approvalsToken();
        signed = token !== undefined && same(hmac(token, text), proof.signature);
      }
      if (!signed) return { valid: false, reason: 'no valid approver signature over this call' };
      if (approver !== undefined && a.status === 'approved') {
        const refused = approvalRefused(policy(), approver, proof.claims, parseStatement(statement));
        if (refused) return { valid: false, reason: refused };
      }
      if (proof.expiresAt <= now) return { valid: false, reason: `the signed approval expired at ${new Date(proof.expiresAt).toISOString()}` };
      return { valid: true, expiresAt: proof.expiresAt };
    },
  };
}

/**
 * Why a signed-in approver's approval of the call `s` does not count under `p` (the
 * policy in force now, not when they decided), or undefined: their own call, or rules
 * that no longer cover them for its persona, or no recorded claims to tell by. Denials
 * are not asked: refusing never does harm.
 */
function approvalRefused(p: ApproverPolicy, approver: string, claims: string | undefined, s: Statement | undefined): string | undefined {
  if (!s) return 'the call has no statement';
  if (!p.mayApproveOwn && isOwnCall(s, approver, p.issuer)) return `${approver} approved their own call, and confirmation.approvers_may_approve_own_calls is false`;
  if (!p.covers) return undefined;
  if (claims === undefined) return `the decision does not record the claims ${approver} signed in with (taken by an earlier version), so the confirmation.approvers in force cannot be checked`;
  if (!p.covers(JSON.parse(claims) as Record<string, unknown>, s.persona)) {
    return `${approver} is not an approver of persona ${s.persona ?? '(none)'}'s calls under the confirmation.approvers in force`;
  }
  return undefined;
}

/** For call paths without any approver (a library without a key): no decision counts. */
export const noApprover: ApproverCheck = { keyId: 'none', verify: () => ({ valid: false, reason: 'no approver is configured' }) };

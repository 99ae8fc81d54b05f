/**
 * The approver's credential: what makes an approval a person's and not the model's.
 *
 * A decision taken with the CLI is signed with the approver key, an Ed25519 private key
 * in a file only the approving person's OS user can read (mode 0600; created once with
 * `tool-curator approvals init-key`). The gateway holds only the public half
 * (`<key>.pub`) and honours an approval only if its signature verifies, so neither
 * running the CLI without the key nor writing the store directly approves anything.
 * A decision taken on the approvals page is signed with an HMAC of `http.approvals_token`,
 * which the gateway holds and hosts do not.
 *
 * What it cannot do: an agent whose shell runs as the approver's OS user can read the
 * key like that user can. Keep the key with a user (or a machine) the agent's shell is not.
 */
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isPostgresUrl } from '../store/location.js';
import type { Approval } from '../store/types.js';

export type Decision = 'approved' | 'denied';

/** A missing, unreadable, exposed or mismatched approver key; the message says what to do. */
export class ApproverKeyError extends Error {}

/** What a signature covers: the request, its call key (tool, caller, arguments) and the decision. */
function signedText(a: Pick<Approval, 'id' | 'key'>, decision: Decision): Buffer {
  return Buffer.from(`tool-curator approval v1\0${a.id}\0${a.key}\0${decision}`);
}

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

/**
 * Creates the approver key pair: `keyPath` (private, PEM, mode 0600) and `keyPath.pub`.
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
 * @throws ApproverKeyError naming the path and the fix.
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
    if (code === 'ENOENT') {
      throw new ApproverKeyError(
        `approving needs the approver key, and there is none at ${keyPath}. The person who approves creates it once with ` +
          '`tool-curator approvals init-key` (as their own OS user), or passes its path with --key-file',
      );
    }
    if (code === 'EACCES') throw new ApproverKeyError(`cannot read the approver key ${keyPath}: only the approving person's OS user can approve or deny`);
    throw err;
  }
  const key = createPrivateKey(text);
  const pub = readPublicKey(expectedPub);
  if (!pub) throw new ApproverKeyError(`there is no approver public key at ${expectedPub}, so the gateway could not check an approval; keep the .pub that \`approvals init-key\` made there`);
  if (!createPublicKey(key).equals(pub)) {
    throw new ApproverKeyError(`the approver key ${keyPath} does not match ${expectedPub}, which the gateway checks approvals against`);
  }
  return key;
}

function readPublicKey(path: string): KeyObject | undefined {
  try {
    return createPublicKey(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The CLI's signature of a decision, base64. */
export function cliProof(key: KeyObject, a: Pick<Approval, 'id' | 'key'>, decision: Decision): string {
  return `ed25519:${sign(null, signedText(a, decision), key).toString('base64')}`;
}

/** The approvals page's signature of a decision. */
export function webProof(approvalsToken: string, a: Pick<Approval, 'id' | 'key'>, decision: Decision): string {
  return `hmac:${createHmac('sha256', approvalsToken).update(signedText(a, decision)).digest('base64')}`;
}

export interface ApproverCheck {
  /** True iff the approval's decision carries a valid signature of a person's credential. */
  verifies(a: Approval): boolean;
}

/**
 * The gateway's check of decisions: CLI decisions against `<keyPath>.pub` (read when
 * needed, so a key created while the gateway runs counts at once), page decisions
 * against `approvalsToken`.
 */
export function approverCheck(keyPath: string, approvalsToken: () => string | undefined): ApproverCheck {
  return {
    verifies(a) {
      if (!a.proof || (a.status !== 'approved' && a.status !== 'denied')) return false;
      const decision = a.status;
      const [kind, sig] = [a.proof.slice(0, a.proof.indexOf(':')), a.proof.slice(a.proof.indexOf(':') + 1)];
      if (kind === 'ed25519') {
        const pub = readPublicKey(publicKeyPath(keyPath));
        return pub !== undefined && verify(null, signedText(a, decision), pub, Buffer.from(sig, 'base64'));
      }
      const token = approvalsToken();
      if (kind === 'hmac' && token) {
        const want = Buffer.from(webProof(token, a, decision));
        const got = Buffer.from(a.proof);
        return want.length === got.length && timingSafeEqual(want, got);
      }
      return false;
    },
  };
}

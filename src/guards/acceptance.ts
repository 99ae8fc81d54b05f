/**
 * A person's acceptance of a changed tool definition (pins.ts): what it signs, how the
 * gateway tells a signed acceptance from a rewritten store row, and whether it still
 * counts under the approvers rules in force.
 *
 * An acceptance signs the upstream, its tool, the digest the person was shown and the
 * time it was given (the pin's `decidedAt`): with the CLI, an Ed25519 signature of the
 * approver key; on the approvals page, an HMAC of `http.approvals_token`, and where
 * approvers sign in with the identity provider (`confirmation.approvers`), over their user
 * id and the claims of their sign-in that the rules read too, as a page decision on a call
 * is (approver.ts). Such an acceptance counts only while the rules in force cover its
 * approver by the claims it recorded: `acceptanceVoided` says when they no longer do, and
 * the pins hold the definition back again (pins.ts). The approver key and the approvals
 * token name no person of the provider: their acceptances are not re-checked.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import type { DefinitionPin } from '../store/types.js';
import { approverOf, hmac, parseProof, publicKeyPath, readPublicKey, same, type ApproverPolicy, type SignedApprover } from './approver.js';
import { canonicalJson } from './canonical.js';

/**
 * What accepting a changed definition signs. `at` 0 and no approver or claims give the
 * text acceptances signed before they carried their time, so those still verify.
 */
function definitionText(server: string, upstreamName: string, digest: string, at: number, approver?: string, claims?: string): Buffer {
  const by = approver === undefined ? '' : `\naccepted by ${JSON.stringify(approver)}`;
  const when = at === 0 ? '' : `\nat ${at}`;
  const read = claims === undefined ? '' : `\nclaims ${claims}`;
  return Buffer.from(`tool-curator definition v1\nupstream ${JSON.stringify(server)}\ntool ${JSON.stringify(upstreamName)}\naccepted ${digest}${by}${when}${read}`);
}

/** The CLI's signature of a definition acceptance given at `at` (epoch ms: the pin's `decidedAt`). */
export function cliDefinitionProof(key: KeyObject, server: string, upstreamName: string, digest: string, at: number): string {
  return `ed25519:${at}:${sign(null, definitionText(server, upstreamName, digest, at), key).toString('base64')}`;
}

/**
 * The approvals page's signature of a definition acceptance given at `at`; with
 * `approver` (signed in with the identity provider) it signs their id and claims too, and
 * the pin must say `decidedBy: approverDecider(approver.id)`.
 */
export function webDefinitionProof(approvalsToken: string, server: string, upstreamName: string, digest: string, at: number, approver?: SignedApprover): string {
  if (approver === undefined) return `hmac:${at}:${hmac(approvalsToken, definitionText(server, upstreamName, digest, at))}`;
  const claims = canonicalJson(approver.claims);
  const signature = hmac(approvalsToken, definitionText(server, upstreamName, digest, at, approver.id, claims));
  return `idp:${at}:${signature}:${Buffer.from(claims).toString('base64url')}`;
}

/**
 * Whether an acceptance's proof is a signature of the pin's digest, and of its time, by the
 * approver key at `keyPath` or the approvals token; one by a signed-in approver (`idp`)
 * must name the approver the pin's `decidedBy` names, so a store write that re-attributes
 * it, moves its time or widens its claims voids it.
 */
export function definitionProofValid(
  pin: Pick<DefinitionPin, 'proof' | 'server' | 'upstreamName' | 'digest' | 'decidedBy' | 'decidedAt'>,
  keyPath: string,
  approvalsToken: string | undefined,
): boolean {
  const p = parseProof(pin.proof);
  if (!p) return false;
  // 0: signed before acceptances carried their time.
  if (p.expiresAt !== 0 && p.expiresAt !== pin.decidedAt) return false;
  if (p.kind === 'ed25519') {
    const pub = readPublicKey(publicKeyPath(keyPath));
    return pub !== undefined && verify(null, definitionText(pin.server, pin.upstreamName, pin.digest, p.expiresAt), pub, Buffer.from(p.signature, 'base64'));
  }
  const approver = p.kind === 'idp' ? approverOf(pin.decidedBy) : undefined;
  if (p.kind === 'idp' && approver === undefined) return false;
  const text = definitionText(pin.server, pin.upstreamName, pin.digest, p.expiresAt, approver, p.claims);
  return approvalsToken !== undefined && same(hmac(approvalsToken, text), p.signature);
}

/**
 * Why the acceptance of `pin`'s definition no longer counts under `policy` (the approvers
 * rules in force now, not when it was given), or undefined while it does: one by a
 * signed-in approver counts while a rule covers them by the claims it recorded (any rule:
 * a definition belongs to no persona). One without recorded claims (an earlier version's)
 * does not count where approvers are set. Acceptances with the approver key or the
 * approvals token alone, and pins never accepted, always count.
 */
export function acceptanceVoided(pin: Pick<DefinitionPin, 'proof' | 'decidedBy'>, policy: ApproverPolicy): string | undefined {
  const p = parseProof(pin.proof);
  if (p?.kind !== 'idp' || !policy.covers) return undefined;
  const approver = approverOf(pin.decidedBy) ?? 'an unnamed approver';
  if (p.claims === undefined) {
    return `the acceptance by ${approver} records no claims of their sign-in (an earlier version took it), so the confirmation.approvers in force cannot be checked`;
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(p.claims) as Record<string, unknown>;
  } catch {
    return `the acceptance by ${approver} records claims that cannot be read`;
  }
  return policy.covers(claims) ? undefined : `${approver} is no longer an approver under the confirmation.approvers in force`;
}

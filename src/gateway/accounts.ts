/**
 * The keys per-user upstream accounts are kept under (docs/AUTH.md, "Per-user upstream
 * accounts"), one per person, in the store's person-key format (store/people.ts): a user
 * signed in with the identity provider by (issuer, subject), never by a claim they may
 * choose; a static token's (or anonymous access's, or stdio's) user by its user id, in a
 * kind of its own.
 */
import type { SessionIdentity } from '../guards/types.js';
import { personKey, personOf, personText } from '../store/people.js';

/**
 * The key a session's per-user upstream accounts are kept under; undefined for a session
 * without a user. A static token's `user_id` spelled like a signed-in user's id (or
 * subject, or their whole key) is another person: it neither uses nor connects that
 * person's accounts, and a signed-in user whose id claim reads `token:alice` is not the
 * static-token user alice.
 */
export function accountOf(session: Pick<SessionIdentity, 'userId' | 'principal'>): string | undefined {
  if (session.principal) return personKey({ kind: 'signed-in', issuer: session.principal.issuer, subject: session.principal.subject });
  return session.userId === undefined ? undefined : personKey({ kind: 'token', userId: session.userId });
}

/**
 * Whether the person the identity provider signed in (the validated claims of their token)
 * is the signed-in user of `account`: the same `sub`. The gateway trusts one identity
 * provider, whose tokens the sign-in already checked.
 */
export function isSignedInAs(account: string, claims: Record<string, unknown>): boolean {
  const person = personOf(account);
  return person?.kind === 'signed-in' && typeof claims.sub === 'string' && person.subject === claims.sub;
}

/** Whether an account key (accountOf) is a signed-in user's. */
export const signedInAccount = (account: string): boolean => personOf(account)?.kind === 'signed-in';

/** An account key as a person reads it: `"S0002"` (a signed-in user's subject), `alice (static token)`. */
export const accountText = personText;

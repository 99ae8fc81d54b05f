/**
 * The keys per-user upstream accounts are kept under (docs/AUTH.md, "Per-user upstream
 * accounts"), one per person: a user signed in with the identity provider by their id, a
 * static token's (or anonymous access's, or stdio's) user id in a namespace of its own.
 */
import type { SessionIdentity } from '../guards/types.js';

/** Per-user accounts of sessions that did not sign in with the identity provider are kept under this prefix. */
const UNSIGNED = 'token:';

/**
 * The key a session's per-user upstream accounts are kept under: a signed-in user's id
 * as it is (`alice`), the user id of a static token, anonymous access or stdio with
 * `token:` before it (`token:alice`). A static token's `user_id` spelled like a signed-in
 * user's id is then another user: it neither uses nor connects that person's accounts.
 */
export function accountOf(session: Pick<SessionIdentity, 'userId' | 'principal'>): string | undefined {
  if (session.userId === undefined) return undefined;
  return session.principal ? session.userId : `${UNSIGNED}${session.userId}`;
}

/** Whether an account key (accountOf) is a signed-in user's. */
export const signedInAccount = (account: string): boolean => !account.startsWith(UNSIGNED);

/** An account key as a person reads it: `alice`, or `alice (static token)`. */
export const accountText = (account: string): string => (signedInAccount(account) ? account : `${account.slice(UNSIGNED.length)} (static token)`);

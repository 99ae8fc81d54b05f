/**
 * How the store names a person, wherever something is kept per person (per-user OAuth
 * state and flows, learned evidence): decided here once. A person is either signed in
 * with an identity provider, known by (issuer, subject), or named by a static token (or
 * anonymous access, or stdio) by its user id. The key is the JSON text of an array whose
 * first element is the kind, `["signed-in", issuer, subject]` or `["token", user_id]`:
 * every part is a JSON string, so no claim (whatever it contains: `token:`, quotes, an
 * issuer URL, brackets) can make one kind's key equal to the other's, or one person's
 * equal to another's. The gateway's own authorization of an upstream keeps the key `''`.
 */

export type Person = { kind: 'signed-in'; issuer: string; subject: string } | { kind: 'token'; userId: string };

/** The store key of `person`. */
export function personKey(person: Person): string {
  return JSON.stringify(person.kind === 'signed-in' ? ['signed-in', person.issuer, person.subject] : ['token', person.userId]);
}

/** The person a store key names, or `undefined` for anything else (`''`, a key of a store before version 6). */
export function personOf(key: string): Person | undefined {
  if (!key.startsWith('[')) return undefined;
  let parts: unknown;
  try {
    parts = JSON.parse(key);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return undefined;
  if (parts[0] === 'signed-in' && parts.length === 3) return { kind: 'signed-in', issuer: parts[1], subject: parts[2] };
  if (parts[0] === 'token' && parts.length === 2) return { kind: 'token', userId: parts[1] };
  return undefined;
}

/**
 * The key a store before version 6 kept a signed-in user's rows under (their user id
 * claim; the issuer and subject were not recorded): held apart until that user signs in
 * again, and then handed to them once (SqlOAuth.adopt). No person's key equals it.
 */
export function legacySignedInKey(userId: string): string {
  return JSON.stringify(['signed-in-before-v6', userId]);
}

/** The key of version 6 for a per-person key of a store before it: `token:<id>` was a static token's user, `''` the gateway, anything else a signed-in user's id. */
export function upgradedKey(old: string): string {
  if (old === '') return old;
  return old.startsWith('token:') ? personKey({ kind: 'token', userId: old.slice('token:'.length) }) : legacySignedInKey(old);
}

/** A key as a person reads it: a signed-in user's subject in quotes (`"S0002"`; one identity provider signs users in), `alice (static token)`. */
export function personText(key: string): string {
  const p = personOf(key);
  if (!p) return JSON.stringify(key);
  return p.kind === 'token' ? `${p.userId} (static token)` : JSON.stringify(p.subject);
}

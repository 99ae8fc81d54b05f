/**
 * Person keys (store/people.ts) and the migration to them (schema version 6) on each
 * backend: a signed-in user and a static-token user are apart by the key's structure,
 * whatever their ids spell; rows a store of version 5 kept per person are rewritten so
 * that the static-token users keep their accounts and evidence, and a signed-in user's
 * account waits under a legacy key until they sign in again (adopt).
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { legacySignedInKey, personKey, personOf, personText, type Person } from '../../src/store/people.js';
import { adminQuery, BACKENDS, setupBackends, type Backend } from '../helpers/stores.js';

setupBackends();

const ISSUER = 'https://idp.example.com/realms/acme';
const URL_A = 'https://notes.example.com/mcp';

describe('person keys', () => {
  it('never equal across kinds or people, whatever the ids spell', () => {
    const tricky = ['alice', 'token:alice', '["token","alice"]', 'oidc:alice', `${ISSUER}/alice`, 'a","b', '', 'signed-in', '\\"'];
    const people: Person[] = [
      ...tricky.map((userId): Person => ({ kind: 'token', userId })),
      ...tricky.flatMap((subject): Person[] => [
        { kind: 'signed-in', issuer: ISSUER, subject },
        { kind: 'signed-in', issuer: `${ISSUER}/other`, subject },
      ]),
    ];
    const keys = people.map(personKey);
    expect(new Set(keys).size).toBe(people.length);
    for (const [i, key] of keys.entries()) expect(personOf(key)).toEqual(people[i]);
    // Legacy keys and the gateway's own are nobody's.
    for (const old of tricky) expect(personOf(legacySignedInKey(old))).toBeUndefined();
    expect(personOf('')).toBeUndefined();
    expect(personOf('token:alice')).toBeUndefined();
    expect(personText(personKey({ kind: 'token', userId: 'alice' }))).toBe('alice (static token)');
    expect(personText(personKey({ kind: 'signed-in', issuer: ISSUER, subject: 'token:alice' }))).toBe('"token:alice"');
  });
});

/** Runs `sql` on the store at `location` directly, as a release before this one would have written. */
async function raw(backend: Backend, location: string, sql: string[]): Promise<void> {
  if (backend.kind === 'postgres') {
    for (const s of sql) await adminQuery(s, location);
    return;
  }
  const db = new Database(location);
  try {
    for (const s of sql) db.exec(s);
  } finally {
    db.close();
  }
}

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const oauthRow = (subject: string, token: string) =>
  `INSERT INTO oauth_state (upstream, subject, url, tokens, version, updated_at) VALUES ('notes', ${q(subject)}, ${q(URL_A)}, ${q(JSON.stringify({ access_token: token }))}, 3, 1000)`;
const evidence = (tenant: string, user: string) => `INSERT INTO learned_evidence (persona, tenant, user_id, query, tool, at) VALUES ('staff', ${q(tenant)}, ${q(user)}, 'pay my fees', 'make_payment', ${Date.now()})`;

describe.each(BACKENDS)('migration to person keys on $kind', (backend) => {
  it('static-token users keep their accounts and evidence, signed-in ones wait under a legacy key, and no id reaches another person', async () => {
    const location = await backend.fresh();
    await (await backend.open(location)).close();
    // A store of version 5: `token:<id>` for static tokens, a signed-in user's id as it is (here one that spells the new key of static alice).
    await raw(backend, location, [
      oauthRow('', 'gateway'),
      oauthRow('token:alice', 'static-alice'),
      oauthRow('alice', 'signed-in-alice'),
      oauthRow('["token","alice"]', 'spelled-like-a-key'),
      `INSERT INTO oauth_flows (id, upstream, subject, data, expires_at) VALUES ('f1', 'notes', 'token:alice', '{}', ${Date.now() + 60_000})`,
      evidence('', 'alice'),
      evidence(ISSUER, 'token:alice'),
      evidence(ISSUER, 'bob'),
      // Back to version 5: what later migrations made goes too, so that 6 and those after it run again.
      'DROP TABLE sealing_keys',
      'DROP TABLE sealed_uses',
      'DROP TABLE upstream_eras',
      'DROP TABLE response_cache',
      'DELETE FROM schema_version WHERE version >= 6',
    ]);
    const store = await backend.open(location);
    try {
      const tokensOf = async (subject: string) => JSON.parse((await store.oauth.get({ upstream: 'notes', subject, url: URL_A }, 'tokens')) ?? 'null')?.access_token;
      const staticAlice = personKey({ kind: 'token', userId: 'alice' });
      const signedInAlice = personKey({ kind: 'signed-in', issuer: ISSUER, subject: 'alice' });
      expect(await tokensOf('')).toBe('gateway');
      expect(await tokensOf(staticAlice)).toBe('static-alice');
      expect(await tokensOf(legacySignedInKey('alice'))).toBe('signed-in-alice');
      expect(await tokensOf(legacySignedInKey('["token","alice"]'))).toBe('spelled-like-a-key');
      expect(await tokensOf(signedInAlice)).toBeUndefined();
      expect((await store.oauth.consented('notes')).map((c) => c.subject).sort()).toEqual(['', legacySignedInKey('["token","alice"]'), legacySignedInKey('alice'), staticAlice].sort());
      expect(await store.oauth.takeFlow('f1')).toBeUndefined();

      // The signed-in alice gets her account back once; a second adopt finds nothing, and an account held already is never replaced.
      expect(await store.oauth.adopt('notes', legacySignedInKey('alice'), signedInAlice)).toBe(true);
      expect(await tokensOf(signedInAlice)).toBe('signed-in-alice');
      expect(await store.oauth.adopt('notes', legacySignedInKey('alice'), signedInAlice)).toBe(false);
      const signedInTokenAlice = personKey({ kind: 'signed-in', issuer: ISSUER, subject: 'token:alice' });
      expect(await store.oauth.adopt('notes', legacySignedInKey('["token","alice"]'), signedInAlice)).toBe(false);
      expect(await tokensOf(signedInAlice)).toBe('signed-in-alice');
      expect(await tokensOf(signedInTokenAlice)).toBeUndefined();

      // Static alice's old evidence is hers under the new key: her new evidence counts her once.
      await store.learned.add({ persona: 'staff', tenant: '', userId: staticAlice, query: 'pay my fees', tool: 'make_payment', at: Date.now() });
      const pairs = await store.learned.pairs({ persona: 'staff', tenant: '', since: 0, minUsers: 1 });
      expect(pairs.map((p) => [p.users, p.count])).toEqual([[1, 2]]);
      const signedIn = await store.learned.pairs({ persona: 'staff', tenant: ISSUER, since: 0, minUsers: 2 });
      expect(signedIn.map((p) => p.users)).toEqual([2]);
    } finally {
      await store.close();
    }
  }, 120_000);
});

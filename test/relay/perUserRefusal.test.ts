/**
 * A per-user upstream that still refuses a user's account after their consent: the
 * refusal the host reads names the person as a person reads them (docs/AUTH.md,
 * "Per-user upstream accounts"), never the store's account key, which is the gateway's
 * own bookkeeping (issuer and subject as JSON). The relay's consent step with the user
 * connections in memory: each attempt refuses as an upstream would.
 */
import { describe, expect, it } from 'vitest';
import { remoteUpstreamSchema } from '../../src/config/schema.js';
import { PerUserRelay } from '../../src/relay/perUser.js';
import { personKey } from '../../src/store/people.js';
import { NeedsAuthorizationError } from '../../src/upstream/auth/errors.js';
import type { UserConnections } from '../../src/upstream/users.js';

const cfg = remoteUpstreamSchema.parse({ url: 'https://notes.example/mcp', auth: { oauth: {}, per_user: true } });

/** A relay whose upstream refuses every attempt of every user; `offered` records who was offered the link. */
function refusingRelay() {
  const offered: string[] = [];
  const attempts: string[] = [];
  const users = {
    request: async (_server: string, _cfg: unknown, user: string) => {
      attempts.push(user);
      throw new NeedsAuthorizationError('notes', 'rejected');
    },
  } as unknown as UserConnections;
  const relay = new PerUserRelay({
    users,
    upstreams: { notes: cfg },
    offer: async (who) => {
      offered.push(who.userId);
      return undefined; // the user connected: the request runs again
    },
  });
  return { relay, offered, attempts };
}

describe('a per-user upstream that still refuses after consent', () => {
  it.each([
    ['a signed-in user', personKey({ kind: 'signed-in', issuer: 'https://idp.example', subject: 'S0002' }), '"S0002"'],
    ['a static-token user', personKey({ kind: 'token', userId: 'alice' }), 'alice (static token)'],
  ])('names %s as a person reads them, not by the account key', async (_kind, account, shown) => {
    const { relay, offered, attempts } = refusingRelay();
    const err = (await relay.request({ persona: 'staff', userId: account }, 'notes', 'read notes://mine', async () => 'never').catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe(`upstream "notes" still refuses the account ${shown} connected (rejected); read notes://mine again for a new link`);
    expect(err.message).not.toContain('[');
    expect(err.message).not.toContain('idp.example');
    expect(offered).toEqual([account]);
    expect(attempts).toEqual([account, account]);
  });
});

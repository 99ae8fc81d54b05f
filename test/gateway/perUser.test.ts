/**
 * Per-user upstream accounts (`auth: { oauth, per_user: true }`), end to end on loopback:
 * a real OpenID provider (oidc-provider) that hosts and the consent page sign in with, a
 * real OAuth-protected MCP upstream with its own authorization server (authServer.ts;
 * which account a person signs in with there is their browser's `account` cookie), the
 * gateway's HTTP face in process, and SDK clients as hosts. Two users each connect their
 * own account through the consent link and see only their own account's data; a host
 * with URL elicitation gets the link as `elicitation/create` mode 'url', one without gets
 * it in the error; a link opened by another user attaches nothing; logging one user out
 * leaves the other's tokens; an expired access token is refreshed per user; a tool that
 * asks for more scope (403 insufficient_scope) brings a link for the wider scope. On both
 * store backends.
 */
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPerUser, consentBaseOf } from '../../src/pages/consent.js';
import { authCommand } from '../../src/upstream/auth/command.js';
import { Browser } from '../helpers/browser.js';
import { linkIn, startPerUserGateway, text, type Host, type PerUserGateway } from '../helpers/perUser.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';

setupBackends();

/** A static token (http.tokens) whose user_id is the signed-in user alice's id. */
const STATIC_ALICE = 'static-token-for-alice-0123456789abcdef';
/** Identity provider users whose id (the `sub`, the user claim here) spells the static-token user alice, or her key. */
const TRICKY = ['token:alice', '["token","alice"]', 'oidc:alice', 'token:alice (static token)'];


describe.each(BACKENDS)('per-user upstream accounts on $kind', (backend) => {
  let g: PerUserGateway;

  beforeAll(async () => {
    g = await startPerUserGateway(backend, 'staff:\n  allow: ["tracker.*"]\n  confirm: none\n', ['alice', 'bob', 'carol', 'erin', ...TRICKY], [{ token: STATIC_ALICE, persona: 'staff', user_id: 'alice' }]);
  }, 300_000);

  afterAll(async () => {
    await g?.close();
  });

  const whoami = async (client: Client) => (await client.callTool({ name: 'call_tool', arguments: { name: 'whoami', arguments: {} } }, { timeout: 300_000 })) as CallToolResult;
  let alice: Host;
  let bob: Host;

  it('a user without consent gets the consent link as a URL elicitation, then the call runs with their own account', async () => {
    alice = await g.host('alice', 'alice-at-tracker');
    const r = await whoami(alice.client);
    expect(text(r), text(r)).toMatch(/ account alice-at-tracker$/);
    expect(alice.asked).toHaveLength(1);
    expect(alice.asked[0]!.mode).toBe('url');
    expect(alice.asked[0]!.url.startsWith(`${g.base}/oauth/consent/`)).toBe(true);
    expect(alice.asked[0]!.message).toContain('tracker');
    expect(await g.tokensOf('alice')).toBeDefined();
    expect(await g.tokensOf('bob')).toBeUndefined();
  }, 300_000);

  it("a static token whose user_id is a signed-in user's id neither uses nor connects that user's account", async () => {
    const impostor = new Client({ name: 'static-token-host', version: '1.0.0' });
    await impostor.connect(new StreamableHTTPClientTransport(new URL(`${g.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${STATIC_ALICE}` } } }));
    try {
      const r = await whoami(impostor);
      expect(r.isError).toBe(true);
      expect(text(r)).not.toContain('alice-at-tracker');
      expect(text(r)).toContain('this session came with a static token, not a sign-in, so it cannot connect one');
      expect(await g.tokensOf('alice', 'token')).toBeUndefined();
      // alice's own account is untouched and still hers.
      expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    } finally {
      await impostor.close();
    }
  }, 300_000);

  it("a signed-in user whose id reads token:alice (or her key, or another spelling) never reaches the static-token user alice's account", async () => {
    // The static-token user alice holds an account (connected before the gateway took sign-ins).
    await g.seedTokens('alice', 'token', JSON.stringify(g.upstream.provider.issue('static-client', ['tools:read'], undefined, true, 'static-alice-at-tracker')));
    for (const id of TRICKY) {
      const tricky = await g.host(id);
      const r = await whoami(tricky.client);
      expect(r.isError, `${id}: ${text(r)}`).toBe(true);
      expect(text(r)).not.toContain('static-alice-at-tracker');
      expect(text(r)).toContain(`user ${JSON.stringify(id)} has not connected theirs`);
      expect(await g.tokensOf(id)).toBeUndefined();
    }
    expect(await g.tokensOf('alice', 'token')).toContain('"access_token"');
    // `auth --logout --user` takes a key as stored, and says whose it was.
    const out: string[] = [];
    expect(await authCommand(g.loaded, 'tracker', { logout: true, user: '["token","alice"]', out: (l) => out.push(l) })).toBe(0);
    expect(out.at(-1)).toContain('for user alice (static token)');
    expect(await g.tokensOf('alice', 'token')).toBeUndefined();
  }, 300_000);

  it('two users each see their own account through the same gateway, never the other', async () => {
    bob = await g.host('bob', 'bob-at-tracker');
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    // Concurrent calls of both keep to their own connection.
    const both = await Promise.all([whoami(alice.client), whoami(bob.client), whoami(alice.client), whoami(bob.client)]);
    expect(both.map((r) => text(r).split(' account ')[1])).toEqual(['alice-at-tracker', 'bob-at-tracker', 'alice-at-tracker', 'bob-at-tracker']);
    expect(alice.asked).toHaveLength(1);
    expect(bob.asked).toHaveLength(1);
    expect(await g.tokensOf('alice')).not.toBe(await g.tokensOf('bob'));
  }, 300_000);

  it('expired access tokens are refreshed once per user, however many calls meet them at once', async () => {
    const before = g.upstream.provider.refreshes;
    g.upstream.provider.expireAccessTokens();
    const calls = await Promise.all([alice, bob, alice, bob, alice].map((h) => whoami(h.client)));
    expect(calls.map((r) => text(r).split(' account ')[1])).toEqual(['alice-at-tracker', 'bob-at-tracker', 'alice-at-tracker', 'bob-at-tracker', 'alice-at-tracker']);
    expect(g.upstream.provider.refreshes - before).toBe(2);
  }, 300_000);

  it('a grant one user withdraws at the provider is offered again to that user only', async () => {
    g.upstream.provider.revokeAccount('alice-at-tracker');
    g.upstream.provider.expireAccessTokens();
    expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    expect(alice.asked).toHaveLength(2);
    expect(alice.asked[1]!.message).toContain('withdrawn or has lapsed');
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    expect(bob.asked).toHaveLength(1);
  }, 300_000);

  it('a host without URL elicitation gets the link in the error; opened by another user, it attaches nothing', async () => {
    const carol = await g.host('carol');
    const r = await whoami(carol.client);
    expect(r.isError).toBe(true);
    const link = linkIn(text(r));
    expect(link, text(r)).toBeDefined();
    expect(text(r)).toContain('user "carol" has not connected theirs');
    // Bob opens carol's link and signs in as himself.
    const page = await g.openConsent(link!, 'bob', 'bob-at-tracker');
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('made for another user');
    expect(await g.tokensOf('carol')).toBeUndefined();
    // The link worked once: opened again, it is gone.
    expect((await fetch(link!, { redirect: 'manual' })).status).toBe(410);
  }, 300_000);

  it('a host that fails the URL elicitation still gets the link in the error', async () => {
    const erin = await g.host('erin', 'erin-at-tracker', true);
    const r = await whoami(erin.client);
    expect(erin.asked).toHaveLength(1);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Show the user this link to connect it .*: http:\/\/127\.0\.0\.1:\d+\/oauth\/consent\/[A-Za-z0-9_-]+ /);
    expect(await g.tokensOf('erin')).toBeUndefined();
  }, 300_000);

  it('an upstream authorization that comes back to another browser attaches nothing', async () => {
    const carol = await g.host('carol');
    const link = linkIn(text(await whoami(carol.client)));
    expect(link).toBeDefined();
    // Carol signs in herself, but the upstream's redirect is completed in someone else's browser (a forwarded authorization URL).
    const other = new Browser({ [new URL(g.upstream.mcpUrl).origin]: { account: 'mallory-at-tracker' } });
    const page = await g.openConsent(link!, 'carol', 'carol-at-tracker', other);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('started in another browser');
    expect(await g.tokensOf('carol')).toBeUndefined();
  }, 300_000);

  it('per-user upstreams with hosts signing in need the consent page to sign its visitors in too', () => {
    const without = { ...g.loaded, config: { ...g.loaded.config, per_user: { ...g.loaded.config.per_user, sign_in: undefined } } };
    expect(() => checkPerUser(without)).toThrow(/per_user\.sign_in.*act per user and hosts sign in with http\.oauth/s);
    expect(() => checkPerUser(g.loaded)).not.toThrow();
  });

  it("consent links start at per_user.public_url, else at the gateway's resource without /mcp", () => {
    expect(consentBaseOf(g.loaded, 'http://unused.example')).toBe(g.base);
    const pub = { ...g.loaded, config: { ...g.loaded.config, per_user: { ...g.loaded.config.per_user, public_url: 'https://mcp.example.com/' } } };
    expect(consentBaseOf(pub, 'http://unused.example')).toBe('https://mcp.example.com');
  });

  it("logging one user out leaves the other's tokens; the logged-out user is asked again", async () => {
    const out: string[] = [];
    expect(await authCommand(g.loaded, 'tracker', { users: true, out: (l) => out.push(l) })).toBe(0);
    expect(out.filter((l) => !l.includes(' users ')).map((l) => l.split('\t')[0])).toEqual(['"alice"', '"bob"']);
    expect(await authCommand(g.loaded, 'tracker', { logout: true, user: 'alice', out: (l) => out.push(l) })).toBe(0);
    expect(out.at(-1)).toContain('for user "alice"');
    expect(await g.tokensOf('alice')).toBeUndefined();
    expect(await g.tokensOf('bob')).toBeDefined();
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    expect(bob.asked).toHaveLength(1);
    expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    expect(alice.asked).toHaveLength(3);
  }, 300_000);

  it("a tool asking for more scope brings the user a new link for the wider scope; once granted the call runs; the other user's tokens stay", async () => {
    const writeNote = (h: Host) => h.client.callTool({ name: 'call_tool', arguments: { name: 'write_note', arguments: {} } }, { timeout: 300_000 }) as Promise<CallToolResult>;
    const bobTokens = await g.tokensOf('bob');
    const asked = alice.asked.length;
    const authorizations = g.upstream.provider.scopesAsked.length;
    const r = await writeNote(alice);
    expect(text(r), text(r)).toBe('note written with scopes [tools:read notes:write]');
    expect(alice.asked).toHaveLength(asked + 1);
    expect(alice.asked[asked]!.message).toContain('(it asks for more scope: "notes:write")');
    // The new link asked the upstream for the granted scope and the one the tool wants.
    expect(g.upstream.provider.scopesAsked.slice(authorizations)).toEqual(['tools:read notes:write']);
    expect((JSON.parse((await g.tokensOf('alice'))!) as { scope: string }).scope).toBe('tools:read notes:write');
    expect(await g.tokensOf('bob')).toBe(bobTokens);
    expect(text(await whoami(bob.client))).toMatch(/scopes \[tools:read\] account bob-at-tracker$/);
    // Bob, without the wider scope, is asked for it himself when his host cannot open links.
    const bobWithoutUrl = await g.host('bob');
    const denied = await writeNote(bobWithoutUrl);
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain('user "bob" has not connected theirs (it asks for more scope: "notes:write")');
    expect(linkIn(text(denied))).toBeDefined();
    expect(await g.tokensOf('bob')).toBe(bobTokens);
    expect(text(await whoami(alice.client))).toMatch(/scopes \[tools:read notes:write\] account alice-at-tracker$/);
  }, 300_000);
});

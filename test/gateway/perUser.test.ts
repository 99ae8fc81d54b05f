/**
 * Per-user upstream accounts (`auth: { oauth, per_user: true }`), end to end on loopback:
 * a real OpenID provider (oidc-provider) that hosts and the consent page sign in with, a
 * real OAuth-protected MCP upstream with its own authorization server (authServer.ts;
 * which account a person signs in with there is their browser's `account` cookie), the
 * gateway's HTTP face in process, and SDK clients as hosts. Two users each connect their
 * own account through the consent link and see only their own account's data; a host
 * with URL elicitation gets the link as `elicitation/create` mode 'url', one without gets
 * it in the error; a link opened by another user attaches nothing; logging one user out
 * leaves the other's tokens; an expired access token is refreshed per user. On both store
 * backends.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { checkPerUser, consentBaseOf } from '../../src/gateway/consentPage.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { authCommand } from '../../src/upstream/auth/command.js';
import { Browser } from '../helpers/browser.js';
import { startIdp, type Idp } from '../helpers/idp.js';
import { freePort } from '../helpers/process.js';
import { BACKENDS, setupBackends } from '../helpers/stores.js';
import { startProtectedServer, type ProtectedServer } from '../upstream/authServer.js';

setupBackends();

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe.each(BACKENDS)('per-user upstream accounts on $kind', (backend) => {
  let idp: Idp;
  let upstream: ProtectedServer;
  let loaded: LoadedConfig;
  let gateway: Gateway;
  let face: HttpFace;
  let base: string;
  let resource: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    upstream = await startProtectedServer();
    idp = await startIdp({
      resources: [resource],
      scope: 'mcp:tools',
      accounts: { alice: { groups: ['staff'] }, bob: { groups: ['staff'] }, carol: { groups: ['staff'] }, erin: { groups: ['staff'] } },
      services: {},
      publicClient: { id: 'test-host', redirectUri: 'http://127.0.0.1:8976/callback' },
      webClient: { id: 'tc-consent', redirectUri: `${base}/oauth/signin/callback` },
      introspector: { id: 'tool-curator', secret: 'introspection-secret-0123456789abcdef' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'tc-peruser-'));
    writeFileSync(join(dir, 'personas.yaml'), 'staff:\n  allow: ["tracker.*"]\n  confirm: none\n');
    const config = {
      upstreams: { tracker: { url: upstream.mcpUrl, auth: { oauth: {}, per_user: true } } },
      curator: { mode: 'none' },
      store: await backend.fresh(),
      policy: { personas: join(dir, 'personas.yaml') },
      http: { oauth: { issuer: idp.issuer, resource, scopes: ['mcp:tools'], personas: [{ persona: 'staff', when: { claim: 'groups', includes: 'staff' } }] } },
      per_user: { sign_in: { client_id: 'tc-consent' }, wait_seconds: 120 },
      timeouts: { startup_ms: 60_000, call_ms: 60_000, call_max_ms: 300_000 },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), JSON.stringify(config));
    loaded = loadConfig(join(dir, 'gateway.config.yaml'));
    // The operator's consent: the gateway's own authorization, which only lists the tools.
    const lines: string[] = [];
    const consented = authCommand(loaded, 'tracker', {
      out: (line) => {
        lines.push(line);
        if (line.startsWith('http')) void fetch(line, { redirect: 'manual' }).then((r) => fetch(r.headers.get('location')!));
      },
    });
    expect(await consented, lines.join('\n')).toBe(0);
    gateway = await Gateway.start(loaded, { noEmbedder: true });
    face = await serveHttp(gateway, port, '127.0.0.1');
  }, 300_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await face?.close();
    await gateway?.close();
    await idp?.close();
    await upstream?.close();
  });

  /**
   * Plays the user's browser on a consent link: the gateway sends it to the identity
   * provider, where it signs in as `login`; then to the upstream's authorization server,
   * where it is signed in to `account`; then back to the gateway.
   * @param finisher another browser that takes over at the upstream's authorization, if given.
   * @returns the gateway's last answer (the "connected" page, or a refusal).
   */
  async function openConsent(link: string, login: string, account: string, finisher?: Browser): Promise<Response> {
    const browser = new Browser({ [new URL(upstream.mcpUrl).origin]: { account } });
    const toIdp = await browser.get(link);
    expect(toIdp.status, await toIdp.clone().text()).toBe(302);
    const back = await idp.authorize(new URL(toIdp.headers.get('location')!), login, `${base}/oauth/signin/callback`);
    const toUpstream = await browser.get(back.href);
    if (toUpstream.status !== 302) return toUpstream;
    const toGateway = await (finisher ?? browser).get(new URL(toUpstream.headers.get('location')!).href);
    expect(toGateway.status).toBe(302);
    return (finisher ?? browser).get(toGateway.headers.get('location')!);
  }

  /**
   * A host signed in as `user` (a token of the identity provider's key); with URL
   * elicitation, the user consents as `account` when asked (or the host fails the request, `failing`).
   */
  async function host(user: string, account?: string, failing = false): Promise<{ client: Client; asked: ElicitRequestURLParams[] }> {
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.mint({ iss: idp.issuer, aud: resource, sub: user, scope: 'mcp:tools', groups: ['staff'], iat: now, exp: now + 600 });
    const client = new Client({ name: `host-of-${user}`, version: '1.0.0' }, { capabilities: account ? { elicitation: { url: {} } } : {} });
    const asked: ElicitRequestURLParams[] = [];
    if (account) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params as ElicitRequestURLParams);
        if (failing) throw new Error('the host could not open a browser');
        const page = await openConsent((req.params as ElicitRequestURLParams).url, user, account);
        expect(page.status, await page.clone().text()).toBe(200);
        return { action: 'accept' };
      });
    }
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return { client, asked };
  }

  const whoami = async (client: Client) => (await client.callTool({ name: 'call_tool', arguments: { name: 'whoami', arguments: {} } }, undefined, { timeout: 300_000 })) as CallToolResult;
  const tokensOf = (user: string) => gateway.store.oauth.get({ upstream: 'tracker', subject: user, url: upstream.mcpUrl }, 'tokens');

  let alice: Awaited<ReturnType<typeof host>>;
  let bob: Awaited<ReturnType<typeof host>>;

  it('a user without consent gets the consent link as a URL elicitation, then the call runs with their own account', async () => {
    alice = await host('alice', 'alice-at-tracker');
    const r = await whoami(alice.client);
    expect(text(r), text(r)).toMatch(/ account alice-at-tracker$/);
    expect(alice.asked).toHaveLength(1);
    expect(alice.asked[0]!.mode).toBe('url');
    expect(alice.asked[0]!.url.startsWith(`${base}/oauth/consent/`)).toBe(true);
    expect(alice.asked[0]!.message).toContain('tracker');
    expect(await tokensOf('alice')).toBeDefined();
    expect(await tokensOf('bob')).toBeUndefined();
  }, 300_000);

  it('two users each see their own account through the same gateway, never the other', async () => {
    bob = await host('bob', 'bob-at-tracker');
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    // Concurrent calls of both keep to their own connection.
    const both = await Promise.all([whoami(alice.client), whoami(bob.client), whoami(alice.client), whoami(bob.client)]);
    expect(both.map((r) => text(r).split(' account ')[1])).toEqual(['alice-at-tracker', 'bob-at-tracker', 'alice-at-tracker', 'bob-at-tracker']);
    expect(alice.asked).toHaveLength(1);
    expect(bob.asked).toHaveLength(1);
    expect(await tokensOf('alice')).not.toBe(await tokensOf('bob'));
  }, 300_000);

  it('expired access tokens are refreshed once per user, however many calls meet them at once', async () => {
    const before = upstream.provider.refreshes;
    upstream.provider.expireAccessTokens();
    const calls = await Promise.all([alice, bob, alice, bob, alice].map((h) => whoami(h.client)));
    expect(calls.map((r) => text(r).split(' account ')[1])).toEqual(['alice-at-tracker', 'bob-at-tracker', 'alice-at-tracker', 'bob-at-tracker', 'alice-at-tracker']);
    expect(upstream.provider.refreshes - before).toBe(2);
  }, 300_000);

  it('a grant one user withdraws at the provider is offered again to that user only', async () => {
    upstream.provider.revokeAccount('alice-at-tracker');
    upstream.provider.expireAccessTokens();
    expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    expect(alice.asked).toHaveLength(2);
    expect(alice.asked[1]!.message).toContain('withdrawn or has lapsed');
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    expect(bob.asked).toHaveLength(1);
  }, 300_000);

  it('a host without URL elicitation gets the link in the error; opened by another user, it attaches nothing', async () => {
    const carol = await host('carol');
    const r = await whoami(carol.client);
    expect(r.isError).toBe(true);
    const link = /(http:\/\/\S+\/oauth\/consent\/[A-Za-z0-9_-]+)/.exec(text(r))?.[1];
    expect(link, text(r)).toBeDefined();
    expect(text(r)).toContain('user "carol" has not connected theirs');
    // Bob opens carol's link and signs in as himself.
    const page = await openConsent(link!, 'bob', 'bob-at-tracker');
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('made for another user');
    expect(await tokensOf('carol')).toBeUndefined();
    // The link worked once: opened again, it is gone.
    expect((await fetch(link!, { redirect: 'manual' })).status).toBe(410);
  }, 300_000);

  it('a host that fails the URL elicitation still gets the link in the error', async () => {
    const erin = await host('erin', 'erin-at-tracker', true);
    const r = await whoami(erin.client);
    expect(erin.asked).toHaveLength(1);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Show the user this link to connect it .*: http:\/\/127\.0\.0\.1:\d+\/oauth\/consent\/[A-Za-z0-9_-]+ /);
    expect(await tokensOf('erin')).toBeUndefined();
  }, 300_000);

  it('an upstream authorization that comes back to another browser attaches nothing', async () => {
    const carol = await host('carol');
    const link = /(http:\/\/\S+\/oauth\/consent\/[A-Za-z0-9_-]+)/.exec(text(await whoami(carol.client)))?.[1];
    expect(link).toBeDefined();
    // Carol signs in herself, but the upstream's redirect is completed in someone else's browser (a forwarded authorization URL).
    const other = new Browser({ [new URL(upstream.mcpUrl).origin]: { account: 'mallory-at-tracker' } });
    const page = await openConsent(link!, 'carol', 'carol-at-tracker', other);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('started in another browser');
    expect(await tokensOf('carol')).toBeUndefined();
  }, 300_000);

  it('per-user upstreams with hosts signing in need the consent page to sign its visitors in too', () => {
    const without = { ...loaded, config: { ...loaded.config, per_user: { ...loaded.config.per_user, sign_in: undefined } } };
    expect(() => checkPerUser(without)).toThrow(/per_user\.sign_in.*act per user and hosts sign in with http\.oauth/s);
    expect(() => checkPerUser(loaded)).not.toThrow();
  });

  it("consent links start at per_user.public_url, else at the gateway's resource without /mcp", () => {
    expect(consentBaseOf(loaded, 'http://unused.example')).toBe(base);
    const pub = { ...loaded, config: { ...loaded.config, per_user: { ...loaded.config.per_user, public_url: 'https://mcp.example.com/' } } };
    expect(consentBaseOf(pub, 'http://unused.example')).toBe('https://mcp.example.com');
  });

  it("logging one user out leaves the other's tokens; the logged-out user is asked again", async () => {
    const out: string[] = [];
    expect(await authCommand(loaded, 'tracker', { users: true, out: (l) => out.push(l) })).toBe(0);
    expect(out.filter((l) => !l.includes(' users ')).map((l) => l.split('\t')[0])).toEqual(['alice', 'bob']);
    expect(await authCommand(loaded, 'tracker', { logout: true, user: 'alice', out: (l) => out.push(l) })).toBe(0);
    expect(out.at(-1)).toContain('for user "alice"');
    expect(await tokensOf('alice')).toBeUndefined();
    expect(await tokensOf('bob')).toBeDefined();
    expect(text(await whoami(bob.client))).toMatch(/ account bob-at-tracker$/);
    expect(bob.asked).toHaveLength(1);
    expect(text(await whoami(alice.client))).toMatch(/ account alice-at-tracker$/);
    expect(alice.asked).toHaveLength(3);
  }, 300_000);
});

/**
 * A gateway with one per-user upstream (`tracker`, `auth: { oauth, per_user: true }`) on
 * loopback, for the per-user tests: a real OpenID provider (oidc-provider, idp.ts) that
 * hosts and the consent page sign in with, a real OAuth-protected MCP upstream with its own
 * authorization server (test/upstream/authServer.ts; which account a person signs in with
 * there is their browser's `account` cookie), the gateway's HTTP face in process, the
 * operator's own (catalog) consent given, and SDK clients as hosts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type ElicitRequestURLParams } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import type { UpstreamProtocol } from '../../src/config/schema.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { personKey } from '../../src/store/people.js';
import { authCommand } from '../../src/upstream/auth/command.js';
import { startProtectedServer, type ProtectedServer, type ProtectedServerOptions } from '../upstream/authServer.js';
import { Browser } from './browser.js';
import { startIdp, type Idp } from './idp.js';
import { freePort } from './process.js';
import type { Backend } from './stores.js';

export const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

/** A consent link in a message. */
export const linkIn = (message: string) => /(http:\/\/\S+\/oauth\/consent\/[A-Za-z0-9_-]+)/.exec(message)?.[1];

export interface Host {
  client: Client;
  /** The URL elicitations the host received. */
  asked: ElicitRequestURLParams[];
}

export interface PerUserGateway {
  idp: Idp;
  upstream: ProtectedServer;
  loaded: LoadedConfig;
  gateway: Gateway;
  /** The gateway's HTTP face, `http://127.0.0.1:<port>`. */
  base: string;
  /**
   * Plays the user's browser on a consent link: the gateway sends it to the identity
   * provider, where it signs in as `login`; then to the upstream's authorization server,
   * where it is signed in to `account`; then back to the gateway.
   * @param finisher another browser that takes over at the upstream's authorization, if given.
   * @returns the gateway's last answer (the "connected" page, or a refusal).
   */
  openConsent(link: string, login: string, account: string, finisher?: Browser): Promise<Response>;
  /**
   * A host signed in as `user` (a token of the identity provider's key); with URL
   * elicitation, the user consents as `account` when asked (or the host fails the request, `failing`).
   */
  host(user: string, account?: string, failing?: boolean): Promise<Host>;
  /** The user's stored tokens of `tracker` (JSON), if any. */
  /** The stored tokens of a signed-in user (by subject) or, with `token`, of a static token's user (by user_id). */
  tokensOf(user: string, kind?: 'signed-in' | 'token'): Promise<string | undefined>;
  /** Stores `tokens` as the per-user tokens of `user` (as tokensOf names them). */
  seedTokens(user: string, kind: 'signed-in' | 'token', tokens: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts everything on `backend` with `personas` (personas.yaml text; the persona `staff`,
 * which every host's token lands in), the identity provider's `users` and, beside them,
 * static `tokens` (http.tokens); `upstreamOptions` for the upstream (stateful sessions, its
 * own MCP server) and the revision the gateway speaks to it (`protocol`, default `auto`).
 */
export async function startPerUserGateway(
  backend: Backend,
  personas: string,
  users: string[],
  tokens: { token: string; persona: string; user_id: string }[] = [],
  upstreamOptions: ProtectedServerOptions & { protocol?: UpstreamProtocol } = {},
): Promise<PerUserGateway> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const resource = `${base}/mcp`;
  const { protocol, ...serverOptions } = upstreamOptions;
  const upstream = await startProtectedServer(serverOptions);
  const idp = await startIdp({
    resources: [resource],
    scope: 'mcp:tools',
    accounts: Object.fromEntries(users.map((u) => [u, { groups: ['staff'] }])),
    services: {},
    publicClient: { id: 'test-host', redirectUri: 'http://127.0.0.1:8976/callback' },
    webClient: { id: 'tc-consent', redirectUri: `${base}/oauth/signin/callback` },
    introspector: { id: 'tool-curator', secret: 'introspection-secret-0123456789abcdef' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'tc-peruser-'));
  writeFileSync(join(dir, 'personas.yaml'), personas);
  const config = {
    upstreams: { tracker: { url: upstream.mcpUrl, auth: { oauth: {}, per_user: true }, ...(protocol && { protocol }) } },
    curator: { mode: 'none' },
    store: await backend.fresh(),
    policy: { personas: join(dir, 'personas.yaml') },
    http: { oauth: { issuer: idp.issuer, resource, scopes: ['mcp:tools'], personas: [{ persona: 'staff', when: { claim: 'groups', includes: 'staff' } }] }, ...(tokens.length > 0 && { tokens }) },
    per_user: { sign_in: { client_id: 'tc-consent' }, wait_seconds: 120 },
    timeouts: { startup_ms: 60_000, call_ms: 60_000, call_max_ms: 300_000 },
  };
  writeFileSync(join(dir, 'gateway.config.yaml'), JSON.stringify(config));
  const loaded = loadConfig(join(dir, 'gateway.config.yaml'));
  // The operator's consent: the gateway's own authorization, which only lists the tools.
  const lines: string[] = [];
  const consented = authCommand(loaded, 'tracker', {
    out: (line) => {
      lines.push(line);
      if (line.startsWith('http')) void fetch(line, { redirect: 'manual' }).then((r) => fetch(r.headers.get('location')!));
    },
  });
  expect(await consented, lines.join('\n')).toBe(0);
  const gateway = await Gateway.start(loaded, { noEmbedder: true });
  const face: HttpFace = await serveHttp(gateway, port, '127.0.0.1');
  const clients: Client[] = [];
  const keyOf = (user: string, kind: 'signed-in' | 'token') => personKey(kind === 'token' ? { kind, userId: user } : { kind, issuer: idp.issuer, subject: user });

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

  async function host(user: string, account?: string, failing = false): Promise<Host> {
    const now = Math.floor(Date.now() / 1000);
    const token = await idp.mint({ iss: idp.issuer, aud: resource, sub: user, scope: 'mcp:tools', groups: ['staff'], iat: now, exp: now + 600 });
    const client = new Client({ name: `host-of-${user}`, version: '1.0.0' }, { capabilities: account ? { elicitation: { url: {} } } : {} });
    const asked: ElicitRequestURLParams[] = [];
    if (account) {
      client.setRequestHandler('elicitation/create', async (req) => {
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

  return {
    idp,
    upstream,
    loaded,
    gateway,
    base,
    openConsent,
    host,
    tokensOf: (user, kind = 'signed-in') => gateway.store.oauth.get({ upstream: 'tracker', subject: keyOf(user, kind), url: upstream.mcpUrl }, 'tokens'),
    seedTokens: (user, kind, tokens) => gateway.store.oauth.set({ upstream: 'tracker', subject: keyOf(user, kind), url: upstream.mcpUrl }, 'tokens', tokens),
    close: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await face.close();
      await gateway.close();
      await idp.close();
      await upstream.close();
    },
  };
}

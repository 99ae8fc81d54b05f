/**
 * What the approvers' tests share: hosts signed in with the test identity provider
 * (test/helpers/idp.ts) through the authorization code flow with PKCE, as the host's
 * public client; a browser signed in on the approvals page through the page's own client;
 * and the page's own forms, posted as that browser would.
 */
import {
  Client,
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  startAuthorization,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import type { Approval, ApprovalsPart } from '../../src/store/types.js';
import { Browser } from './browser.js';
import { startIdp, type AccountClaims, type Idp } from './idp.js';
import { freePort } from './process.js';

/** The redirect URI of the hosts' public client (`test-host`). */
export const HOST_REDIRECT = 'http://127.0.0.1:8976/callback';

/**
 * The identity provider of the approvers' tests, for a gateway at `base`: `accounts` (by
 * login), the hosts' public client `test-host` and the approvals page's client
 * `tc-approvals`, tokens for the gateway's resource `<base>/mcp`.
 */
export const startApproversIdp = (base: string, accounts: Record<string, AccountClaims>): Promise<Idp> =>
  startIdp({
    resources: [`${base}/mcp`],
    scope: 'mcp:tools',
    accounts,
    services: {},
    publicClient: { id: 'test-host', redirectUri: HOST_REDIRECT },
    webClients: [{ id: 'tc-approvals', redirectUri: `${base}/approvals/signin/callback` }],
    introspector: { id: 'tool-curator', secret: 'introspection-secret-0123456789abcdef' },
  });

/** A free loopback port for a gateway, its base URL and resource, and the identity provider of the approvers' tests for it with `accounts`. */
export async function approversIdpOnFreePort(accounts: Record<string, AccountClaims>): Promise<{ port: number; base: string; resource: string; idp: Idp }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  return { port, base, resource: `${base}/mcp`, idp: await startApproversIdp(base, accounts) };
}

/** A host's access token for `login`, for the gateway's `resource`: the authorization code flow with PKCE as the host's client, through the SDK's client functions. */
export async function hostToken(idp: Idp, resource: string, login: string): Promise<string> {
  const metadata = await discoverAuthorizationServerMetadata(idp.issuer);
  const clientInformation = { client_id: 'test-host' };
  const { authorizationUrl, codeVerifier } = await startAuthorization(idp.issuer, { metadata, clientInformation, redirectUrl: HOST_REDIRECT, scope: 'openid mcp:tools', resource: new URL(resource) });
  const back = await idp.authorize(authorizationUrl, login);
  const tokens = await exchangeAuthorization(idp.issuer, { metadata, clientInformation, authorizationCode: back.searchParams.get('code')!, iss: back.searchParams.get('iss') ?? undefined, codeVerifier, redirectUri: HOST_REDIRECT, resource: new URL(resource) });
  return tokens.access_token;
}

/** An MCP client of the gateway at `mcpUrl` presenting the bearer `token` (an access token, or a static token of http.tokens). */
export async function bearerHost(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'signed-in-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** Calls the gateway's `call_tool` for upstream tool `name` with `args`. */
export const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, { timeout: 120_000 })) as CallToolResult;

/** The one pending request of `user`'s call with `args`. */
export async function pendingOf(approvals: ApprovalsPart, user: string, args: Record<string, unknown>): Promise<Approval> {
  const mine = (await approvals.list()).filter((a) => a.userId === user && Object.entries(args).every(([k, v]) => a.args[k] === v));
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

/**
 * A browser signed in on the approvals page as `login`, through the identity provider;
 * and the page's answer to the sign-in. `page` serves the page; the provider redirects to
 * `base` (the page's client's redirect URI), which the browser maps to `page`.
 */
export async function signInAt(idp: Idp, base: string, login: string, page = base, browser = new Browser()): Promise<{ browser: Browser; landed: Response }> {
  const toIdp = await browser.get(`${page}/approvals`);
  expect(toIdp.status).toBe(302);
  const location = new URL(toIdp.headers.get('location')!);
  expect(location.origin).toBe(idp.issuer);
  expect(location.searchParams.get('client_id')).toBe('tc-approvals');
  expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  const back = await idp.authorize(location, login, `${base}/approvals/signin/callback`);
  return { browser, landed: await browser.get(`${page}${back.pathname}${back.search}`) };
}

/** Posts the page's own form for `verb` on request `id` (as the page at `page` shows it), as the signed-in browser would. */
export async function decideOn(browser: Browser, page: string, id: string, verb: 'approve' | 'deny'): Promise<Response> {
  const html = await (await browser.get(`${page}/approvals`)).text();
  const form = new RegExp(`action="/approvals/${id}/${verb}"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="statement" value="([^"]+)">`).exec(html);
  expect(form, html).not.toBeNull();
  return browser.post(`${page}/approvals/${id}/${verb}`, { csrf: form![1]!, statement: form![2]! });
}

/**
 * A local authorization server and OAuth-protected MCP server for the upstream/auth
 * tests, built from the SDK's server-side auth pieces (the frozen v1 `mcpAuthRouter` of
 * `@modelcontextprotocol/server-legacy`, which v2 has no replacement for, and
 * `requireBearerAuth` of `@modelcontextprotocol/express`) on one loopback port: dynamic registration, authorization code
 * with PKCE (approved at once, as if the user clicked "allow"), refresh tokens, a
 * client_credentials grant, and switches to expire or revoke what it issued. Its tool
 * `write_note` needs the scope `notes:write` beyond the advertised `tools:read`: without
 * it the server answers 403 `insufficient_scope` (step-up). Which account a person signs
 * in with is the `account` cookie of the browser that visits /authorize (a session at the
 * upstream's own login); tokens issued through it act for that account. Its resources
 * (`notes://mine`, `notes://secret`), prompt (`greeting`, with a completable `topic`) and
 * subscriptions answer for the account of the token that asks.
 *
 * Stateless by default (a server and transport per request). With `{ stateful: true }` it
 * keeps sessions (and their GET streams) as most servers do: `touch(uri)` sends
 * `notifications/resources/updated` to the sessions subscribed to it, and `forgetSessions()`
 * plays a restart (the streams end, and the old session ids get 404); `stop()` and
 * `restart()` end the listener and every connection, then listen again on the same port.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { getOAuthProtectedResourceMetadataUrl, requireBearerAuth } from '@modelcontextprotocol/express';
import {
  completable,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  type AuthInfo,
  type OAuthClientInformationFull,
  type OAuthTokens,
} from '@modelcontextprotocol/server';
import { InvalidGrantError, mcpAuthRouter, type AuthorizationParams, type OAuthServerProvider } from '@modelcontextprotocol/server-legacy/auth';
import express, { type Response } from 'express';
import { z } from 'zod';

interface Issued {
  clientId: string;
  /** The account the person signed in with at /authorize; none for client_credentials and cookie-less browsers. */
  account?: string;
  scopes: string[];
  expiresAt: number;
  resource?: string;
}

export const M2M_CLIENT = { id: 'm2m-client', secret: 'm2m-secret-0123456789' };

export class TestAuthProvider implements OAuthServerProvider {
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, { client: string; params: AuthorizationParams; account?: string }>();
  private readonly access = new Map<string, Issued>();
  private readonly refresh = new Map<string, Issued>();
  /** Lifetime of new access tokens. */
  private readonly accessTtlMs = 3_600_000;
  authorizations = 0;
  /** The scopes each authorization asked for, space-separated, in order. */
  readonly scopesAsked: string[] = [];
  refreshes = 0;
  /** Every secret this server handed out (tokens, client secrets): none may appear in the gateway's output. */
  readonly secrets: string[] = [M2M_CLIENT.secret];

  clientsStore = {
    getClient: async (id: string) => this.clients.get(id),
    registerClient: async (client: OAuthClientInformationFull) => {
      this.clients.set(client.client_id, client);
      if (client.client_secret) this.secrets.push(client.client_secret);
      return client;
    },
  };

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.authorizations++;
    this.scopesAsked.push((params.scopes ?? []).join(' '));
    const code = randomUUID();
    const account = /(?:^|;\s*)account=([^;]+)/.exec(res.req.headers.cookie ?? '')?.[1];
    this.codes.set(code, { client: client.client_id, params, account });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) throw new InvalidGrantError('unknown authorization code');
    return entry.params.codeChallenge;
  }

  issue(clientId: string, scopes: string[], resource?: string, withRefresh = true, account?: string): OAuthTokens {
    const token = `at-${randomUUID()}`;
    const info = { clientId, scopes, expiresAt: Date.now() + this.accessTtlMs, resource, account };
    this.access.set(token, info);
    this.secrets.push(token);
    const tokens: OAuthTokens = { access_token: token, token_type: 'bearer', expires_in: Math.round(this.accessTtlMs / 1000), scope: scopes.join(' ') };
    if (withRefresh) {
      const refresh = `rt-${randomUUID()}`;
      this.refresh.set(refresh, { ...info, expiresAt: Number.MAX_SAFE_INTEGER });
      this.secrets.push(refresh);
      tokens.refresh_token = refresh;
    }
    return tokens;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, _redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.client !== client.client_id) throw new InvalidGrantError('authorization code not issued to this client');
    this.codes.delete(code);
    return this.issue(client.client_id, entry.params.scopes ?? [], resource?.href, true, entry.account);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    const info = this.refresh.get(refreshToken);
    if (!info || info.clientId !== client.client_id) throw new InvalidGrantError('refresh token revoked or unknown');
    this.refreshes++;
    this.refresh.delete(refreshToken);
    return this.issue(client.client_id, info.scopes, resource?.href ?? info.resource, true, info.account);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = this.access.get(token);
    if (!info || info.expiresAt < Date.now()) throw new OAuthError(OAuthErrorCode.InvalidToken, 'token expired or revoked');
    return {
      token,
      clientId: info.clientId,
      scopes: info.scopes,
      expiresAt: Math.floor(info.expiresAt / 1000),
      ...(info.resource && { resource: new URL(info.resource) }),
      ...(info.account && { extra: { account: info.account } }),
    };
  }

  /** Lets every access token issued so far expire (refresh tokens stay valid). */
  expireAccessTokens(): void {
    for (const info of this.access.values()) info.expiresAt = 0;
  }

  /** One person withdraws their grant (in the provider's account settings): that account's tokens stop working, others' stay. */
  revokeAccount(account: string): void {
    for (const m of [this.access, this.refresh]) for (const [token, info] of m) if (info.account === account) m.delete(token);
  }

  /** Withdraws every grant: access and refresh tokens stop working. */
  revokeAll(): void {
    this.access.clear();
    this.refresh.clear();
  }
}

export interface ProtectedServer {
  provider: TestAuthProvider;
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  mcpUrl: string;
  /** Token requests seen, by grant type. */
  grants: string[];
  /** resources/subscribe requests seen, as `<account> <uri>`. */
  subscriptions: string[];
  /** Stateful only: tells the sessions subscribed to `uri` that it changed; returns how many. */
  touch(uri: string): Promise<number>;
  /** Stateful only: ends every session, as a restart would. */
  forgetSessions(): Promise<void>;
  /** Stops listening and cuts every connection, as the process ending would: its MCP sessions are gone (issued tokens stay valid, as at an authorization server of its own). */
  stop(): Promise<void>;
  /** Listens again on the same port after stop(); the first `refuse` new sessions get 503, as an upstream still starting would answer (default none). */
  restart(refuse?: number): Promise<void>;
  close(): Promise<void>;
}

export interface ProtectedServerOptions {
  /** Keep MCP sessions (and their GET streams). */
  stateful?: boolean;
  /** Serves /mcp (POST and GET) after the bearer check instead of the `whoami` server: another MCP server behind the same authorization. */
  mcp?: (req: express.Request, res: Response, body?: unknown) => Promise<void>;
}

/** Starts the authorization server and the protected MCP server (tool `whoami`, or `options.mcp`) on one loopback port. */
export async function startProtectedServer(options: ProtectedServerOptions = {}): Promise<ProtectedServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const mcpUrl = `${base}/mcp`;
  const provider = new TestAuthProvider();
  const grants: string[] = [];
  const subscriptions: string[] = [];
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  app.post('/token', (req, res, next) => {
    grants.push(String(req.body?.grant_type));
    if (req.body?.grant_type !== 'client_credentials') return next();
    // The SDK's token handler has no client_credentials grant; this test server adds one
    // (client_secret_basic or client_secret_post, whichever the client picked from the metadata).
    const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
    const [id, secret] = req.headers.authorization ? basic.split(':').map(decodeURIComponent) : [req.body.client_id, req.body.client_secret];
    if (id !== M2M_CLIENT.id || secret !== M2M_CLIENT.secret) return res.status(401).json({ error: 'invalid_client' });
    res.json(provider.issue(id, String(req.body.scope ?? '').split(' ').filter(Boolean), req.body.resource, false));
  });
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: new URL(mcpUrl), scopesSupported: ['tools:read'] }));
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl });
  /** write_note without `notes:write`: 403 insufficient_scope, as RFC 6750 and the MCP spec (step-up) describe. */
  const stepUp = (req: express.Request, res: Response, next: express.NextFunction) => {
    const body = req.body as { method?: string; params?: { name?: string } } | undefined;
    if (body?.method !== 'tools/call' || body.params?.name !== 'write_note' || req.auth?.scopes.includes('notes:write')) return next();
    res
      .status(403)
      .set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="notes:write", resource_metadata="${resourceMetadataUrl}"`)
      .json({ error: 'insufficient_scope', error_description: 'write_note needs notes:write' });
  };
  /** Stateful sessions by id; the servers subscribed to each URI. */
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  /** New sessions still to refuse with 503 (restart). */
  let refusing = 0;
  const subscribers = new Map<string, Set<McpServer>>();
  const build = () => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Says which OAuth client the call came through', annotations: { readOnlyHint: true } }, async (ctx) => ({
      content: [{ type: 'text', text: `client ${ctx.http?.authInfo?.clientId} scopes [${ctx.http?.authInfo?.scopes.join(' ')}]${ctx.http?.authInfo?.extra?.account ? ` account ${ctx.http.authInfo.extra.account}` : ''}` }],
    }));
    server.registerTool('write_note', { description: 'Writes a note (needs the scope notes:write)', annotations: { readOnlyHint: false, destructiveHint: false } }, async (ctx) => ({
      content: [{ type: 'text', text: `note written with scopes [${ctx.http?.authInfo?.scopes.join(' ')}]` }],
    }));
    const account = (auth: AuthInfo | undefined) => String(auth?.extra?.account ?? `client ${auth?.clientId}`);
    server.registerResource('my-notes', 'notes://mine', { description: "The account's own notes", mimeType: 'text/plain' }, async (uri, ctx) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `notes of ${account(ctx.http?.authInfo)}` }],
    }));
    server.registerResource('secret-notes', 'notes://secret', { mimeType: 'text/plain' }, async (uri, ctx) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `secret of ${account(ctx.http?.authInfo)}` }],
    }));
    const topics = ['daily', 'weekly'];
    server.registerPrompt('greeting', { description: 'Greets the account', argsSchema: z.object({ topic: completable(z.string(), (v) => topics.filter((t) => t.startsWith(v))) }) }, async ({ topic }, ctx) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${account(ctx.http?.authInfo)}, about ${topic}` } }],
    }));
    server.server.registerCapabilities({ resources: { subscribe: true } });
    server.server.setRequestHandler('resources/subscribe', (req, ctx) => {
      subscriptions.push(`${account(ctx.http?.authInfo)} ${req.params.uri}`);
      subscribers.set(req.params.uri, (subscribers.get(req.params.uri) ?? new Set()).add(server));
      return {};
    });
    return server;
  };
  const unknownSession = (res: Response) => res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  if (options.mcp) {
    const serve = options.mcp;
    app.post('/mcp', express.json(), bearer, (req, res) => void serve(req, res, req.body));
    app.get('/mcp', bearer, (req, res) => void serve(req, res));
  }
  app.post('/mcp', express.json(), bearer, stepUp, async (req, res) => {
    if (options.stateful) {
      const sid = req.headers['mcp-session-id'];
      const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (known) return known.handleRequest(req, res, req.body);
      if (sid !== undefined) return unknownSession(res);
      if (refusing > 0) {
        refusing--;
        return res.status(503).json({ error: 'starting' });
      }
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void sessions.set(id, transport) });
      await build().connect(transport);
      return transport.handleRequest(req, res, req.body);
    }
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await build().connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (req, res) => {
    if (!options.stateful) return res.status(405).end();
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
    return known ? known.handleRequest(req, res) : unknownSession(res);
  });
  http.on('request', app);
  const close = () =>
    new Promise<void>((resolve) => {
      if (!http.listening) return resolve();
      http.close(() => resolve());
      http.closeAllConnections();
    });
  return {
    provider,
    mcpUrl,
    grants,
    subscriptions,
    touch: async (uri) => {
      const servers = [...(subscribers.get(uri) ?? [])];
      await Promise.all(servers.map((server) => server.server.sendResourceUpdated({ uri })));
      return servers.length;
    },
    forgetSessions: async () => {
      const ending = [...sessions.values()];
      sessions.clear();
      subscribers.clear();
      await Promise.all(ending.map((t) => t.close()));
    },
    stop: async () => {
      await close();
      sessions.clear();
      subscribers.clear();
    },
    restart: (refuse = 0) => {
      refusing = refuse;
      return new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
    },
    close,
  };
}

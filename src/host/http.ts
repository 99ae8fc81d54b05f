/**
 * Streamable HTTP face (`serve --http PORT`, path /mcp). In order, a request is refused
 * with 403 when its Host or Origin is not allowed (DNS rebinding, hostGuard.ts), 404 off
 * /mcp, 405 for a method MCP does not use, 401 without a valid bearer token from
 * `http.tokens` (the token decides persona and user; `http.anonymous` gives requests
 * without any token an identity, on a loopback address only) or, with `http.oauth`, an
 * access token from the organisation's identity provider (host/auth/: 401 with the
 * protected-resource metadata pointer, 403 when its claims map to no persona), 404 for an
 * unknown or closed session id. One Session per MCP session id, or one per request with
 * `http.stateless` (stateless.ts). /healthz, /readyz and /metrics are answered first (ops.ts).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { approvalStanding } from '../guards/standing.js';
import { approvalsPage } from '../pages/approvals.js';
import { ApproverSessions } from '../pages/approverSignIn.js';
import { checkContinue, MAX_BODY_BYTES, readBody, reply } from './body.js';
import type { ProtocolEra } from './era.js';
import { announceChanges, isListen, listenSlots } from './listen.js';
import { checkPerUser, consentBaseOf, consentPage } from '../pages/consent.js';
import { hostGuard, isLoopback } from './hostGuard.js';
import { checkApprovers, checkHostOAuth } from './auth/config.js';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { ConfirmVia } from '../config/schema.js';
import type { Principal } from '../guards/types.js';
import type { RemoteUpstreamConfig } from '../config/schema.js';
import { Policy } from '../policy/policy.js';
import { isPerUser } from '../upstream/auth/index.js';
import { log } from '../log.js';
import type { Gateway } from '../gateway/gateway.js';
import type { HostAuth } from './auth/index.js';
import { checkMetrics, opsRoutes } from './ops.js';
import { InFlightIds, requestIds } from './sameId.js';
import { sameSecret } from './secret.js';
import { checkStateless, serveStateless } from './stateless.js';
import { Session } from './session.js';

interface TokenEntry {
  token: string;
  persona: string;
  user_id?: string;
  confirm_via?: ConfirmVia;
}

/** Who a request is: a token's entry (or the anonymous identity, or a signed-in principal's), keyed for session ownership. */
type Who = Pick<TokenEntry, 'persona' | 'user_id' | 'confirm_via'> & { key: string; principal?: Principal };

/** A static token's fingerprint: SHA-256, the first 16 bytes in hex (never the token itself). */
export function credentialOf(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 32);
}

/** Session owner key of requests without a token under `http.anonymous` (never a valid token: tokens have 16+ characters). */
const ANONYMOUS = 'anonymous';

/** The token entry for a request's `Authorization: Bearer …` header, if any matches. */
export function authenticate(req: IncomingMessage, tokens: TokenEntry[]): TokenEntry | undefined {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m) return undefined;
  return tokens.find((t) => sameSecret(t.token, m[1]!));
}

/**
 * 401 for a request without a valid bearer token, when the gateway's tokens are static
 * (`http.tokens`): a JSON-RPC error the host can show, and a `WWW-Authenticate` challenge
 * that names the problem (RFC 6750 §3) and carries no `resource_metadata`, since there is
 * no authorization server to discover.
 */
function unauthorized(res: ServerResponse, sentToken: boolean): void {
  const [error, description] = sentToken ? ['invalid_token', 'the bearer token is not valid'] : ['invalid_request', 'a bearer token is required'];
  reply(
    res,
    401,
    { jsonrpc: '2.0', error: { code: -32000, message: `unauthorized: ${description}; send Authorization: Bearer <token>, a token of http.tokens in the gateway's config` }, id: null },
    { 'www-authenticate': `Bearer realm="tool-curator", error="${error}", error_description="${description}"` },
  );
}

/**
 * How long an idle kept-alive connection stays open: 65 s, longer than hosts keep theirs
 * (Node's fetch 4 s, browsers and load balancers about a minute), so the host closes it
 * first. With Node's 5 s default, a gateway whose event loop was busy past that deadline
 * ran the timer on waking, before reading the request the host had just sent on the
 * connection, and closed it: the host saw `fetch failed` (ECONNRESET, or through HAProxy
 * UND_ERR_SOCKET) under load. Reproduced and measured in docs/PERFORMANCE.md ("A fleet
 * behind HAProxy").
 */
const KEEP_ALIVE_MS = 65_000;

/**
 * Every token must name a persona personas.yaml defines, and carry the user id the
 * persona's identity needs: otherwise its sessions could not make a single call. Runs the
 * `http.oauth` and `confirmation.approvers` checks too, before anything starts.
 * @throws ConfigError naming `http.tokens.<i>` or the key at fault.
 */
export function checkTokens(loaded: LoadedConfig, host = loaded.config.http.host): void {
  if (loaded.httpError) throw loaded.httpError;
  const policy = new Policy(loaded.personas);
  const { tokens, anonymous } = loaded.config.http;
  const check = (key: string, persona: string, userId: string | undefined) => {
    try {
      policy.identityValues(persona, userId);
    } catch (err) {
      throw new ConfigError(loaded.file, key, (err as Error).message);
    }
  };
  tokens.forEach((t, i) => check(`http.tokens.${i}`, t.persona, t.user_id));
  checkHostOAuth(loaded);
  checkApprovers(loaded);
  if (!anonymous) return;
  if (!isLoopback(host)) {
    throw new ConfigError(
      loaded.file,
      'http.anonymous',
      `requests without a token are served only on a loopback address (127.0.0.1, ::1, localhost), and the gateway binds "${host}": ` +
        'anyone who can reach it would act as this persona. Bind http.host to 127.0.0.1 or give each host a token in http.tokens',
    );
  }
  check('http.anonymous', anonymous.persona, anonymous.user_id);
}

export interface HttpFace {
  server: HttpServer;
  /** The port actually bound (useful with port 0). */
  port: number;
  close(): Promise<void>;
}

/** The approvals page's sign-in of approvers, where `confirmation.approvers` is set (checkApprovers has run). */
function approverSessions(gateway: Gateway, hostAuth: HostAuth | undefined, host: string, port: number): ApproverSessions | undefined {
  const { confirmation, per_user, http } = gateway.loaded.config;
  if (!hostAuth || !http.oauth || !confirmation.approvers) return undefined;
  return new ApproverSessions({
    signIn: hostAuth.browserAs((confirmation.approvers_sign_in ?? per_user.sign_in)!),
    // Read at each use: a reload changes them in place (gateway.ts reload).
    rules: () => confirmation.approvers!,
    mayApproveOwn: () => confirmation.approvers_may_approve_own_calls,
    issuer: http.oauth.issuer,
    // With http.oauth the base comes from its resource (or per_user.public_url); the address is only the fallback's form.
    base: consentBaseOf(gateway.loaded, `http://${host}:${port}`),
    sessionMinutes: confirmation.approvers_session_minutes,
    flows: gateway.store.oauth,
  });
}

/** Serves the gateway over Streamable HTTP on `host:port`. Resolves once listening. */
export async function serveHttp(gateway: Gateway, port: number, host = gateway.loaded.config.http.host): Promise<HttpFace> {
  const { tokens, approvals_token, session_idle_minutes, max_sessions_per_token, anonymous, allowed_hosts, allowed_origins, oauth, stateless } = gateway.loaded.config.http;
  checkTokens(gateway.loaded, host);
  checkMetrics(gateway.loaded, host);
  checkStateless(gateway.loaded);
  checkPerUser(gateway.loaded);
  // Loaded only when configured: the JOSE and OAuth libraries cost every other start-up time.
  const hostAuth = oauth && (await import('./auth/index.js')).createHostAuth(gateway.loaded);
  if (tokens.length === 0 && !anonymous && !oauth) log.warn('http.tokens is empty: every MCP request will get 401; add a token to gateway.config.yaml');
  if (anonymous) log.warn({ persona: anonymous.persona }, 'http.anonymous: requests without a token act as this persona (loopback only)');
  const refuse = hostGuard({ bindHost: host, allowedHosts: allowed_hosts, allowedOrigins: allowed_origins });
  /** Who a request is by a static token: a token's entry, the anonymous identity, or nobody. */
  const identify = (req: IncomingMessage): (TokenEntry & { key: string; principal?: Principal }) | undefined => {
    if (req.headers.authorization === undefined) return anonymous && { ...anonymous, token: ANONYMOUS, key: ANONYMOUS };
    const entry = authenticate(req, tokens);
    return entry && { ...entry, key: entry.token };
  };
  const sessions = new Map<string, { transport: NodeStreamableHTTPServerTransport; session: Session; token: string; lastSeen: number; inFlight: InFlightIds }>();
  /** Sessions per token key, those still initializing included: bounded by http.max_sessions_per_token. */
  const perToken = new Map<string, number>();
  // Hosts often vanish without DELETE-ing their session: close the ones idle too long.
  const idleMs = session_idle_minutes * 60_000;
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (now - s.lastSeen > idleMs) {
        log.info({ session: id }, 'closing idle HTTP session');
        sessions.delete(id);
        void s.transport.close();
      }
    }
  }, Math.min(idleMs, 60_000));
  sweeper.unref();
  const standing = approvalStanding(gateway.approver, gateway.store.definitions, () => gateway.approvals.clock());
  const approvals = approvals_token ? approvalsPage(gateway.approvals, approvals_token, gateway.store, approverSessions(gateway, hostAuth, host, port), standing) : undefined;
  const ops = opsRoutes(gateway, { refuse, sessions: () => sessions.size });
  /** The per-user consent page, once the bound address is known (its default base URL). */
  let consent: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  const openSession = (who: Who, era: ProtocolEra = 'legacy') => new Session(gateway, {
    persona: who.persona,
    userId: who.user_id,
    transport: 'http',
    era,
    // A static token (or the anonymous identity): what binds its sealed states when no user is named (host/era.ts bindingOf).
    ...(!who.principal && { credential: credentialOf(who.key) }),
    ...(who.confirm_via && { confirmVia: who.confirm_via }),
    ...(who.principal && { principal: who.principal }),
  });
  // 2026-07-28 requests: the SDK's stateless handler, a Session per request for the identity
  // the checks above established (carried to the factory in authInfo.extra).
  const modern = createMcpHandler(
    ({ era, authInfo }) => {
      const who = authInfo?.extra?.who as Who | undefined;
      if (!who) throw new Error('a 2026 request reached the MCP handler without an identity');
      return openSession(who, era).served();
    },
    { legacy: 'reject', maxRequestBodySize: MAX_BODY_BYTES, onerror: (err) => log.debug({ err: err.message }, '2026 request refused or failed') },
  );
  const stopAnnouncing = announceChanges(gateway, modern.notify);
  const listens = listenSlots(max_sessions_per_token);
  const serveModern = toNodeHandler(modern, { maxRequestBodySize: MAX_BODY_BYTES, onerror: (err) => log.error({ err: err.stack }, '2026 request failed') });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (ops.route(req, res)) return;
    const refused = refuse(req);
    if (refused) return reply(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: refused }, id: null });
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (approvals?.(req, res)) return;
    if (consent?.(req, res)) return;
    if (hostAuth?.serveMetadata(req, res, path)) return;
    if (path !== '/mcp') return reply(res, 404, { error: 'not found; the MCP endpoint is /mcp' });
    if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) {
      return reply(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: `method ${req.method} not allowed; MCP uses POST, GET and DELETE` }, id: null }, { allow: 'GET, POST, DELETE' });
    }
    const who = identify(req) ?? (hostAuth ? await hostAuth.signIn(req, res) : undefined);
    if (!who) {
      // With http.oauth, signIn has answered already (401 with its challenge, 403).
      if (!hostAuth) unauthorized(res, req.headers.authorization !== undefined);
      return;
    }
    // One read of the body (bounded); then the era: a request carrying the 2026 `_meta`
    // envelope goes to the stateless 2026 handler, anything else is a 2025 request.
    const posted = req.method === 'POST' ? await readBody(req, res) : undefined;
    if (posted && !posted.ok) return;
    if (posted && !(await isLegacyRequest(await toWebRequest(req, posted.body), posted.body, { maxRequestBodySize: MAX_BODY_BYTES }))) {
      if (isListen(posted.body) && !listens.take(who.key, res)) {
        const message = `this token has ${listens.open(who.key)} open subscriptions/listen streams, the most http.max_sessions_per_token allows; close one first`;
        return reply(res, 429, { jsonrpc: '2.0', error: { code: -32000, message }, id: (posted.body as { id?: unknown }).id ?? null });
      }
      const auth: AuthInfo = { token: who.key, clientId: who.principal?.clientId ?? 'host', scopes: [], extra: { who } };
      return serveModern(Object.assign(req, { auth }), res, posted.body);
    }
    if (stateless) return serveStateless({ req, res, read: async () => posted ?? { ok: false }, open: () => openSession(who), metrics: ops.metrics });

    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (existing) {
      if (existing.token !== who.key) return reply(res, 403, { error: 'this session belongs to another token' });
      existing.lastSeen = Date.now();
      if (!posted) return existing.transport.handleRequest(req, res);
      return existing.inFlight.run(requestIds(posted.body), res, () => existing.transport.handleRequest(req, res, posted.body));
    }
    // A session id the gateway does not know (never issued, closed, or swept as idle): 404
    // tells the host to start a new session (MCP transports spec, "Session Management").
    if (sid !== undefined) return reply(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'session not found; send initialize to start a new one' }, id: null });
    if (!posted) return reply(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no MCP session id; send initialize first' }, id: null });
    const body = posted.body;
    if (!isInitializeRequest(body)) {
      return reply(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no MCP session id; send initialize first' }, id: null });
    }
    const open = perToken.get(who.key) ?? 0;
    if (open >= max_sessions_per_token) {
      const message = `this token has ${open} open MCP sessions, the most http.max_sessions_per_token allows; close one (HTTP DELETE with its Mcp-Session-Id) or wait until one is idle for http.session_idle_minutes`;
      return reply(res, 429, { jsonrpc: '2.0', error: { code: -32000, message }, id: (body as { id?: unknown }).id ?? null });
    }
    perToken.set(who.key, open + 1);
    const session = openSession(who);
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => session.identity.sessionId,
      onsessioninitialized: (id) => void sessions.set(id, { transport, session, token: who.key, lastSeen: Date.now(), inFlight: new InFlightIds() }),
    });
    let closed = false;
    transport.onclose = () => {
      if (closed) return;
      closed = true;
      const left = (perToken.get(who.key) ?? 1) - 1;
      if (left > 0) perToken.set(who.key, left);
      else perToken.delete(who.key);
      sessions.delete(session.identity.sessionId);
      void session.close();
    };
    await session.connect(transport);
    ops.metrics?.observe(transport);
    await transport.handleRequest(req, res, body);
    // The transport may refuse the initialize before a session exists (406 without
    // `Accept: text/event-stream`, 415, …): then nothing would ever close this Session,
    // which stays subscribed to the gateway's catalog events. Release it now.
    if (transport.sessionId === undefined) await transport.close();
  };

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: Error) => {
      log.error({ err: err.stack }, 'HTTP request failed');
      if (!res.headersSent) reply(res, 500, { error: 'internal error' });
    });
  };
  const server = createServer(serve);
  server.on('checkContinue', checkContinue(serve));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Node's defaults keep headersTimeout (60 s) above keepAliveTimeout (5 s); so does this.
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  if (approvals) gateway.approvalsPage = `http://${host}:${bound}/approvals`;
  if (gateway.users) {
    const base = consentBaseOf(gateway.loaded, `http://${host.includes(':') ? `[${host}]` : host}:${bound}`);
    const upstreams = Object.fromEntries(Object.entries(gateway.loaded.config.upstreams).filter(([, cfg]) => isPerUser(cfg))) as Record<string, RemoteUpstreamConfig>;
    consent = consentPage({ store: gateway.store, upstreams, base, signIn: hostAuth?.browser });
    gateway.consentBase = base;
  }
  log.info({ url: `http://${host}:${bound}/mcp`, approvals: approvals ? `http://${host}:${bound}/approvals` : 'off' }, 'serving MCP over Streamable HTTP');
  return {
    server,
    port: bound,
    close: async () => {
      clearInterval(sweeper);
      ops.close();
      stopAnnouncing();
      await modern.close();
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

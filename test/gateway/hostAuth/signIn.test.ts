/**
 * Hosts sign in with a real OpenID provider (oidc-provider on loopback) and reach the
 * university servers through the gateway's HTTP face: the provider's tokens, got by the
 * MCP SDK client's own OAuth support (client credentials; authorization code with PKCE),
 * land each host in the persona its claims say, with the user id its claims say injected
 * into calls. Every kind of bad token is refused, each in its own test. The gateway runs
 * in process (its audit log is read directly), the eight university servers as child
 * processes over stdio.
 */
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
  type OAuthClientInformation,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { base64url, decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { Gateway } from '../../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../../src/gateway/http.js';
import { startIdp, type Idp } from '../../helpers/idp.js';
import { freePort } from '../../helpers/process.js';
import { universityConfig } from '../../guards/university.js';

const SECRET = 'service-secret-0123456789abcdefghij';
const INTROSPECTION_SECRET = 'introspection-secret-0123456789abcdef';
const STATIC_TOKEN = 'static-student-token-0123456789';
const OTHER_RESOURCE = 'https://other.example/mcp';
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** A host's OAuth state for the authorization code flow: a pre-registered public client; the authorization URL is handed to the test's "browser". */
class BrowserHost implements OAuthClientProvider {
  authorizationUrl?: URL;
  private saved?: OAuthTokens;
  private verifier = '';
  constructor(
    private readonly clientId: string,
    readonly redirectUrl: string,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'test host', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation(): OAuthClientInformation {
    return { client_id: this.clientId };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('hosts sign in with the organisation identity provider (http.oauth)', () => {
  let idp: Idp;
  let gateway: Gateway;
  let face: HttpFace;
  let base: string;
  let resource: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    resource = `${base}/mcp`;
    const redirectUri = 'http://127.0.0.1:8976/callback';
    idp = await startIdp({
      resources: [resource, OTHER_RESOURCE],
      scope: 'mcp:tools',
      accounts: {
        alice: { groups: ['faculty', 'staff'], email: 'alice@uni.example', preferred_username: 'F007' },
        bob: { groups: ['students'], email: 'bob@student.uni.example', preferred_username: 'S0001' },
      },
      services: {
        'faculty-bot': { secret: SECRET, claims: { groups: ['faculty'], preferred_username: 'F003' } },
        'alumni-bot': { secret: SECRET, claims: { groups: ['alumni'], email: 'news@alumni.uni.example', preferred_username: 'A001' } },
        'opaque-bot': { secret: SECRET, claims: { groups: ['faculty'], preferred_username: 'F011' }, opaque: true },
      },
      publicClient: { id: 'test-host', redirectUri },
      introspector: { id: 'tool-curator', secret: INTROSPECTION_SECRET },
    });
    const { configPath } = universityConfig({
      http: {
        tokens: [{ token: STATIC_TOKEN, persona: 'student', user_id: 'S0003' }],
        oauth: {
          issuer: idp.issuer,
          resource,
          scopes: ['mcp:tools'],
          user_claim: 'preferred_username',
          introspection: { client_id: 'tool-curator', client_secret: '${TC_INTROSPECTION_SECRET}' },
          personas: [
            { persona: 'admin', when: { claim: 'realm_access.roles', includes: 'gateway-admin' } },
            { persona: 'faculty', when: { claim: 'groups', includes: 'faculty' } },
            { persona: 'student', when: { claim: 'email', domain: 'student.uni.example' } },
          ],
        },
      },
    });
    gateway = await Gateway.start(loadConfig(configPath, { ...process.env, TC_INTROSPECTION_SECRET: INTROSPECTION_SECRET }), { noEmbedder: true });
    face = await serveHttp(gateway, port, '127.0.0.1');
  }, 300_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await face?.close();
    await gateway?.close();
    await idp?.close();
  });

  async function connect(options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1]): Promise<Client> {
    const client = new Client({ name: 'signed-in-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), options));
    clients.push(client);
    return client;
  }

  /** What the gateway answers an initialize carrying this bearer token. */
  async function initializeWith(token: string): Promise<{ status: number; challenge: string; body: string }> {
    const r = await fetch(resource, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: INITIALIZE });
    const body = r.headers.get('content-type')?.includes('event-stream') ? '' : await r.text();
    return { status: r.status, challenge: r.headers.get('www-authenticate') ?? '', body };
  }

  /** A token the provider's key signs, for this gateway, with the faculty bot's claims unless overridden. */
  function minted(overrides: Record<string, unknown> = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return idp.mint({ iss: idp.issuer, aud: resource, sub: 'faculty-bot', client_id: 'faculty-bot', scope: 'mcp:tools', groups: ['faculty'], preferred_username: 'F003', iat: now, exp: now + 600, ...overrides });
  }

  /** Signs in as `login` through the authorization code flow with PKCE, driven by the SDK client's own OAuth support. */
  async function signInWithBrowser(login: string): Promise<Client> {
    const host = new BrowserHost('test-host', 'http://127.0.0.1:8976/callback');
    const first = new Client({ name: 'browser-host', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: host });
    await expect(first.connect(transport)).rejects.toThrow(UnauthorizedError);
    // The SDK found the provider through the gateway's metadata and asked for the gateway as the resource.
    expect(host.authorizationUrl?.origin).toBe(idp.issuer);
    expect(host.authorizationUrl?.searchParams.get('resource')).toBe(resource);
    expect(host.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await idp.authorize(host.authorizationUrl!, login);
    await transport.finishAuth(callback.searchParams);
    expect(decodeJwt(host.tokens()!.access_token)).toMatchObject({ sub: login, aud: resource });
    return connect({ authProvider: host });
  }

  it('serves its protected-resource metadata, at the MCP path and at the root, and mirrors the issuer metadata', async () => {
    const expected = { resource, authorization_servers: [idp.issuer], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'], resource_name: 'Tool Curator' };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await fetch(`${base}${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(await r.json()).toEqual(expected);
    }
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({ issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks`, introspection_endpoint: `${idp.issuer}/token/introspection` });
    expect((await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' })).status).toBe(405);
  });

  it('answers a request without a token with 401 pointing to the metadata and naming the scope', async () => {
    const r = await fetch(resource, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });
    expect(r.status).toBe(401);
    const challenge = r.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="mcp:tools"');
  });

  it('a service signs in with client credentials through the SDK and acts as the faculty member its claims name', async () => {
    const client = await connect({ authProvider: new ClientCredentialsProvider({ clientId: 'faculty-bot', clientSecret: SECRET, scope: 'mcp:tools', expectedIssuer: idp.issuer }) });
    const found = JSON.parse(text(await client.callTool({ name: 'find_tools', arguments: { query: 'my weekly teaching timetable', limit: 5 } }))) as { tools: { name: string }[] };
    expect(found.tools.map((t) => t.name)).toContain('get_faculty_timetable');
    // The identity guard injects the token's faculty id over the model's.
    const profile = JSON.parse(text(await client.callTool({ name: 'get_faculty_profile', arguments: { faculty_id: 'F001' } })));
    expect(profile.faculty_id).toBe('F003');
    const [entry] = await gateway.store.audit.tail(1);
    expect(entry).toMatchObject({ tool: 'get_faculty_profile', persona: 'faculty', userId: 'F003' });
    expect(entry!.notes[0]).toMatch(
      /^signed in as F003 \(sub faculty-bot, issuer http:\/\/127\.0\.0\.1:\d+, client faculty-bot\); persona faculty by http\.oauth\.personas\.1 \(groups includes faculty\)$/,
    );
    // A student's tool is outside the faculty persona, whatever the token holder asks.
    expect(text(await client.callTool({ name: 'get_fee_dues', arguments: {} }))).toMatch(/not available to persona faculty/);
  });

  it('a person in the faculty group signs in with authorization code + PKCE and lands in the faculty persona', async () => {
    const client = await signInWithBrowser('alice');
    const profile = JSON.parse(text(await client.callTool({ name: 'get_faculty_profile', arguments: {} })));
    expect(profile.faculty_id).toBe('F007');
    expect((await gateway.store.audit.tail(1))[0]).toMatchObject({ persona: 'faculty', userId: 'F007' });
  });

  it('a person with a student email signs in the same way and lands in the student persona', async () => {
    const client = await signInWithBrowser('bob');
    const summary = JSON.parse(text(await client.callTool({ name: 'get_attendance_summary', arguments: { student_id: 'S0002' } })));
    expect(summary.student_id).toBe('S0001');
    expect((await gateway.store.audit.tail(1))[0]!.notes[0]).toMatch(/persona student by http\.oauth\.personas\.2 \(email domain student\.uni\.example\)$/);
    expect(text(await client.callTool({ name: 'get_faculty_profile', arguments: {} }))).toMatch(/not available to persona student/);
  });

  it('refuses a token the provider issued for another resource (audience)', async () => {
    const r = await initializeWith(await idp.clientCredentials('faculty-bot', OTHER_RESOURCE));
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('error="invalid_token"');
    expect(r.challenge).toContain(`the token is for audience ${OTHER_RESOURCE}, not this gateway (${resource})`);
  });

  it('refuses a token from another issuer, even signed with a known key', async () => {
    const r = await initializeWith(await minted({ iss: 'https://idp.elsewhere.example' }));
    expect(r.status).toBe(401);
    expect(r.challenge).toContain(`the token was issued by https://idp.elsewhere.example; this gateway accepts tokens from ${idp.issuer}`);
  });

  it('refuses an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await initializeWith(await minted({ iat: now - 7200, exp: now - 3600 }));
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('the token has expired; sign in again');
  });

  it('refuses a tampered token (claims changed after signing)', async () => {
    const [header, payload, signature] = (await idp.clientCredentials('faculty-bot', resource)).split('.');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload!)));
    const forged = base64url.encode(JSON.stringify({ ...claims, preferred_username: 'F001', realm_access: { roles: ['gateway-admin'] } }));
    const r = await initializeWith(`${header}.${forged}.${signature}`);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain("the token's signature does not verify with the issuer's keys");
  });

  it('refuses an unsigned token (alg none)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
    const payload = base64url.encode(JSON.stringify({ iss: idp.issuer, aud: resource, sub: 'faculty-bot', scope: 'mcp:tools', groups: ['faculty'], preferred_username: 'F003', exp: now + 600 }));
    const r = await initializeWith(`${header}.${payload}.`);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain("the token's signing algorithm is not accepted");
  });

  it('refuses a token signed with a key the issuer does not publish', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ iss: idp.issuer, aud: resource, sub: 'faculty-bot', scope: 'mcp:tools', groups: ['faculty'], preferred_username: 'F003', exp: now + 600 })
      .setProtectedHeader({ alg: 'RS256', kid: 'attacker-key' })
      .sign(privateKey);
    const r = await initializeWith(token);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('the token is signed with a key the issuer does not publish');
  });

  it('refuses garbage: not a JWT, and unknown to the introspection endpoint', async () => {
    const r = await initializeWith('garbage-garbage-garbage-0123456789');
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('the issuer reports the token inactive');
  });

  it('refuses a token without the required scope (403 insufficient_scope)', async () => {
    const r = await initializeWith(await minted({ scope: 'profile' }));
    expect(r.status).toBe(403);
    expect(r.challenge).toContain('error="insufficient_scope"');
    expect(r.challenge).toContain('scope="mcp:tools"');
  });

  it('refuses a valid token whose claims match no persona rule, saying which claims it saw and never echoing the token', async () => {
    const token = await idp.clientCredentials('alumni-bot', resource);
    const r = await initializeWith(token);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toEqual({
      error: 'access_denied',
      error_description:
        'signed in as A001, but no rule in http.oauth.personas matches this token (claims seen: realm_access.roles=(absent), groups=["alumni"], ' +
        'email="news@alumni.uni.example"); ask the gateway\'s operator to add a rule for you',
    });
    expect(r.body).not.toContain(token);
  });

  it('accepts an opaque token the introspection endpoint vouches for, and refuses one revoked at the provider', async () => {
    const token = await idp.clientCredentials('opaque-bot', resource);
    expect(token.split('.')).toHaveLength(1);
    const client = await connect({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const profile = JSON.parse(text(await client.callTool({ name: 'get_faculty_profile', arguments: {} })));
    expect(profile.faculty_id).toBe('F011');
    const revoked = await idp.clientCredentials('opaque-bot', resource);
    await idp.revoke('opaque-bot', revoked);
    const r = await initializeWith(revoked);
    expect(r.status).toBe(401);
    expect(r.challenge).toContain('the issuer reports the token inactive (expired, revoked or unknown)');
  });

  it('keeps static tokens working beside the identity provider', async () => {
    const client = await connect({ requestInit: { headers: { Authorization: `Bearer ${STATIC_TOKEN}` } } });
    const summary = JSON.parse(text(await client.callTool({ name: 'get_attendance_summary', arguments: {} })));
    expect(summary.student_id).toBe('S0003');
  });

  it("a session continues with the same person's next token, and refuses another person's", async () => {
    const init = await fetch(resource, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${await idp.clientCredentials('faculty-bot', resource)}` }, body: INITIALIZE });
    const sid = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const headers = { ...MCP_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
    const renewed = await fetch(resource, { method: 'POST', headers: { ...headers, authorization: `Bearer ${await idp.clientCredentials('faculty-bot', resource)}` }, body: list });
    expect(renewed.status).toBe(200);
    await renewed.body?.cancel();
    const other = await fetch(resource, { method: 'POST', headers: { ...headers, authorization: `Bearer ${await idp.clientCredentials('opaque-bot', resource)}` }, body: list });
    expect(other.status).toBe(403);
    expect(await other.text()).toMatch(/belongs to another token/);
  });
});

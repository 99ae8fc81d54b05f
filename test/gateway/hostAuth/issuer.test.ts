/**
 * Talking to the identity provider: discovery retried after a failure but never more often
 * than RETRY_MS (on a clock the test moves), a metadata document naming another issuer
 * refused, and the introspection cache — reused within `cache_seconds`, never past the
 * token's expiry, bounded in size — against a real provider (oidc-provider on loopback).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostOAuthSchema } from '../../../src/config/schema.js';
import { Introspection } from '../../../src/gateway/hostAuth/introspection.js';
import { Issuer, RETRY_MS } from '../../../src/gateway/hostAuth/issuer.js';
import { AccessTokenVerifier } from '../../../src/gateway/hostAuth/verify.js';
import { startIdp, type Idp } from '../../helpers/idp.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const SECRET = 'service-secret-0123456789abcdefghij';
const INTROSPECTION_SECRET = 'introspection-secret-0123456789abcdef';

/** A server that answers every request with `answer`, counting them. */
async function counting(answer: (path: string) => { status: number; body?: unknown }): Promise<{ server: Server; url: string; count: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    const { status, body } = answer(req.url ?? '/');
    res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, count: () => n };
}

describe('Issuer discovery', () => {
  it('an issuer without metadata fails with the reason, and is asked again only after RETRY_MS', async () => {
    const idp = await counting(() => ({ status: 404 }));
    let clock = 1_000_000;
    const issuer = new Issuer(`${idp.url}/realms/acme`, () => clock);
    await expect(issuer.metadata()).rejects.toThrow(`no authorization server metadata for ${idp.url}/realms/acme (RFC 8414 and OpenID discovery URLs tried)`);
    const tried = idp.count();
    expect(tried).toBe(3);
    clock += RETRY_MS - 1;
    await expect(issuer.metadata()).rejects.toThrow(/no authorization server metadata/);
    expect(idp.count()).toBe(tried);
    clock += 1;
    await expect(issuer.metadata()).rejects.toThrow(/no authorization server metadata/);
    expect(idp.count()).toBe(2 * tried);
    idp.server.close();
  });

  it('refuses metadata that names another issuer (RFC 8414 §3.3)', async () => {
    const idp = await counting(() => ({
      status: 200,
      body: { issuer: 'https://idp.elsewhere.example', authorization_endpoint: 'https://x/a', token_endpoint: 'https://x/t', response_types_supported: ['code'] },
    }));
    await expect(new Issuer(idp.url).metadata()).rejects.toThrow(`the metadata found for ${idp.url} names the issuer https://idp.elsewhere.example; http.oauth.issuer must be exactly that value`);
    idp.server.close();
  });
});

describe('AccessTokenVerifier without introspection', () => {
  it('refuses an opaque token at once, without asking the identity provider', async () => {
    const idp = await counting(() => ({ status: 500 }));
    const config = hostOAuthSchema.parse({ issuer: idp.url, resource: RESOURCE, personas: [{ persona: 'p' }] });
    const verifier = new AccessTokenVerifier(config, new Issuer(idp.url));
    await expect(verifier.verifyAccessToken('a-mistyped-static-token-0123456789')).rejects.toThrow(
      'the token is neither one of http.tokens nor a JWT, and opaque tokens need http.oauth.introspection, which is not configured',
    );
    expect(idp.count()).toBe(0);
    idp.server.close();
  });
});

describe('Introspection cache', () => {
  let idp: Idp;
  beforeAll(async () => {
    idp = await startIdp({
      resources: [RESOURCE],
      scope: 'mcp:tools',
      accounts: {},
      services: { 'opaque-bot': { secret: SECRET, claims: { groups: ['faculty'] }, opaque: true } },
      publicClient: { id: 'test-host', redirectUri: 'http://127.0.0.1:8976/callback' },
      introspector: { id: 'tool-curator', secret: INTROSPECTION_SECRET },
    });
  });
  afterAll(() => idp?.close());

  const config = (cache: Record<string, number>) =>
    hostOAuthSchema.parse({
      issuer: idp.issuer,
      resource: RESOURCE,
      personas: [{ persona: 'p' }],
      introspection: { client_id: 'tool-curator', client_secret: INTROSPECTION_SECRET, ...cache },
    });

  it('reuses an active result for cache_seconds, then asks again (and learns of a revocation)', async () => {
    let clock = Date.now();
    const c = config({ cache_seconds: 60 });
    const introspection = new Introspection(c, new Issuer(idp.issuer), () => clock);
    const token = await idp.clientCredentials('opaque-bot', RESOURCE);
    expect((await introspection.verify(token)).extra?.claims).toMatchObject({ active: true, client_id: 'opaque-bot', groups: ['faculty'], aud: RESOURCE });
    await idp.revoke('opaque-bot', token);
    // Within cache_seconds the cached answer stands: the provider is not asked.
    clock += 59_000;
    expect((await introspection.verify(token)).clientId).toBe('opaque-bot');
    clock += 2_000;
    await expect(introspection.verify(token)).rejects.toThrow('the issuer reports the token inactive (expired, revoked or unknown); sign in again');
  });

  it('keeps at most cache_max_entries results, the oldest leaving first', async () => {
    const introspection = new Introspection(config({ cache_max_entries: 2 }), new Issuer(idp.issuer));
    for (let i = 0; i < 3; i++) await introspection.verify(await idp.clientCredentials('opaque-bot', RESOURCE));
    expect(introspection.cached).toBe(2);
  });

  it('with cache_seconds 0 nothing is kept', async () => {
    const introspection = new Introspection(config({ cache_seconds: 0 }), new Issuer(idp.issuer));
    await introspection.verify(await idp.clientCredentials('opaque-bot', RESOURCE));
    expect(introspection.cached).toBe(0);
  });

  it('a wrong introspection secret is the gateway’s problem (server error), not the token’s', async () => {
    const c = hostOAuthSchema.parse({ ...config({}), introspection: { client_id: 'tool-curator', client_secret: 'wrong-secret-0123456789' } });
    const introspection = new Introspection(c, new Issuer(idp.issuer));
    await expect(introspection.verify(await idp.clientCredentials('opaque-bot', RESOURCE))).rejects.toMatchObject({
      code: 'server_error',
      message: expect.stringMatching(/^cannot introspect the token at http:\/\/127\.0\.0\.1:\d+\/token\/introspection: HTTP 401 invalid_client$/),
    });
  });
});

/**
 * A real OpenID provider for tests: oidc-provider (OpenID certified) on a loopback port,
 * as an organisation's identity provider would be. Access tokens are bound to a resource
 * (RFC 8707 resource indicators): JWTs signed with the provider's RS256 key, or opaque
 * ones for clients listed as `opaque`, answered by its introspection endpoint (RFC 7662).
 * Accounts and clients carry the claims a directory would add (groups, email,
 * preferred_username). The interaction (login and consent) completes by itself for the
 * account named in the authorization request's `login_hint`, so the authorization code
 * flow runs without a person; `authorize()` plays the browser.
 *
 * The test owns the signing key, so it can also mint tokens the provider never issued:
 * expired ones, another issuer's, unsigned ones.
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import Provider, { errors } from 'oidc-provider';

export type AccountClaims = Record<string, unknown>;

export interface IdpOptions {
  /** Resource indicators the provider issues tokens for (the gateway's resource first). */
  resources: string[];
  /** Scope every resource offers. */
  scope: string;
  /** Accounts by id (the `sub`), with the claims added to their access tokens. */
  accounts: Record<string, AccountClaims>;
  /** Confidential clients for the client credentials grant, with their secret and the claims of their tokens. */
  services: Record<string, { secret: string; claims: AccountClaims; opaque?: boolean }>;
  /** A public client for the authorization code flow with PKCE. */
  publicClient: { id: string; redirectUri: string };
  /** A public client for a web page's own sign-in (the gateway's consent page), redirecting to `redirectUri`. */
  webClient?: { id: string; redirectUri: string };
  /** More such clients (the approvals page's own). */
  webClients?: { id: string; redirectUri: string }[];
  /** The resource server's own client, allowed to introspect. */
  introspector: { id: string; secret: string };
}

export interface Idp {
  issuer: string;
  /** The provider's signing key and its key id, to mint tokens the provider did not issue. */
  mint(claims: JWTPayload, header?: { alg?: string; kid?: string }): Promise<string>;
  /** A client credentials token from the provider's token endpoint. */
  clientCredentials(clientId: string, resource: string): Promise<string>;
  /** Revokes a token at the provider (RFC 7009). */
  revoke(clientId: string, token: string): Promise<void>;
  /** Plays the browser: follows the authorization URL through the interaction for `login_hint`; returns the redirect to the client (default: the public client's). */
  authorize(url: URL, login: string, redirectUri?: string): Promise<URL>;
  close(): Promise<void>;
}

const KID = 'test-rs256';

export async function startIdp(options: IdpOptions): Promise<Idp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };
  let provider!: Provider;
  const server: Server = createServer((req, res) => {
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (m) return void completeInteraction(provider, req, res).catch((err: Error) => res.writeHead(500).end(err.message));
    return provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const services = options.services;

  provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: ['idp-test-cookie-key-0123456789'] },
    clients: [
      ...Object.entries(services).map(([id, s]) => ({ client_id: id, client_secret: s.secret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] })),
      { client_id: options.publicClient.id, token_endpoint_auth_method: 'none', application_type: 'native', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], redirect_uris: [options.publicClient.redirectUri] },
      ...[...(options.webClient ? [options.webClient] : []), ...(options.webClients ?? [])].map((c) => ({
        client_id: c.id,
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [c.redirectUri],
      })),
      { client_id: options.introspector.id, client_secret: options.introspector.secret, grant_types: [], redirect_uris: [], response_types: [] },
    ],
    findAccount: (_ctx: unknown, id: string) => (options.accounts[id] ? { accountId: id, claims: () => ({ sub: id }) } : undefined),
    extraTokenClaims: (_ctx: unknown, token: { accountId?: string; clientId: string }) => (token.accountId ? options.accounts[token.accountId] : services[token.clientId]?.claims),
    ttl: { AccessToken: 600, ClientCredentials: 600, AuthorizationCode: 60, IdToken: 600, RefreshToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: (_ctx: unknown, client: { clientId: string }) => client.clientId === options.introspector.id },
      revocation: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => {
          if (!options.resources.includes(resource)) throw new errors.InvalidTarget();
          return { scope: options.scope, audience: resource, accessTokenTTL: 600, accessTokenFormat: services[client.clientId]?.opaque ? 'opaque' : 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
  });

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  return {
    issuer,
    mint: (claims, header = {}) =>
      new SignJWT(claims).setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid ?? KID, typ: 'at+jwt' }).sign(privateKey as CryptoKey),
    async clientCredentials(clientId, resource) {
      const r = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: basic(clientId, services[clientId]!.secret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: options.scope }),
      });
      const body = (await r.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token for ${clientId}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async revoke(clientId, token) {
      const r = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: { authorization: basic(clientId, services[clientId]!.secret), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
      if (!r.ok) throw new Error(`revocation failed: HTTP ${r.status} ${await r.text()}`);
    },
    authorize: (url, login, redirectUri = options.publicClient.redirectUri) => followAuthorization(url, login, redirectUri),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The interaction, completed for the account in `login_hint`: log in, then grant what the client asked for. */
async function completeInteraction(provider: Provider, req: Parameters<Provider['interactionDetails']>[0], res: Parameters<Provider['interactionDetails']>[1]): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    const accountId = String(details.params.login_hint ?? '');
    return provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
  }
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant!.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant!.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/** A browser's part of the authorization code flow: follow redirects with cookies until the provider redirects to the client. */
async function followAuthorization(start: URL, login: string, redirectUri: string): Promise<URL> {
  const url = new URL(start);
  url.searchParams.set('login_hint', login);
  const cookies = new Map<string, string>();
  let next = url.href;
  for (let hop = 0; hop < 10; hop++) {
    const r = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of r.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = r.headers.get('location');
    if (!location) throw new Error(`the authorization stopped at ${next}: HTTP ${r.status} ${await r.text()}`);
    const to = new URL(location, next);
    if (`${to.origin}${to.pathname}` === redirectUri) return to;
    next = to.href;
  }
  throw new Error(`the authorization did not reach ${redirectUri} in 10 redirects`);
}

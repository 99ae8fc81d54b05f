/**
 * upstream/auth: the gateway as an MCP authorization client of its remote upstreams.
 * Picks the SDK provider an upstream's `auth` config calls for: the store-backed
 * authorization-code provider for `oauth`, the SDK's client-credentials providers
 * (client_secret_basic or private_key_jwt) for `client_credentials`. Tokens belong to
 * the gateway's configured account per upstream, whichever persona a call comes from.
 */
import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  type FetchLike,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import type { RemoteUpstreamConfig, UpstreamConfig } from '../../config/schema.js';
import type { Store } from '../../store/types.js';
import { CLIENT_NAME, StoreOAuthProvider, type StoreOAuthProviderOptions } from './provider.js';
import { refreshingFetch } from './refresh.js';

export { NeedsAuthorizationError, UpstreamAuthError } from './errors.js';

/** How a remote upstream authorizes: what `doctor` and `tools` show. */
export type AuthMethod = 'oauth' | 'client_credentials' | 'headers' | 'none';

export function authMethod(cfg: RemoteUpstreamConfig): AuthMethod {
  if (cfg.auth && 'oauth' in cfg.auth) return 'oauth';
  if (cfg.auth && 'client_credentials' in cfg.auth) return 'client_credentials';
  return cfg.headers ? 'headers' : 'none';
}

/**
 * Whether each gateway user acts on `cfg` with their own account (`auth: { oauth, per_user: true }`):
 * calls go through the user's own connection (upstream/users.ts), never the pool's.
 */
export function isPerUser(cfg: UpstreamConfig): cfg is RemoteUpstreamConfig {
  return 'url' in cfg && cfg.auth !== undefined && 'oauth' in cfg.auth && cfg.auth.per_user === true;
}

/** What the pool needs from upstream/auth: a provider per upstream, and a way to notice new consent. */
export interface UpstreamAuth {
  provider(name: string, cfg: RemoteUpstreamConfig): OAuthClientProvider | undefined;
  /** Changes whenever the upstream's stored OAuth state changes (e.g. `tool-curator auth` ran). */
  version(name: string): Promise<number>;
}

/** The fetch an upstream's transport uses with `provider`: store-backed OAuth refreshes once for the fleet (refresh.ts). */
export function authFetch(provider: OAuthClientProvider | undefined, fetch: FetchLike): FetchLike {
  return provider instanceof StoreOAuthProvider ? refreshingFetch(provider, fetch) : fetch;
}

/**
 * The provider for `cfg`, or `undefined` for an upstream without `auth`.
 * `interactive` carries the `auth` command's redirect URL and URL handler.
 */
export function providerFor(
  name: string,
  cfg: RemoteUpstreamConfig,
  store: Pick<Store, 'oauth' | 'lock'>,
  interactive?: Pick<StoreOAuthProviderOptions, 'redirectUrl' | 'onAuthorizationUrl'>,
): OAuthClientProvider | undefined {
  if (!cfg.auth) return undefined;
  if ('client_credentials' in cfg.auth) {
    const c = cfg.auth.client_credentials;
    const scope = c.scopes?.join(' ');
    const expectedIssuer = c.issuer;
    return c.private_key
      ? new PrivateKeyJwtProvider({ clientId: c.client_id, privateKey: c.private_key, algorithm: c.algorithm, clientName: CLIENT_NAME, scope, expectedIssuer })
      : new ClientCredentialsProvider({ clientId: c.client_id, clientSecret: c.client_secret!, clientName: CLIENT_NAME, scope, expectedIssuer });
  }
  return new StoreOAuthProvider({
    upstream: name,
    url: cfg.url,
    store,
    config: cfg.auth.oauth,
    mode: interactive ? 'interactive' : 'unattended',
    ...interactive,
  });
}

/**
 * Receives the tokens a provider hands the SDK for a request of (upstream, subject), before
 * the request is sent: the gateway's secret redaction holds them from then on (guards/secrets),
 * also those of `client_credentials`, which the SDK keeps in memory only.
 */
export type TokensSeen = (upstream: string, subject: string, tokens: OAuthTokens | undefined) => void;

/** `provider`, telling `seen` about every tokens it hands out. */
export function observed<P extends OAuthClientProvider>(provider: P, upstream: string, subject: string, seen: TokensSeen | undefined): P {
  if (!seen) return provider;
  const tokens = provider.tokens.bind(provider);
  provider.tokens = async () => {
    const t = await tokens();
    seen(upstream, subject, t);
    return t;
  };
  return provider;
}

/** The unattended providers `serve` uses, over one store; `seen` learns the tokens they use. */
export function upstreamAuth(store: Pick<Store, 'oauth' | 'lock'>, seen?: TokensSeen): UpstreamAuth {
  return {
    provider: (name, cfg) => {
      const provider = providerFor(name, cfg, store);
      return provider && observed(provider, name, '', seen);
    },
    version: (name) => store.oauth.version(name),
  };
}

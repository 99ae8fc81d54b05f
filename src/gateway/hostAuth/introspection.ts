/**
 * Opaque access tokens, checked by asking the issuer (RFC 7662 token introspection,
 * through oauth4webapi): the gateway authenticates as its own client, and accepts a
 * token the issuer reports active, from the configured issuer, for the gateway's
 * audience, with an expiry. Active results are reused for `cache_seconds` (never past
 * `exp`) in a bounded cache keyed by the token's SHA-256: the cache holds no token;
 * concurrent requests with one token share one introspection. Refusals are not
 * cached: a token that becomes active is accepted at once.
 */
import { createHash } from 'node:crypto';
import { OAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import * as oauth from 'oauth4webapi';
import type { HostOAuthConfig } from '../../config/schema.js';
import { isLoopback } from '../hostGuard.js';
import { ISSUER_TIMEOUT_MS, type Issuer } from './issuer.js';
import { audiences, authInfo, invalidToken, plain } from './token.js';

/** Why the introspection endpoint did not answer: its HTTP status and OAuth error where it gave them. */
function failure(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) return `HTTP ${err.status} ${err.error}`;
  if (err instanceof oauth.WWWAuthenticateChallengeError) return `HTTP ${err.status} ${err.cause[0]?.parameters.error ?? err.cause[0]?.scheme ?? ''}`.trim();
  return err instanceof Error ? err.message : String(err);
}

type IntrospectionConfig = NonNullable<HostOAuthConfig['introspection']>;

export class Introspection {
  private readonly settings: IntrospectionConfig;
  /** Token digest → accepted result and until when (epoch ms). Oldest first (Map insertion order). */
  private readonly cache = new Map<string, { info: AuthInfo; until: number }>();
  private readonly pending = new Map<string, Promise<AuthInfo>>();

  constructor(
    private readonly config: HostOAuthConfig,
    private readonly issuer: Issuer,
    private readonly now: () => number = Date.now,
  ) {
    this.settings = config.introspection!;
  }

  /** Number of cached results (for tests and diagnostics). */
  get cached(): number {
    return this.cache.size;
  }

  /**
   * @throws OAuthError `invalid_token` for a token the issuer reports inactive, or for
   *   another issuer or audience; `server_error` when the introspection endpoint cannot be asked.
   */
  async verify(token: string): Promise<AuthInfo> {
    const key = createHash('sha256').update(token).digest('base64url');
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return { ...hit.info, token };
    if (hit) this.cache.delete(key);
    const running = this.pending.get(key);
    if (running) return running;
    const asking = this.ask(token).finally(() => this.pending.delete(key));
    this.pending.set(key, asking);
    const info = await asking;
    this.remember(key, info);
    return info;
  }

  private remember(key: string, info: AuthInfo): void {
    const until = Math.min(this.now() + this.settings.cache_seconds * 1000, (info.expiresAt ?? 0) * 1000);
    if (until <= this.now()) return;
    this.cache.set(key, { info: { ...info, token: '' }, until });
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.settings.cache_max_entries) break;
      this.cache.delete(oldest);
    }
  }

  private async endpoint(): Promise<string> {
    if (this.settings.endpoint) return this.settings.endpoint;
    let found: unknown;
    try {
      // A field of RFC 8414 metadata; OpenID discovery metadata may carry it too.
      found = ((await this.issuer.metadata()) as { introspection_endpoint?: unknown }).introspection_endpoint;
    } catch (err) {
      throw new OAuthError(OAuthErrorCode.ServerError, `cannot introspect the token: ${(err as Error).message}`);
    }
    if (typeof found !== 'string') throw new OAuthError(OAuthErrorCode.ServerError, `the metadata of ${this.issuer.url} names no introspection_endpoint; set http.oauth.introspection.endpoint`);
    return found;
  }

  private async ask(token: string): Promise<AuthInfo> {
    const endpoint = await this.endpoint();
    const as: oauth.AuthorizationServer = { issuer: this.issuer.url, introspection_endpoint: endpoint };
    const client: oauth.Client = { client_id: this.settings.client_id };
    const auth = this.settings.auth_method === 'client_secret_post' ? oauth.ClientSecretPost(this.settings.client_secret) : oauth.ClientSecretBasic(this.settings.client_secret);
    const url = new URL(endpoint);
    let result: oauth.IntrospectionResponse;
    try {
      const response = await oauth.introspectionRequest(as, client, auth, token, {
        additionalParameters: { token_type_hint: 'access_token' },
        signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS),
        // The config allows plain http only on loopback (tests, local trials).
        [oauth.allowInsecureRequests]: url.protocol === 'http:' && isLoopback(url.hostname),
      });
      result = await oauth.processIntrospectionResponse(as, client, response);
    } catch (err) {
      throw new OAuthError(OAuthErrorCode.ServerError, `cannot introspect the token at ${endpoint}: ${failure(err)}`);
    }
    if (!result.active) throw invalidToken('the issuer reports the token inactive (expired, revoked or unknown); sign in again');
    if (result.iss !== undefined && result.iss !== this.issuer.url) throw invalidToken(`the token was issued by ${result.iss}; this gateway accepts tokens from ${this.issuer.url}`);
    const aud = result.aud === undefined ? [] : [result.aud].flat();
    const accepted = audiences(this.config);
    if (!aud.some((a) => accepted.includes(a))) {
      throw invalidToken(`the token is for audience ${plain(result.aud)}, not this gateway (${accepted.join(', ')})`);
    }
    if (typeof result.exp !== 'number') throw invalidToken('the introspection response gives the token no expiry (exp)');
    return authInfo(token, { ...result }, this.config);
  }
}

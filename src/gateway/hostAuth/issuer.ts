/**
 * The organisation's authorization server as the gateway sees it: its metadata (RFC 8414
 * or OpenID discovery, through the MCP SDK's discovery) and its signing keys (the JWKS,
 * through jose). Fetched when first needed, then kept. A failed discovery is tried again
 * on a later request, at most once per RETRY_MS: an identity provider that is down
 * neither stops the gateway from starting (static tokens keep working) nor gets flooded.
 */
import { discoverAuthorizationServerMetadata, IssuerMismatchError, type AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { log } from '../../log.js';

/** Least time between two discovery attempts after a failure. */
export const RETRY_MS = 5_000;
/** Longest wait for the issuer's metadata, its JWKS or its introspection endpoint. */
export const ISSUER_TIMEOUT_MS = 5_000;

export class IssuerUnavailableError extends Error {}

export class Issuer {
  private discovery?: Promise<AuthorizationServerMetadata>;
  private failedAt?: number;
  private jwks?: JWTVerifyGetKey;

  constructor(
    readonly url: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The issuer's metadata, discovered once. Concurrent callers share one discovery.
   * @throws IssuerUnavailableError when no metadata could be read, or it names another issuer (RFC 8414 §3.3).
   */
  metadata(): Promise<AuthorizationServerMetadata> {
    const retry = this.failedAt !== undefined && this.now() - this.failedAt >= RETRY_MS;
    if (!this.discovery || retry) {
      this.failedAt = undefined;
      this.discovery = this.discover().catch((err: Error) => {
        this.failedAt = this.now();
        log.warn({ issuer: this.url, err: err.message }, 'identity provider discovery failed; retrying on a later request');
        throw err;
      });
    }
    return this.discovery;
  }

  private async discover(): Promise<AuthorizationServerMetadata> {
    let found: AuthorizationServerMetadata | undefined;
    try {
      found = await discoverAuthorizationServerMetadata(this.url, { fetchFn: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS) }) });
    } catch (err) {
      // The SDK's discovery refuses metadata naming another issuer itself (RFC 8414 §3.3).
      if (err instanceof IssuerMismatchError) throw this.otherIssuer(err.received);
      throw new IssuerUnavailableError(`the metadata of ${this.url} could not be read: ${(err as Error).message}`);
    }
    if (!found) {
      throw new IssuerUnavailableError(`no authorization server metadata for ${this.url} (RFC 8414 and OpenID discovery URLs tried): is http.oauth.issuer right, and is the identity provider reachable?`);
    }
    if (found.issuer !== this.url) throw this.otherIssuer(found.issuer);
    log.info({ issuer: this.url, jwks_uri: found.jwks_uri }, 'identity provider discovered');
    return found;
  }

  private otherIssuer(named: string | undefined): IssuerUnavailableError {
    return new IssuerUnavailableError(`the metadata found for ${this.url} names the issuer ${named}; http.oauth.issuer must be exactly that value`);
  }

  /**
   * The issuer's signing keys as a jose key resolver: fetched on first use, re-fetched
   * (at most every 30 s) when a token names a key id not seen yet, so key rotation needs no restart.
   * @throws IssuerUnavailableError without metadata, or when the metadata has no `jwks_uri`.
   */
  async keys(): Promise<JWTVerifyGetKey> {
    if (this.jwks) return this.jwks;
    const { jwks_uri } = await this.metadata();
    if (!jwks_uri) throw new IssuerUnavailableError(`the metadata of ${this.url} has no jwks_uri, so JWT access tokens cannot be checked; configure http.oauth.introspection`);
    this.jwks = createRemoteJWKSet(new URL(jwks_uri), { timeoutDuration: ISSUER_TIMEOUT_MS });
    return this.jwks;
  }
}

/**
 * Access-token verification for hosts signed in with the organisation's identity
 * provider, as the MCP SDK's `OAuthTokenVerifier`. A JWT is checked here with jose:
 * signature against the issuer's JWKS (only the allowed asymmetric algorithms; `none`
 * and HMAC never), issuer, audience (the gateway's resource, RFC 8707), expiry and
 * not-before with a small clock tolerance. Anything else is an opaque token, asked about
 * by introspection (RFC 7662) when configured. Each refusal says why, in words the person
 * at the host can act on.
 */
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { HostOAuthConfig } from '../../config/schema.js';
import type { Introspection } from './introspection.js';
import type { Issuer } from './issuer.js';
import { audiences, authInfo, invalidToken, plain } from './token.js';

/** Whether the token is a compact JWS (three dot-separated parts with a JSON header naming `alg`); a JWE or opaque token is not. */
function isJws(token: string): boolean {
  if (token.split('.').length !== 3) return false;
  try {
    return typeof decodeProtectedHeader(token).alg === 'string';
  } catch {
    return false;
  }
}

export class AccessTokenVerifier implements OAuthTokenVerifier {
  constructor(
    private readonly config: HostOAuthConfig,
    private readonly issuer: Issuer,
    private readonly introspection?: Introspection,
  ) {}

  /**
   * @throws OAuthError `invalid_token` (HTTP 401) for a token the gateway must not accept;
   *   `server_error` (HTTP 500) when the identity provider cannot be asked.
   */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    if (isJws(token)) return this.verifyJwt(token);
    if (this.introspection) return this.introspection.verify(token);
    throw invalidToken('the token is neither one of http.tokens nor a JWT, and opaque tokens need http.oauth.introspection, which is not configured');
  }

  private async verifyJwt(token: string): Promise<AuthInfo> {
    let keys;
    try {
      keys = await this.issuer.keys();
    } catch (err) {
      throw new OAuthError(OAuthErrorCode.ServerError, `cannot check the token: ${(err as Error).message}`);
    }
    const { issuer, algorithms, clock_tolerance_seconds } = this.config;
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.issuer.url,
        audience: audiences(this.config),
        algorithms,
        clockTolerance: clock_tolerance_seconds,
        requiredClaims: ['exp'],
      });
      return authInfo(token, payload, this.config);
    } catch (err) {
      throw this.refusal(err, issuer);
    }
  }

  /** The jose error as a refusal the host can act on; a failure to reach the JWKS is the gateway's side (500). */
  private refusal(err: unknown, issuer: string): Error {
    if (err instanceof errors.JWTExpired) return invalidToken('the token has expired; sign in again');
    if (err instanceof errors.JWTClaimValidationFailed) {
      const got = plain(err.payload[err.claim]);
      if (err.claim === 'iss') return invalidToken(`the token was issued by ${got}; this gateway accepts tokens from ${issuer}`);
      if (err.claim === 'aud') return invalidToken(`the token is for audience ${got}, not this gateway (${audiences(this.config).join(', ')})`);
      if (err.claim === 'exp') return invalidToken('the token has no expiry (exp)');
      if (err.claim === 'nbf') return invalidToken('the token is not valid yet (nbf)');
      return invalidToken(`the token's ${err.claim} claim is not valid (${err.reason})`);
    }
    if (err instanceof errors.JOSEAlgNotAllowed) return invalidToken(`the token's signing algorithm is not accepted; accepted: ${this.config.algorithms.join(', ')}`);
    if (err instanceof errors.JWSSignatureVerificationFailed) return invalidToken("the token's signature does not verify with the issuer's keys");
    if (err instanceof errors.JWKSNoMatchingKey) return invalidToken('the token is signed with a key the issuer does not publish');
    if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid || err instanceof errors.JOSENotSupported) return invalidToken('the token is not a well-formed signed JWT');
    // What is left is the JWKS fetch failing (timeout, network, not a key set): the gateway's side.
    return new OAuthError(OAuthErrorCode.ServerError, `cannot check the token with the keys of ${issuer}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

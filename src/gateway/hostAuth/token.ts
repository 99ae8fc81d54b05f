/**
 * What a validated access token says, in the MCP SDK's `AuthInfo` shape, from the claims
 * of a JWT or an introspection response; and the refusal a bad token gets. Both
 * verification paths (verify.ts, introspection.ts) end here, so they read scopes, client
 * and expiry alike.
 */
import { OAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import type { HostOAuthConfig } from '../../config/schema.js';
import type { Claims } from './rules.js';

/**
 * A refusal (HTTP 401, `error="invalid_token"`). The message goes into the
 * `WWW-Authenticate` header's quoted `error_description`: quotes, backslashes and
 * anything outside printable ASCII become `?`, and it is cut at 300 characters, because
 * parts of it (a foreign issuer, an audience) come from the token.
 */
export function invalidToken(message: string): OAuthError {
  return new OAuthError(OAuthErrorCode.InvalidToken, message.replace(/["\\]|[^\x20-\x7e]/g, '?').slice(0, 300));
}

/** A claim value as a refusal names it (issuer, audience): a string as it is, a list comma-separated. */
export function plain(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(String).join(', ');
  return value === undefined ? '(none)' : JSON.stringify(value);
}

/** The audiences a token must name one of: `audience`, else the gateway's `resource`. */
export function audiences(config: HostOAuthConfig): string[] {
  return config.audience ?? [config.resource];
}

/** Scopes from `scope` (RFC 9068, a space-separated string) or `scp` (Entra ID: a string; Okta: a list). */
function scopesOf(claims: Claims): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(/\s+/).filter(Boolean);
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
}

/**
 * The token's scopes, plus each configured scope a short name stands for. Entra ID puts a
 * delegated scope in `scp` by its short name (`tools.call`) while hosts request it by its
 * full name, the API's URI and the name (`https://mcp.example.com/mcp/tools.call`). The
 * token's audience is this gateway (checked before), so its short name means the
 * configured full name that ends in `/<short name>`.
 */
function withFullNames(scopes: string[], configured: string[]): string[] {
  const full = configured.filter((c) => URL.canParse(c) && scopes.some((s) => c.endsWith(`/${s}`)));
  return [...new Set([...scopes, ...full])];
}

/** The OAuth client the token was issued to: `client_id` (RFC 9068), `azp` (OpenID, Keycloak, Entra v2), `appid` (Entra v1) or `cid` (Okta). */
function clientOf(claims: Claims): string {
  const found = [claims.client_id, claims.azp, claims.appid, claims.cid].find((v) => typeof v === 'string');
  return (found as string | undefined) ?? '';
}

/**
 * The SDK's AuthInfo for a token whose signature or activity, issuer and audience were
 * checked. `expiresAt` is the last second the gateway accepts it: `exp` plus the clock
 * tolerance, because the SDK's bearer middleware compares it with this machine's clock.
 * `extra.claims` carries the claims for the persona rules.
 */
export function authInfo(token: string, claims: Claims, config: HostOAuthConfig): AuthInfo {
  const exp = typeof claims.exp === 'number' ? claims.exp + config.clock_tolerance_seconds : undefined;
  return {
    token,
    clientId: clientOf(claims),
    scopes: withFullNames(scopesOf(claims), config.scopes),
    ...(exp !== undefined && { expiresAt: exp }),
    resource: new URL(config.resource),
    extra: { claims },
  };
}

/**
 * One refresh at a time per (upstream, subject), across the fleet: the fetch an OAuth
 * upstream's transport sends through. When the MCP endpoint answers 401 to a request
 * that carried an access token, this fetch (before the transport's own `auth()` would
 * run, once per call) asks for a fresh token:
 *
 *  - another call or replica already stored a different one: that one, no refresh;
 *  - else, under the store's lock (in-process callers queue first, other replicas wait on
 *    the database): read again, and if the token is still the refused one, the SDK's
 *    `auth()` refreshes and stores; the callers queued behind then find the new token.
 *
 * The request is sent again with the fresh token; what that answers goes to the
 * transport, which handles any further 401 as before (consent needed, step-up). Token
 * requests of any `auth()` run (this one's or the transport's) are watched for refused
 * refresh tokens, so an `invalid_grant` clears only tokens that were refused (provider.ts).
 */
import { auth, extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client';
import type { StoreOAuthProvider } from './provider.js';

/** The access token a request carried in `Authorization: Bearer …`, if any. */
function bearerOf(init: RequestInit | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(new Headers(init?.headers).get('authorization') ?? '')?.[1];
}

/** The refresh token of a refresh-token grant request, if `init` is one. */
function refreshTokenOf(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  const params = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  return params?.get('grant_type') === 'refresh_token' ? (params.get('refresh_token') ?? undefined) : undefined;
}

/**
 * The access token to send instead of `refused`: one stored by another refresh, or a new
 * one from a refresh run here under the fleet-wide lock; `undefined` when there is none
 * (no refresh token: the transport's own handling says what is needed).
 */
async function freshToken(provider: StoreOAuthProvider, refused: string, challenge: Response, fetchFn: FetchLike): Promise<string | undefined> {
  const stored = (await provider.tokens())?.access_token;
  if (stored !== undefined && stored !== refused) return stored;
  return provider.opts.store.lock(provider.lockName, async () => {
    const latest = await provider.tokens();
    if (latest?.access_token !== undefined && latest.access_token !== refused) return latest.access_token;
    if (!latest?.refresh_token) return undefined;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(challenge);
    const result = await auth(provider, { serverUrl: provider.opts.url, resourceMetadataUrl, scope, fetchFn });
    return result === 'AUTHORIZED' ? (await provider.tokens())?.access_token : undefined;
  });
}

/** `inner` with the fleet-wide refresh described in the module comment, for `provider`'s upstream. */
export function refreshingFetch(provider: StoreOAuthProvider, inner: FetchLike): FetchLike {
  const endpoint = new URL(provider.opts.url).href;
  const watched: FetchLike = async (url, init) => {
    const res = await inner(url, init);
    const refreshToken = refreshTokenOf(init);
    if (refreshToken !== undefined && (res.status === 400 || res.status === 401)) provider.refusedRefresh(refreshToken);
    return res;
  };
  return async (url, init) => {
    const res = await watched(url, init);
    if (res.status !== 401 || new URL(String(url)).href !== endpoint) return res;
    const sent = bearerOf(init);
    if (sent === undefined) return res;
    const fresh = await freshToken(provider, sent, res, watched);
    if (fresh === undefined || fresh === sent) return res;
    await res.body?.cancel().catch(() => undefined);
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${fresh}`);
    return watched(url, { ...init, headers });
  };
}

/**
 * Keeps the last 401/403 answer of a remote upstream's MCP endpoint, so a failure is
 * reported with the server's `WWW-Authenticate` details (error, scope, resource_metadata)
 * instead of whatever the transport — or the SSE fallback tried after it — says.
 * It changes no request; a refusal that only a person can lift (a step-up, stepUp.ts)
 * ends the request with that error before the SDK tries to re-authorize.
 */
import { extractWWWAuthenticateParams, OAuthClientFlowError, UnauthorizedError, type FetchLike } from '@modelcontextprotocol/client';
import { NeedsAuthorizationError, UpstreamAuthError, type AuthChallenge } from './errors.js';

export interface ChallengeWatch {
  fetch: FetchLike;
  /** The last refusal of the MCP endpoint, cleared by any later success. */
  last(): AuthChallenge | undefined;
}

/**
 * @param fetchFn the fetch underneath (boundedFetch.ts).
 * @param refusal turns a challenge into the error that ends the request, or leaves it to the SDK (undefined).
 */
export function watchChallenges(mcpUrl: URL, fetchFn: FetchLike = fetch, refusal?: (challenge: AuthChallenge) => Promise<Error | undefined>): ChallengeWatch {
  let last: AuthChallenge | undefined;
  const target = mcpUrl.href;
  const watched: FetchLike = async (url, init) => {
    const res = await fetchFn(url, init);
    if (new URL(String(url)).href !== target) return res;
    if (res.status === 401 || res.status === 403) {
      const { error, scope, resourceMetadataUrl } = extractWWWAuthenticateParams(res);
      last = { status: res.status, error, scope, resourceMetadata: resourceMetadataUrl?.href };
      const refused = await refusal?.(last);
      if (refused) {
        await res.body?.cancel().catch(() => undefined);
        throw refused;
      }
    } else if (res.ok) {
      last = undefined;
    }
    return res;
  };
  return { fetch: watched, last: () => last };
}

/**
 * Turns a failure of an upstream with a refusal on record into an authorization error;
 * `undefined` for failures that are not about authorization.
 * @param configured whether the upstream has `auth` set, which decides the advice.
 */
export function authFailure(upstream: string, err: unknown, watch: ChallengeWatch, configured: boolean): Error | undefined {
  const challenge = watch.last();
  // A consent the server's challenge named a scope for carries it, for `auth` to ask for (the spec's first choice); the SDK's check for a client comes before it reads the challenge.
  if (err instanceof NeedsAuthorizationError && err.scope === undefined && challenge?.status === 401 && challenge.scope) return new NeedsAuthorizationError(upstream, err.reason, challenge.scope);
  if (err instanceof NeedsAuthorizationError || err instanceof UpstreamAuthError) return err;
  if (!challenge && !(err instanceof UnauthorizedError)) return undefined;
  const hint = configured
    ? `check its auth config, or run tool-curator auth ${upstream}`
    : 'the server requires authorization: set auth (oauth or client_credentials) or headers for it in the config';
  // The SDK's own checks of the authorization server (issuer, TLS, registration) say what is wrong there.
  const stopped = err instanceof OAuthClientFlowError ? `the SDK stopped the authorization: ${err.message}; ` : '';
  return new UpstreamAuthError(upstream, challenge ?? { status: 401 }, `${stopped}${hint}`);
}

/**
 * A user's consent to their own account of a per-user upstream, through the gateway's
 * consent page instead of the `auth` command: the same SDK `auth()` with the store-backed
 * provider, for subject = the user id, redirecting to the gateway's `/oauth/callback`.
 * Who the user is was settled before (pages/consent.ts); this only runs the OAuth
 * client's two halves, each possibly on another replica (the PKCE verifier is in the store).
 */
import { auth } from '@modelcontextprotocol/client';
import type { RemoteUpstreamConfig } from '../../config/schema.js';
import type { Store } from '../../store/types.js';
import { StoreOAuthProvider } from './provider.js';

export interface WebConsent {
  upstream: string;
  cfg: RemoteUpstreamConfig;
  user: string;
  /** `<public_url>/oauth/callback`. */
  redirectUrl: string;
  store: Pick<Store, 'oauth' | 'lock'>;
}

function providerOf(c: WebConsent, onAuthorizationUrl?: (url: URL) => void): StoreOAuthProvider {
  const oauth = c.cfg.auth && 'oauth' in c.cfg.auth ? c.cfg.auth.oauth : undefined;
  if (!oauth) throw new Error(`upstream "${c.upstream}" has no oauth auth`);
  return new StoreOAuthProvider({ upstream: c.upstream, subject: c.user, url: c.cfg.url, store: c.store, config: oauth, mode: 'interactive', redirectUrl: c.redirectUrl, onAuthorizationUrl });
}

/**
 * Starts the authorization: discovery, registration if needed, PKCE; the verifier is stored.
 * A user is sent here only when their stored tokens no longer do (none, withdrawn, short of
 * a scope), so the SDK asks afresh instead of refreshing them; they stay until new ones replace them.
 * @returns the authorization URL to send the browser to, with the `state` it carries.
 */
export async function beginConsent(c: WebConsent): Promise<{ url: URL; state: string }> {
  let shown: URL | undefined;
  const provider = providerOf(c, (url) => (shown = url));
  await provider.forgetOtherRegistration();
  const scope = await provider.pendingScope();
  await auth(provider, { serverUrl: c.cfg.url, forceReauthorization: true, ...(scope && { scope }) });
  if (!shown || !provider.lastState) throw new Error(`upstream "${c.upstream}" gave no authorization URL`);
  return { url: shown, state: provider.lastState };
}

/**
 * Exchanges the code of the redirect for the user's tokens (stored for subject = user).
 * @param iss the redirect's `iss` (RFC 9207); the SDK refuses a code from another authorization server.
 */
export async function finishConsent(c: WebConsent, code: string, iss?: string): Promise<void> {
  const result = await auth(providerOf(c), { serverUrl: c.cfg.url, authorizationCode: code, iss });
  if (result !== 'AUTHORIZED') throw new Error(`upstream "${c.upstream}" did not accept the authorization`);
}

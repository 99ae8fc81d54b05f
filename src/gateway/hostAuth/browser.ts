/**
 * A person signs in with the organisation's identity provider in their browser, for a
 * page of the gateway's own (the per-user consent page, gateway/consentPage.ts): the
 * authorization code flow with PKCE through the MCP SDK's client functions
 * (`startAuthorization`, `exchangeAuthorization`) as the client `per_user.sign_in`, asking
 * for an access token for the gateway's resource. That token is checked exactly as a
 * host's (verify.ts: signature, issuer, audience, expiry) and names the user by the same
 * `http.oauth.user_claim`, so the page's user is the user a host session would be.
 */
import { exchangeAuthorization, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { HostOAuthConfig, PerUserConfig } from '../../config/schema.js';
import type { Issuer } from './issuer.js';
import { userIdFrom, type Claims } from './rules.js';
import type { AccessTokenVerifier } from './verify.js';

export interface BrowserSignIn {
  /** The identity provider's authorization URL for `state`, and the PKCE verifier to keep until the redirect. */
  start(redirectUrl: string, state: string): Promise<{ url: URL; verifier: string }>;
  /**
   * Exchanges the redirect's code and checks the token.
   * @returns the signed-in user id.
   * @throws when the exchange fails or the token is not one this gateway accepts.
   */
  finish(redirectUrl: string, code: string, verifier: string): Promise<string>;
}

export function browserSignIn(oauth: HostOAuthConfig, issuer: Issuer, verifier: AccessTokenVerifier, client: NonNullable<PerUserConfig['sign_in']>): BrowserSignIn {
  const clientInformation = { client_id: client.client_id, ...(client.client_secret && { client_secret: client.client_secret }) };
  return {
    async start(redirectUrl, state) {
      const metadata = await issuer.metadata();
      const scope = ['openid', ...(oauth.scopes ?? [])].join(' ');
      const { authorizationUrl, codeVerifier } = await startAuthorization(oauth.issuer, { metadata, clientInformation, redirectUrl, scope, state, resource: oauth.resource });
      return { url: authorizationUrl, verifier: codeVerifier };
    },
    async finish(redirectUrl, code, codeVerifier) {
      const metadata = await issuer.metadata();
      const tokens = await exchangeAuthorization(oauth.issuer, { metadata, clientInformation, authorizationCode: code, codeVerifier, redirectUri: redirectUrl, resource: oauth.resource });
      const info = await verifier.verifyAccessToken(tokens.access_token);
      const user = userIdFrom((info.extra?.claims ?? {}) as Claims, oauth.user_claim);
      if (user === undefined) throw new Error(`the sign-in token has no ${oauth.user_claim} claim (http.oauth.user_claim)`);
      return user;
    },
  };
}

/**
 * A person signs in with the organisation's identity provider in their browser, for a
 * page of the gateway's own (the per-user consent page, gateway/consentPage.ts; the
 * approvals page, gateway/approverSignIn.ts): the authorization code flow with PKCE
 * through the MCP SDK's client functions (`startAuthorization`, `exchangeAuthorization`)
 * as the page's own client, asking for an access token for the gateway's resource. That
 * token is checked exactly as a host's (verify.ts: signature, issuer, audience, expiry),
 * must have been issued to the page's client (`client_id`, `azp`, `appid` or `cid`: a
 * host's token is not a page sign-in), and names the user by the same
 * `http.oauth.user_claim`, so the page's user is the user a host session would be.
 */
import { exchangeAuthorization, startAuthorization } from '@modelcontextprotocol/client';
import type { HostOAuthConfig, SignInClientConfig } from '../../config/schema.js';
import type { Issuer } from './issuer.js';
import { userIdFrom, type Claims } from './rules.js';
import type { AccessTokenVerifier } from './verify.js';

/** Who signed in on a page: their user id (`http.oauth.user_claim`) and the token's validated claims. */
export interface SignedInPerson {
  userId: string;
  claims: Claims;
}

export interface BrowserSignIn {
  /** The identity provider's authorization URL for `state`, and the PKCE verifier to keep until the redirect. */
  start(redirectUrl: string, state: string): Promise<{ url: URL; verifier: string }>;
  /**
   * Exchanges the redirect's code and checks the token (`check`).
   * @param iss the redirect's `iss` (RFC 9207): the SDK refuses a code from another issuer, or one without it when the issuer sends it.
   * @throws when the exchange fails or the token is not one this page accepts.
   */
  finish(redirectUrl: string, code: string, verifier: string, iss: string | undefined): Promise<SignedInPerson>;
  /**
   * Checks an access token as this page's sign-in: valid for the gateway as a host's
   * token is, issued to this page's client, with the user claim.
   * @throws naming what is wrong.
   */
  check(accessToken: string): Promise<SignedInPerson>;
}

export function browserSignIn(oauth: HostOAuthConfig, issuer: Issuer, verifier: AccessTokenVerifier, client: SignInClientConfig): BrowserSignIn {
  const clientInformation = { client_id: client.client_id, ...(client.client_secret && { client_secret: client.client_secret }) };
  const check = async (accessToken: string): Promise<SignedInPerson> => {
    const info = await verifier.verifyAccessToken(accessToken);
    if (info.clientId !== client.client_id) {
      throw new Error(`the token was issued to client "${info.clientId || '(none named)'}", not to this page's client "${client.client_id}": only the page's own sign-in counts here`);
    }
    const claims = (info.extra?.claims ?? {}) as Claims;
    const userId = userIdFrom(claims, oauth.user_claim);
    if (userId === undefined) throw new Error(`the sign-in token has no ${oauth.user_claim} claim (http.oauth.user_claim)`);
    return { userId, claims };
  };
  return {
    async start(redirectUrl, state) {
      const metadata = await issuer.metadata();
      const scope = ['openid', ...(oauth.scopes ?? [])].join(' ');
      const { authorizationUrl, codeVerifier } = await startAuthorization(oauth.issuer, { metadata, clientInformation, redirectUrl, scope, state, resource: oauth.resource });
      return { url: authorizationUrl, verifier: codeVerifier };
    },
    async finish(redirectUrl, code, codeVerifier, iss) {
      const metadata = await issuer.metadata();
      const tokens = await exchangeAuthorization(oauth.issuer, { metadata, clientInformation, authorizationCode: code, iss, codeVerifier, redirectUri: redirectUrl, resource: oauth.resource });
      return check(tokens.access_token);
    },
    check,
  };
}

/**
 * Hosts sign in with the organisation's identity provider (`http.oauth`): the gateway's
 * MCP endpoint is an OAuth protected resource (MCP authorization, spec 2025-11-25). This
 * module serves the resource metadata, answers a request without a valid token with the
 * SDK's bearer check (401 and the `WWW-Authenticate` pointer to the metadata, 403
 * `insufficient_scope` without the required scopes), and maps the validated claims to the
 * session's persona and user id by the configured rules (403 when none matches). The HTTP
 * face (http.ts) calls it only for requests no static token matched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerAuthChallengeResponse, verifyBearerToken, type AuthInfo, type VerifyBearerTokenOptions } from '@modelcontextprotocol/server';
import type { LoadedConfig } from '../../config/load.js';
import type { ConfirmVia, SignInClientConfig } from '../../config/schema.js';
import type { Principal } from '../../guards/types.js';
import { log } from '../../log.js';
import { browserSignIn, type BrowserSignIn } from './browser.js';
import { checkHostOAuth } from './config.js';
import { Introspection } from './introspection.js';
import { Issuer } from './issuer.js';
import { metadataHandler, metadataUrl } from './metadata.js';
import { matchPersona, seenClaims, userIdFrom, type Claims } from './rules.js';
import { AccessTokenVerifier } from './verify.js';

/** A host signed in: its session's owner key, persona, user and who it is. */
export interface SignedIn {
  /** Owner of the MCP sessions it opens: stable across token refreshes of the same person and persona. */
  key: string;
  persona: string;
  user_id: string;
  confirm_via?: ConfirmVia;
  principal: Principal;
}

export interface HostAuth {
  /** Answers a request for the gateway's OAuth metadata and returns true; false for any other path. */
  serveMetadata(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  /** The signed-in host, or `undefined` once `res` has been answered (401, 403, 500). */
  signIn(req: IncomingMessage, res: ServerResponse): Promise<SignedIn | undefined>;
  /** A person's sign-in in the browser, for the per-user consent page; set with `per_user.sign_in`. */
  browser?: BrowserSignIn;
  /** A person's sign-in in the browser as `client` (the approvals page's own client). */
  browserAs(client: SignInClientConfig): BrowserSignIn;
}

/**
 * The SDK's bearer check (its runtime-neutral core) on a plain node:http exchange: the
 * token's AuthInfo, or undefined once `res` has the SDK's answer (401 or 403 with the
 * `WWW-Authenticate` challenge, 500).
 */
async function bearer(options: VerifyBearerTokenOptions, req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined> {
  try {
    return await verifyBearerToken(req.headers.authorization, options);
  } catch (err) {
    const answer = bearerAuthChallengeResponse(err, options);
    const body = await answer.text();
    // A token the gateway could not check (identity provider unreachable, introspection refused): the operator's to fix.
    if (answer.status >= 500) log.error({ status: answer.status, body, err: (err as Error).message }, 'sign-in could not check a token');
    res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(body);
    return undefined;
  }
}

/**
 * The sign-in of `http.oauth`, or `undefined` when it is not configured.
 * @throws ConfigError as checkHostOAuth does.
 */
export function createHostAuth(loaded: LoadedConfig): HostAuth | undefined {
  const oauth = loaded.config.http.oauth;
  if (!oauth) return undefined;
  checkHostOAuth(loaded);
  const issuer = new Issuer(oauth.issuer);
  const verifier = new AccessTokenVerifier(oauth, issuer, oauth.introspection && new Introspection(oauth, issuer));
  const bearerOptions: VerifyBearerTokenOptions = { verifier, requiredScopes: oauth.scopes, resourceMetadataUrl: metadataUrl(oauth), expectedResource: new URL(oauth.resource) };
  // Discovered now so a wrong issuer shows in the log at start; a failure is retried on the first sign-in.
  issuer.metadata().catch(() => undefined);
  log.info({ issuer: oauth.issuer, resource: oauth.resource, metadata: metadataUrl(oauth) }, 'hosts sign in with the identity provider (http.oauth)');

  const refuse = (res: ServerResponse, description: string): undefined => {
    res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'access_denied', error_description: description }));
    return undefined;
  };

  const signInClient = loaded.config.per_user.sign_in;
  const browserAs = (client: SignInClientConfig) => browserSignIn(oauth, issuer, verifier, client);
  return {
    ...(signInClient && { browser: browserAs(signInClient) }),
    browserAs,
    serveMetadata: metadataHandler(oauth, issuer),
    async signIn(req, res) {
      const info = await bearer(bearerOptions, req, res);
      if (!info) return undefined;
      const claims = (info.extra?.claims ?? {}) as Claims;
      const subject = typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : `client:${info.clientId}`;
      const userId = userIdFrom(claims, oauth.user_claim);
      if (userId === undefined) {
        log.warn({ subject, user_claim: oauth.user_claim }, 'sign-in refused: the token lacks the user claim');
        return refuse(res, `the token has no ${oauth.user_claim} claim, which http.oauth.user_claim names as the user id; ask the gateway's operator`);
      }
      const match = matchPersona(oauth.personas, claims);
      if (!match) {
        const seen = seenClaims(oauth.personas, claims);
        log.warn({ subject, user: userId, seen }, 'sign-in refused: no http.oauth.personas rule matches');
        return refuse(res, `signed in as ${userId}, but no rule in http.oauth.personas matches this token (claims seen: ${seen}); ask the gateway's operator to add a rule for you`);
      }
      const principal: Principal = { issuer: oauth.issuer, subject, rule: match.label, claims, ...(info.clientId && { clientId: info.clientId }) };
      const persona = match.rule.persona;
      return {
        key: JSON.stringify(['oauth', oauth.issuer, subject, persona]),
        persona,
        user_id: userId,
        ...(match.rule.confirm_via && { confirm_via: match.rule.confirm_via }),
        principal,
      };
    },
  };
}

/**
 * Calls of upstreams marked per-user (`auth: { oauth, per_user: true }`): each runs on the
 * calling user's own connection (upstream/users.ts), with that user's tokens. A user who
 * has not connected their account (or whose grant was withdrawn, or who must grant more
 * scope) is given a consent link (consentPage.ts):
 *
 *  - as a URL-mode elicitation (SEP-1036, MCP 2025-11-25) where the host declared
 *    `elicitation.url`: once the user accepts to open it, the call waits up to
 *    `per_user.wait_seconds` for their consent to be stored (any replica's consent page),
 *    sends `notifications/elicitation/complete`, and runs;
 *  - else as an error result carrying the link, for the model to show the user.
 *
 * The link works once, for `per_user.link_minutes`, and only for that user. The relay's
 * reads, prompt gets and subscriptions of such an upstream offer it the same way (`offer`).
 */
import { randomUUID } from 'node:crypto';
import type { ToolRecord } from '../catalog/types.js';
import type { GatewayConfig, RemoteUpstreamConfig } from '../config/schema.js';
import { errorResult, type CallContext, type CallOutcome } from '../guards/types.js';
import type { CallRelay, HostRequest } from '../relay/calls.js';
import { withHostCapabilities, withUpstreamInput, type InputRelay } from '../relay/inputRequired.js';
import type { OAuthKey, Store } from '../store/types.js';
import { isPerUser, NeedsAuthorizationError } from '../upstream/auth/index.js';
import { userKey, type UserConnections } from '../upstream/users.js';
import { legacySignedInKey } from '../store/people.js';
import { accountOf, accountText, signedInAccount } from './accounts.js';
import { consentLink } from '../pages/consent.js';

/** How often a waiting call looks at the store besides the `oauth` events (which are best effort). */
const POLL_MS = 1000;

export interface PerUserCallsOptions {
  config: Pick<GatewayConfig, 'upstreams' | 'per_user' | 'timeouts' | 'http'>;
  store: Pick<Store, 'oauth' | 'events'>;
  users: UserConnections;
  relay: CallRelay;
  /** Where browsers reach the consent page (`<base>/oauth/consent/…`); undefined without the HTTP face. */
  consentBase: () => string | undefined;
  /** A user has just connected their account of `server` here (their lists now hold its items). */
  connected?: (server: string, user: string) => void;
}

/**
 * Resolves true once `key` holds tokens other than `before` (the ones that fell short, for a
 * step-up), false after `ms` or when `signal` aborts.
 */
function consentStored(store: PerUserCallsOptions['store'], key: OAuthKey, before: string | undefined, ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (stored: boolean) => {
      if (done) return;
      done = true;
      off();
      clearInterval(poll);
      clearTimeout(limit);
      signal?.removeEventListener('abort', aborted);
      resolve(stored);
    };
    const check = () => void store.oauth.get(key, 'tokens').then((t) => t !== undefined && t !== before && finish(true), () => undefined);
    const off = store.events.on('oauth', (p) => p.upstream === key.upstream && p.subject === key.subject && check());
    const poll = setInterval(check, POLL_MS);
    const limit = setTimeout(() => finish(false), ms);
    const aborted = () => finish(false);
    signal?.addEventListener('abort', aborted);
    check();
  });
}

export class PerUserCalls {
  constructor(private readonly opts: PerUserCallsOptions) {}

  /** Whether `server` is a per-user upstream, whose calls go through `call`. */
  handles(server: string): boolean {
    const cfg = this.opts.config.upstreams[server];
    return cfg !== undefined && isPerUser(cfg);
  }

  /**
   * Runs `tool` as the session's user, offering a consent link when they have none. The
   * upstream's questions reach the host as on a shared upstream: for a 2026 host, as
   * `input_required` sealed by `inputRelay` (relay/inputRequired.ts).
   */
  async call(ctx: CallContext, tool: ToolRecord, inputRelay?: InputRelay): Promise<CallOutcome> {
    const server = tool.server;
    const cfg = this.opts.config.upstreams[server] as RemoteUpstreamConfig;
    const user = accountOf(ctx.session);
    if (user === undefined) {
      return errorResult(`upstream "${server}" acts with each user's own account, and this session has no user id: sign in to the gateway (http.oauth) or use a token with a user_id`);
    }
    const run = () =>
      withUpstreamInput(ctx, server, inputRelay, (extra) =>
        this.opts.relay.during(ctx.host, userKey(server, user), (relayed) => this.opts.users.call(server, cfg, user, tool.upstreamName, ctx.args, { ...withHostCapabilities(ctx, relayed), ...extra.upstream }), extra.bridging),
      );
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof NeedsAuthorizationError)) throw err;
      if (!(await this.adoptLegacy(ctx, server, user, err))) {
        const refused = await this.offer(ctx.host, server, user, err, `call ${tool.name}`, ctx.notes);
        if (refused !== undefined) return errorResult(refused);
      }
    }
    try {
      return await run();
    } catch (err) {
      if (err instanceof NeedsAuthorizationError) return errorResult(`upstream "${server}" still refuses the account ${accountText(user)} connected (${err.reason}); call ${tool.name} again for a new link`);
      throw err;
    }
  }

  /**
   * A signed-in user without an account of `server` gets the one a store before version 6
   * kept under their user id (store/people.ts), once; static-token users' accounts were
   * moved to their own keys by the migration, so no claim reaches them.
   * @returns whether one was adopted (the call may run).
   */
  private async adoptLegacy(ctx: CallContext, server: string, user: string, why: NeedsAuthorizationError): Promise<boolean> {
    if (why.reason !== 'no_consent' || !ctx.session.principal || ctx.session.userId === undefined) return false;
    const adopted = await this.opts.store.oauth.adopt(server, legacySignedInKey(ctx.session.userId), user);
    if (adopted) ctx.notes.push(`the ${server} account kept for user id ${JSON.stringify(ctx.session.userId)} before the person keys of store version 6 now belongs to ${accountText(user)}`);
    return adopted;
  }

  /**
   * Offers `user` the consent link for `server`: as a URL elicitation related to `host`'s
   * request where the host declared URL elicitation (then waits for the consent), else in
   * the message. Used for tool calls and for the relay's reads, gets and subscriptions.
   * @param again what the user is to do once connected (`call whoami`, `read <uri>`).
   * @param notes the call's audit notes, if any.
   * @returns undefined once the user has connected (the request may run), else the message for the host.
   */
  async offer(host: HostRequest | undefined, server: string, user: string, why: NeedsAuthorizationError, again: string, notes: string[] = []): Promise<string | undefined> {
    const cfg = this.opts.config.upstreams[server] as RemoteUpstreamConfig;
    const base = this.opts.consentBase();
    const reason = why.reason === 'step_up' ? ` (it asks for more scope${why.scope ? `: "${why.scope}"` : ''})` : why.reason === 'rejected' ? ' (the authorization was withdrawn or has lapsed)' : '';
    if (!base) {
      return `upstream "${server}" acts with each user's own account, and user ${accountText(user)} has not connected theirs${reason}; this gateway serves no consent page (it needs serve --http)`;
    }
    if (!signedInAccount(user) && this.opts.config.http.oauth) {
      // The consent page signs its visitor in with the identity provider and attaches the account only to that user: no sign-in is a static token's.
      return `upstream "${server}" acts with each user's own account, connected by signing in with the identity provider (${this.opts.config.http.oauth.issuer}); this session came with a static token, not a sign-in, so it cannot connect one: use a host that signs in with the identity provider`;
    }
    const { link_minutes, wait_seconds } = this.opts.config.per_user;
    const key = { upstream: server, subject: user, url: cfg.url };
    const before = await this.opts.store.oauth.get(key, 'tokens');
    const url = await consentLink(this.opts.store, base, server, user, link_minutes);
    notes.push(`consent link for ${server} offered to ${user}${reason}`);
    const asker = host?.session.server;
    const showLink =
      `upstream "${server}" acts with each user's own account, and user ${accountText(user)} has not connected theirs${reason}. ` +
      `Show the user this link to connect it (it works once, within ${link_minutes} minutes, and only for them): ${url} — then ${again} again.`;
    if (!host || !asker?.getClientCapabilities()?.elicitation?.url) return showLink;
    const elicitationId = randomUUID();
    const answer = await asker
      .elicitInput(
        { mode: 'url', elicitationId, url, message: `Connect your own ${server} account: the gateway acts on ${server} with each user's own account, and yours is not connected yet${reason}.` },
        { relatedRequestId: host.requestId, signal: host.signal, timeout: this.opts.config.timeouts.call_max_ms },
      )
      // A host that fails the elicitation (times out, errs) still gets the link, for the model to show.
      .catch(() => undefined);
    if (!answer) return showLink;
    if (answer.action !== 'accept') return `the user did not connect their ${server} account (${answer.action}); nothing was sent to ${server}`;
    if (!(await consentStored(this.opts.store, key, before, wait_seconds * 1000, host.signal))) {
      return `user ${accountText(user)} has not finished connecting their ${server} account yet; once done in the browser, ${again} again`;
    }
    await asker.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: host.requestId })().catch(() => undefined);
    notes.push(`${user} connected their ${server} account`);
    this.opts.connected?.(server, user);
    return undefined;
  }
}


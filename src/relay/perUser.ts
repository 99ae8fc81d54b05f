/**
 * Resources, templates, prompts and completions of upstreams marked per-user
 * (`auth: { oauth, per_user: true }`), for the relay: a user's come through that user's
 * own connection (upstream/users.ts), never another user's and never the gateway's own
 * catalog connection, whose lists only tell which upstream a name belongs to. A user who
 * has not connected their account (or must grant more scope) is offered the consent link,
 * as for a tool call (gateway/consent.ts), and the request runs once they have.
 */
import { ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import type { RemoteUpstreamConfig } from '../config/schema.js';
import { personText } from '../store/people.js';
import { NeedsAuthorizationError } from '../upstream/auth/errors.js';
import type { ListKind } from '../upstream/lists.js';
import type { RelayedUpstream } from '../upstream/types.js';
import type { UserConnections } from '../upstream/users.js';
import { RelayError } from './errors.js';
import type { RelayCaller } from './types.js';

/**
 * Offers `who` the consent link for `server` (URL elicitation where the host declared it).
 * @param again what the user is to do once connected ("read <uri>"), for the message.
 * @returns undefined once the user has connected (the request runs), else the message for
 *   the host: the link, a decline, or a consent not finished in time.
 */
export type OfferConsent = (who: RelayCaller & { userId: string }, server: string, why: NeedsAuthorizationError, again: string) => Promise<string | undefined>;

export interface PerUserRelayOptions {
  users: UserConnections;
  /** The per-user upstreams, in config order. */
  upstreams: Record<string, RemoteUpstreamConfig>;
  offer: OfferConsent;
}

/** A per-user request of a session without a user id, or a consent the user did not give. */
const refused = (message: string) => new RelayError(ProtocolErrorCode.InvalidRequest, message);

export class PerUserRelay {
  constructor(private readonly opts: PerUserRelayOptions) {}

  /** Whether `server` is a per-user upstream. */
  has(server: string): boolean {
    return server in this.opts.upstreams;
  }

  /**
   * The user's own lists of each per-user upstream, by name: undefined for those the user
   * has not connected (their entries are only routed to the consent link).
   */
  async own(user: string): Promise<Map<string, RelayedUpstream | undefined>> {
    const names = Object.keys(this.opts.upstreams);
    const lists = await Promise.all(names.map((name) => this.opts.users.lists(name, this.opts.upstreams[name]!, user)));
    return new Map(names.map((name, i) => [name, lists[i]]));
  }

  /**
   * Runs `fn` on the caller's own connection to `server`; without consent, offers the link
   * and runs it once the user has connected.
   * @param again what to do once connected, for the messages ("read <uri>").
   * @throws RelayError (InvalidRequest) for a session without a user id and a consent not given.
   */
  request<T>(who: RelayCaller, server: string, again: string, fn: (client: Client) => Promise<T>): Promise<T> {
    return this.withConsent(who, server, again, (user, cfg) => this.opts.users.request(server, cfg, user, fn));
  }

  /** Subscribes the caller's own connection to `uri` (consent as `request`). */
  subscribe(who: RelayCaller, server: string, uri: string): Promise<void> {
    return this.withConsent(who, server, `subscribe to ${uri}`, (user, cfg) => this.opts.users.subscribe(server, cfg, user, uri));
  }

  private async withConsent<T>(who: RelayCaller, server: string, again: string, run: (user: string, cfg: RemoteUpstreamConfig) => Promise<T>): Promise<T> {
    const user = who.userId;
    if (user === undefined) {
      throw refused(`upstream "${server}" acts with each user's own account, and this session has no user id: sign in to the gateway (http.oauth) or use a token with a user_id`);
    }
    const cfg = this.opts.upstreams[server]!;
    try {
      return await run(user, cfg);
    } catch (err) {
      if (!(err instanceof NeedsAuthorizationError)) throw err;
      const message = await this.opts.offer({ ...who, userId: user }, server, err, again);
      if (message !== undefined) throw refused(message);
    }
    try {
      return await run(user, cfg);
    } catch (err) {
      if (err instanceof NeedsAuthorizationError) throw refused(`upstream "${server}" still refuses the account ${personText(user)} connected (${err.reason}); ${again} again for a new link`);
      throw err;
    }
  }

  unsubscribe(server: string, user: string, uri: string): Promise<void> {
    return this.opts.users.unsubscribe(server, user, uri);
  }

  /** Listens to users' own connections: their list changes (kind, user), resource updates (upstream, user, uri) and subscriptions lost with a connection not renewed (upstream, user, uris). */
  listen(lists: (kind: ListKind, user: string) => void, updated: (server: string, user: string, uri: string) => void, ended: (server: string, user: string, uris: string[]) => void): void {
    this.opts.users.on('lists-changed', (_server: string, user: string, kind: ListKind) => lists(kind, user));
    this.opts.users.on('resource-updated', updated);
    this.opts.users.on('subscriptions-ended', ended);
  }
}

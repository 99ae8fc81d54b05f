/**
 * resources/subscribe across sessions: one upstream subscription per (channel, URI),
 * counted over the sessions that hold it. A channel is an upstream's shared connection, or
 * one user's own connection to a per-user upstream (`<upstream>@<user>`). The first session's subscribe goes upstream,
 * the last one's unsubscribe (or its session's end) too. An upstream's
 * `notifications/resources/updated` goes to exactly the sessions subscribed to that URI,
 * under the URI each of them used, if that session may still read it: a configuration
 * reload that narrows access ends the subscriptions of sessions that may no longer read
 * the URI (at its next update), and the upstream's when no session may. After a reconnect
 * the upstream is subscribed again; a user's connection that could not be renewed ends its
 * subscriptions (`ended`), and a host subscribing again starts them anew. Whatever the
 * upstream's era: a 2026-07-28 upstream takes its subscriptions on the connection's
 * subscriptions/listen stream (upstream/listen.ts), and its updates come back the same way.
 */
import type { UpstreamPool } from '../upstream/pool.js';
import { log } from '../log.js';

/** Sends `notifications/resources/updated` for `uri` to one session. */
export type Notify = (uri: string) => void;

/** Where subscriptions go: `via` names it (the upstream, or `<upstream>@<user>`). */
export interface Channel {
  via: string;
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
}

/** One session's hold on a subscription: the URI it used, how to reach it, and whether it may still read the URI (by the rules in force now). */
export interface Holder {
  exposed: string;
  notify: Notify;
  mayRead: () => boolean;
}

interface Subscription {
  channel: Channel;
  uri: string;
  /** session id → that session's hold. */
  sessions: Map<string, Holder>;
}

/** Subscriptions one session may hold at once; a host asking for more gets an error, not unbounded state. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1000;

const keyOf = (server: string, uri: string) => `${server}\u0000${uri}`;

export class Subscriptions {
  private readonly subs = new Map<string, Subscription>();

  constructor(private readonly pool: UpstreamPool) {
    pool.on('resource-updated', (server: string, uri: string) => this.updated(server, uri));
    pool.on('reconnected', (server: string) => void this.resubscribe(server));
  }

  /** Number of sessions holding (via, uri); 0 when nobody does. */
  holders(via: string, uri: string): number {
    return this.subs.get(keyOf(via, uri))?.sessions.size ?? 0;
  }

  /** An upstream's shared connection as a channel. */
  private shared(server: string): Channel {
    return { via: server, subscribe: (uri) => this.pool.subscribeResource(server, uri), unsubscribe: (uri) => this.pool.unsubscribeResource(server, uri) };
  }

  /**
   * Adds the session; subscribes upstream when it is the first.
   * @param channel default: the shared connection of `target.server`.
   * @throws the upstream's error when its subscribe fails (the session is not added).
   */
  async subscribe(sessionId: string, target: { server: string; uri: string; exposed: string }, holder: Omit<Holder, 'exposed'>, channel = this.shared(target.server)): Promise<void> {
    const key = keyOf(channel.via, target.uri);
    if (this.subs.get(key)?.sessions.has(sessionId)) return;
    if (this.held(sessionId).length >= MAX_SUBSCRIPTIONS_PER_SESSION) {
      throw new Error(`this session already holds ${MAX_SUBSCRIPTIONS_PER_SESSION} subscriptions; unsubscribe from some first`);
    }
    let sub = this.subs.get(key);
    if (!sub) {
      sub = { channel, uri: target.uri, sessions: new Map() };
      this.subs.set(key, sub);
    }
    const first = sub.sessions.size === 0;
    sub.sessions.set(sessionId, { ...holder, exposed: target.exposed });
    if (!first) return;
    try {
      await channel.subscribe(target.uri);
    } catch (err) {
      sub.sessions.delete(sessionId);
      if (sub.sessions.size === 0) this.subs.delete(key);
      throw err;
    }
  }

  /** Removes the session; unsubscribes upstream when no session holds the URI any more. */
  async unsubscribe(sessionId: string, via: string, uri: string): Promise<void> {
    const key = keyOf(via, uri);
    const sub = this.subs.get(key);
    if (!sub?.sessions.delete(sessionId) || sub.sessions.size > 0) return;
    this.subs.delete(key);
    try {
      await sub.channel.unsubscribe(uri);
    } catch (err) {
      log.warn({ upstream: via, uri, err: (err as Error).message }, 'upstream unsubscribe failed');
    }
  }

  /** A session ended: drop all its subscriptions. */
  async dropSession(sessionId: string): Promise<void> {
    await Promise.all(this.held(sessionId).map((s) => this.unsubscribe(sessionId, s.channel.via, s.uri)));
  }

  private held(sessionId: string): Subscription[] {
    return [...this.subs.values()].filter((s) => s.sessions.has(sessionId));
  }

  /** `uri` changed upstream, as the connection `via` says: the sessions that may still read it are told; the others' subscriptions end here. */
  updated(via: string, uri: string): void {
    const sub = this.subs.get(keyOf(via, uri));
    for (const [sessionId, { exposed, notify, mayRead }] of sub?.sessions ?? []) {
      if (mayRead()) {
        notify(exposed);
        continue;
      }
      log.info({ upstream: via, uri, session: sessionId }, 'subscription ended: the session may no longer read the resource');
      void this.unsubscribe(sessionId, via, uri);
    }
  }

  /** The connection `via` lost these subscriptions for good (users.ts could not renew it): every session's hold on them ends, with nothing to send upstream. */
  ended(via: string, uris: readonly string[]): void {
    for (const uri of uris) this.subs.delete(keyOf(via, uri));
  }

  /** Together: a 2026 upstream's listen stream takes them in one filter. */
  private async resubscribe(server: string): Promise<void> {
    const again = [...this.subs.values()].filter((sub) => sub.channel.via === server);
    await Promise.all(again.map((sub) => sub.channel.subscribe(sub.uri).catch((err: Error) => log.warn({ upstream: server, uri: sub.uri, err: err.message }, 'could not subscribe again after reconnect'))));
  }
}

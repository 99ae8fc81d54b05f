/**
 * Upstreams marked `auth.per_user`: one MCP client per (upstream, user), each carrying
 * that user's own tokens (subject = the user id) and refreshing them under its own lock
 * (`oauth:<upstream>:<user>`, refresh.ts), so no call of one user ever travels with
 * another's token. Connections open on a user's first call, close after `idleMs` unused,
 * and at most `maxConnections` stay open (the least recently used idle one closes first).
 * A user without consent, or whose grant was withdrawn, gets NeedsAuthorizationError: the
 * gateway turns it into a consent link (gateway/consent.ts). The pool's own connection to
 * such an upstream only lists its tools (pool.ts).
 *
 * A user's connection also carries that user's resources, templates and prompts (listed
 * once per connection, again after its list_changed) and their reads, gets, completions
 * and subscriptions (`request`, `subscribe`). Events: `lists-changed` (upstream, user,
 * kind) and `resource-updated` (upstream, user, uri), from that user's connection only;
 * `subscriptions-ended` (upstream, user, uris) when a connection holding subscriptions was
 * lost and could not be renewed (`renew`): those subscriptions are gone.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import type { RemoteUpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
import type { Store } from '../store/types.js';
import { NeedsAuthorizationError } from './auth/errors.js';
import { observed, type TokensSeen } from './auth/index.js';
import { StoreOAuthProvider } from './auth/provider.js';
import { forwardCall, sessionGone, type CallTarget, type UpstreamOutcome } from './call.js';
import { connectUpstream, type Connection } from './connect.js';
import { watchChanges, type ResourceWatch } from './listen.js';
import { fetchLists, type ListKind, type RelayLists } from './lists.js';
import { DEFAULT_MAX_RESULT_BYTES, type CallOptions, type RelayedUpstream } from './types.js';

export interface UserConnectionsOptions {
  baseDir: string;
  startupMs: number;
  callMs: number;
  callMaxMs?: number;
  /** Bound on a tool result, in bytes of its JSON. Default 10 MiB. */
  maxResultBytes?: number;
  /** What the gateway's client declares to the upstream (what the relay can pass on). */
  capabilities?: ClientCapabilities;
  store: Pick<Store, 'oauth' | 'lock' | 'events' | 'eras' | 'responseCache'>;
  /** Connections kept open across users (those holding a subscription stay open beyond it). */
  maxConnections: number;
  /** Items per list of a user's resources, templates and prompts (config `relay.max_items`). Default 5000. */
  maxItems?: number;
  /** A connection unused this long is closed, in ms. */
  idleMs: number;
  /** Each new connection, with its relay key `<upstream>@<user>` and its upstream's name, before its first call (the relay's handlers). */
  onConnected?: (key: string, client: Client, upstream: string) => void;
  /** Learns the tokens each user's provider hands out (auth/index.ts TokensSeen). */
  tokensSeen?: TokensSeen;
  /** First wait between a renewal's attempts, in ms (doubling up to RENEW_MAX_DELAY_MS). Default RENEW_BASE_DELAY_MS. */
  renewBaseMs?: number;
}

/** Attempts a renewal of a connection holding subscriptions makes before its subscriptions end (one for a connection without). */
export const RENEW_ATTEMPTS = 5;
export const RENEW_BASE_DELAY_MS = 1000;
export const RENEW_MAX_DELAY_MS = 30_000;
/** What the SDK's Streamable HTTP client reports when its GET stream stops reconnecting: no notification arrives any more. */
const GET_STREAM_GAVE_UP = /Maximum reconnection attempts/;

/** A user's connection with its changes and resource subscriptions (listen.ts). */
type Watched = Connection & { watch: ResourceWatch };

interface Entry {
  upstream: string;
  user: string;
  cfg: RemoteUpstreamConfig;
  conn: Promise<Watched>;
  /** The user's tokens, as the connection reads them. */
  provider: StoreOAuthProvider;
  lastUsed: number;
  inFlight: number;
  /** The user's lists through this connection; dropped by its list_changed. */
  lists?: Promise<RelayLists>;
  /** URIs this connection is subscribed to: while any, it is neither idle nor evicted. */
  subscribed: Set<string>;
  /** The entry replacing this one, whose session the upstream forgot (renew). */
  renewal?: Promise<Entry | undefined>;
}

/** The relay key of a user's connection: questions it asks go only to that user's call. */
export const userKey = (upstream: string, user: string) => `${upstream}@${user}`;

/** The configured upstream of a relay key, a user's (`<upstream>@<user>`) or the shared one: upstream names have no `@` (config/schema.ts). */
export const upstreamOfKey = (key: string) => key.split('@', 1)[0]!;

export class UserConnections extends EventEmitter {
  /** By `upstream\0user`, least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly stopEvents: () => void;
  /** Aborted by closeAll(): a renewal waiting between attempts stops. */
  private readonly stopped = new AbortController();

  constructor(private readonly opts: UserConnectionsOptions) {
    super();
    this.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), Math.min(opts.idleMs, 60_000));
    this.sweeper.unref();
    // A logout (here or on another replica) closes the user's connection at once.
    this.stopEvents = opts.store.events.on('oauth', ({ upstream, subject }) => {
      if (subject !== '' && this.entries.has(`${upstream}\0${subject}`)) void this.closeIfLoggedOut(upstream, subject);
    });
  }

  /** How many connections are open (or opening). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Calls `tool` of `upstream` as `user` (call.ts: timeouts, bounds, one retry on a new session).
   * @throws NeedsAuthorizationError when the user has no consent (or it was withdrawn, or a
   *   step-up is asked for); UrlElicitationRequiredError as the upstream sent it.
   * @returns the upstream's result, or an MCP error result for any other failure.
   */
  async call(upstream: string, cfg: RemoteUpstreamConfig, user: string, tool: string, args: Record<string, unknown>, relayed: CallOptions = {}): Promise<UpstreamOutcome> {
    const id = `${upstream}\0${user}`;
    let entry = this.open(upstream, cfg, user);
    let conn: Connection | undefined;
    let needed: NeedsAuthorizationError | undefined;
    const target: CallTarget = {
      server: upstream,
      conn: () => conn,
      // The upstream forgot the session (it restarted): a new connection, holding the same subscriptions.
      reinitialize: async () => {
        const fresh = await this.renew(id, entry);
        if (!fresh) return false;
        [fresh.inFlight, entry.inFlight, entry] = [fresh.inFlight + 1, entry.inFlight - 1, fresh];
        conn = await fresh.conn.catch(() => undefined);
        return conn !== undefined;
      },
      consentLost: () => void this.close(id, entry),
      consentNeeded: (err) => void (needed = err),
    };
    entry.inFlight++;
    try {
      try {
        conn = await this.connected(id, entry);
      } catch (err) {
        if (err instanceof NeedsAuthorizationError) throw err;
        return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
      }
      const limits = { callMs: this.opts.callMs, callMaxMs: this.opts.callMaxMs, maxResultBytes: this.opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES };
      const result = await forwardCall(target, tool, args, relayed, limits);
      if (needed) throw needed;
      return result;
    } finally {
      entry.inFlight--;
      entry.lastUsed = Date.now();
    }
  }

  /**
   * Runs `fn` (a read, a get, a completion, a subscription) on the user's own connection, opened if need be.
   * @throws NeedsAuthorizationError when the user has no consent (or it was withdrawn, or a
   *   step-up is asked for); the upstream's error as it came; an Error naming the upstream
   *   when the connection cannot be opened.
   */
  async request<T>(upstream: string, cfg: RemoteUpstreamConfig, user: string, fn: (client: Client, conn: Watched) => Promise<T>): Promise<T> {
    const id = `${upstream}\0${user}`;
    let entry = this.open(upstream, cfg, user);
    entry.inFlight++;
    const attempt = async (): Promise<T> => {
      const conn = await this.connected(id, entry);
      try {
        return await fn(conn.client, conn);
      } catch (err) {
        const explained = conn.explain?.(err);
        if (!(explained instanceof NeedsAuthorizationError)) throw err;
        // A step-up concerns this request only; anything else ends the connection's use.
        if (explained.reason !== 'step_up') void this.close(id, entry);
        throw explained;
      }
    };
    try {
      try {
        return await attempt();
      } catch (err) {
        // The upstream forgot the session (it restarted): the request was refused, not run; once more on a new one.
        const fresh = sessionGone(err) ? await this.renew(id, entry) : undefined;
        if (!fresh) throw err;
        [fresh.inFlight, entry.inFlight, entry] = [fresh.inFlight + 1, entry.inFlight - 1, fresh];
        return await attempt();
      }
    } finally {
      entry.inFlight--;
      entry.lastUsed = Date.now();
    }
  }


  /**
   * The user's own resources, templates and prompts of `upstream`, as their account lists
   * them; undefined when the user holds no tokens for it (nothing is opened then) or their
   * connection cannot be opened. Listed once per connection and again after its list_changed.
   */
  async lists(upstream: string, cfg: RemoteUpstreamConfig, user: string): Promise<RelayedUpstream | undefined> {
    if ((await this.opts.store.oauth.get({ upstream, subject: user, url: cfg.url }, 'tokens')) === undefined) return undefined;
    const id = `${upstream}\0${user}`;
    const entry = this.open(upstream, cfg, user);
    entry.inFlight++;
    try {
      const conn = await this.connected(id, entry).catch(() => undefined);
      if (!conn) return undefined;
      const caps = conn.client.getServerCapabilities() ?? {};
      entry.lists ??= fetchLists(upstream, conn.client, caps, { timeoutMs: cfg.startup_timeout_ms ?? this.opts.startupMs, maxItems: this.opts.maxItems ?? 5000 });
      return { name: upstream, caps, lists: await entry.lists };
    } finally {
      entry.inFlight--;
      entry.lastUsed = Date.now();
    }
  }

  /** Subscribes the user's own connection to `uri`; it stays open while it holds a subscription. Throws as `request`. */
  async subscribe(upstream: string, cfg: RemoteUpstreamConfig, user: string, uri: string): Promise<void> {
    await this.request(upstream, cfg, user, (_, conn) => conn.watch.subscribe(uri));
    this.entries.get(`${upstream}\0${user}`)?.subscribed.add(uri);
  }

  /** Ends the user's subscription to `uri`, if their connection is still open (a closed one holds none). */
  async unsubscribe(upstream: string, user: string, uri: string): Promise<void> {
    const entry = this.entries.get(`${upstream}\0${user}`);
    if (!entry?.subscribed.delete(uri)) return;
    const conn = await entry.conn.catch(() => undefined);
    await conn?.watch.unsubscribe(uri).catch((err: Error) => log.warn({ upstream, user, uri, err: err.message }, 'upstream unsubscribe failed'));
  }

  /** The entry's connection; one that never opened is dropped (only this one: a newer entry stays) so the next request tries again. */
  private async connected(id: string, entry: Entry): Promise<Watched> {
    try {
      return await entry.conn;
    } catch (err) {
      void this.close(id, entry);
      if (err instanceof NeedsAuthorizationError) throw err;
      throw new Error(`upstream "${entry.upstream}" is unavailable: ${(err as Error).message}`);
    }
  }

  /** The user's entry, opening a connection if there is none; marks it most recently used. */
  private open(upstream: string, cfg: RemoteUpstreamConfig, user: string): Entry {
    const id = `${upstream}\0${user}`;
    let entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.entries.set(id, entry);
      return entry;
    }
    const oauth = cfg.auth && 'oauth' in cfg.auth ? cfg.auth.oauth : undefined;
    if (!oauth) throw new Error(`upstream "${upstream}" is not an oauth upstream; per_user needs auth: { oauth: …, per_user: true }`);
    const provider = observed(new StoreOAuthProvider({ upstream, subject: user, url: cfg.url, store: this.opts.store, config: oauth, mode: 'unattended' }), upstream, user, this.opts.tokensSeen);
    const ms = cfg.startup_timeout_ms ?? this.opts.startupMs;
    const conn: Promise<Watched> = connectUpstream(upstream, cfg, this.opts.baseDir, ms, provider, { capabilities: this.opts.capabilities, maxMessageBytes: this.opts.maxResultBytes, memory: this.opts.store, principal: user }).then((c) => {
      this.opts.onConnected?.(userKey(upstream, user), c.client, upstream);
      const changed = (kind: ListKind) => {
        const e = this.entries.get(id);
        if (e?.conn === conn) e.lists = undefined;
        this.emit('lists-changed', upstream, user, kind);
      };
      c.client.setNotificationHandler('notifications/resources/list_changed', () => changed('resources'));
      c.client.setNotificationHandler('notifications/prompts/list_changed', () => changed('prompts'));
      c.client.setNotificationHandler('notifications/resources/updated', (n) => void this.emit('resource-updated', upstream, user, n.params.uri));
      const watch = watchChanges(upstream, c, { current: () => this.entries.get(id)?.conn === conn, timeoutMs: this.opts.callMs });
      // Closed without the gateway closing it (close() removes the entry first): one holding subscriptions is renewed.
      c.client.onclose = () => {
        const e = this.entries.get(id);
        if (e?.conn !== conn) return;
        if (e.subscribed.size > 0) void this.renew(id, e);
        else this.entries.delete(id);
      };
      // The GET stream found the session gone (the upstream restarted while no request reached it), or stopped reconnecting: its subscriptions need a new connection.
      c.client.onerror = (err) => {
        const e = this.entries.get(id);
        if (e?.conn === conn && e.subscribed.size > 0 && (sessionGone(err) || GET_STREAM_GAVE_UP.test(err.message))) void this.renew(id, e);
      };
      return { ...c, watch };
    });
    conn.catch(() => undefined);
    entry = { upstream, user, cfg, conn, provider, lastUsed: Date.now(), inFlight: 0, subscribed: new Set() };
    this.entries.set(id, entry);
    this.evict();
    return entry;
  }

  /**
   * A new connection in place of `entry`'s, whose session the upstream forgot or which
   * closed, subscribed to the same URIs with the user's stored tokens (never a consent
   * prompt); callers meeting the same loss share it. One holding subscriptions tries
   * RENEW_ATTEMPTS times, waiting twice as long each time (capped), while the upstream is
   * away. The old connection closes once the new one is up (a request still in flight on
   * it meets its own 404 and comes here). Undefined when no new connection opens. URIs
   * not subscribed again end: logged, and `subscriptions-ended` tells the relay.
   */
  private renew(id: string, entry: Entry): Promise<Entry | undefined> {
    const current = this.entries.get(id);
    if (current !== entry) return entry.renewal ?? Promise.resolve(current);
    entry.renewal ??= (async () => {
      const { upstream, user } = entry;
      log.warn({ upstream, user }, 'a per-user upstream lost the connection of this user; opening a new one');
      this.entries.delete(id);
      const attempts = entry.subscribed.size > 0 ? RENEW_ATTEMPTS : 1;
      let fresh: Entry | undefined;
      let conn: Watched | undefined;
      // Consent is given by the user on a request of theirs, never during a renewal: a refusal ends it.
      let refused = false;
      for (let attempt = 1; !conn && !refused && attempt <= attempts; attempt++) {
        if (attempt > 1) await sleep(Math.min((this.opts.renewBaseMs ?? RENEW_BASE_DELAY_MS) * 2 ** (attempt - 2), RENEW_MAX_DELAY_MS), undefined, { signal: this.stopped.signal, ref: false }).catch(() => undefined);
        if (this.stopped.signal.aborted) break;
        fresh = this.open(upstream, entry.cfg, user);
        conn = await this.connected(id, fresh).catch((err: Error) => {
          refused = err instanceof NeedsAuthorizationError;
          return void log.warn({ upstream, user, attempt, of: attempts, err: err.message }, 'could not open a new per-user connection');
        });
      }
      void entry.conn.then((c) => c.client.close()).catch(() => undefined);
      const ended: string[] = [];
      // Together: a 2026 upstream's listen stream takes them in one filter.
      const uris = [...entry.subscribed];
      const again = await Promise.all(uris.map((uri) => conn?.watch.subscribe(uri).then(() => true, (err: Error) => void log.warn({ upstream, user, uri, err: err.message }, 'could not subscribe again on the new connection'))));
      uris.forEach((uri, i) => (again[i] ? fresh!.subscribed.add(uri) : ended.push(uri)));
      if (ended.length > 0 && !this.stopped.signal.aborted) {
        log.warn({ upstream, user, subscriptions: ended.length }, 'per-user connection not renewed: this user\'s subscriptions end (their hosts must subscribe again)');
        this.emit('subscriptions-ended', upstream, user, ended);
      }
      return conn && fresh;
    })();
    return entry.renewal;
  }

  /** Past the cap, closes the least recently used connections that have no call in flight. */
  private evict(): void {
    for (const [id, e] of this.entries) {
      if (this.entries.size <= this.opts.maxConnections) break;
      if (e.inFlight > 0 || e.subscribed.size > 0) continue;
      log.debug({ upstream: e.upstream, user: e.user }, 'closing the least recently used per-user upstream connection');
      void this.close(id, e);
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, e] of this.entries) if (e.inFlight === 0 && e.subscribed.size === 0 && now - e.lastUsed > this.opts.idleMs) void this.close(id, e);
  }

  private async closeIfLoggedOut(upstream: string, user: string): Promise<void> {
    const id = `${upstream}\0${user}`;
    const e = this.entries.get(id);
    // A call in flight meets the missing tokens itself (and is offered consent); closing under it would only garble its error.
    if (!e || e.inFlight > 0) return;
    const tokens = await e.provider.tokens().catch(() => undefined);
    if (tokens === undefined && this.entries.get(id) === e && e.inFlight === 0) await this.close(id, e);
  }

  private async close(id: string, e: Entry): Promise<void> {
    if (this.entries.get(id) === e) this.entries.delete(id);
    const conn = await e.conn.catch(() => undefined);
    await conn?.client.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.stopped.abort();
    this.stopEvents();
    await Promise.all([...this.entries].map(([id, e]) => this.close(id, e)));
  }
}

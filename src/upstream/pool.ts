/**
 * One MCP client per upstream: starts them independently — each upstream's tools join as
 * soon as it is ready, and a slow or hung one holds no other back — lists their tools
 * (following pagination cursors), follows their `list_changed` notifications (a burst of
 * them costs one re-list), reconnects with backoff when one goes away, and forwards calls
 * with their results bounded in size. A failing upstream is reported on stderr and
 * skipped; it never takes the pool down.
 */
import { EventEmitter, setMaxListeners } from 'node:events';
import type { CacheMode, CallToolResult, Client, OAuthClientProvider, ServerCapabilities, Tool } from '@modelcontextprotocol/client';
import type { ServerInfo } from '../catalog/catalog.js';
import { Coalescer } from '../coalesce.js';
import type { RemoteUpstreamConfig, UpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
import { authMethod, isPerUser, NeedsAuthorizationError, UpstreamAuthError } from './auth/index.js';
import { StoreOAuthProvider } from './auth/provider.js';
import { moreScope } from './auth/stepUp.js';
import { notConnected, type Down } from './notConnected.js';
import { errorResult, forwardCall, sessionGone, type CallTarget, type UpstreamOutcome } from './call.js';
import { connectUpstream, withTimeout, type Connection } from './connect.js';
import { EMPTY_LISTS, fetchLists, type ListKind, type RelayLists } from './lists.js';
import { watchChanges, type ResourceWatch } from './listen.js';
import { DEFAULT_MAX_RESULT_BYTES, type CallOptions, type PoolOptions, type RelayedUpstream, type UpstreamAuthStatus, type UpstreamState, type UpstreamStatus } from './types.js';

export type { CallOptions, PoolOptions, RelayedUpstream, UpstreamAuthStatus, UpstreamState, UpstreamStatus } from './types.js';

interface Upstream {
  name: string;
  cfg: UpstreamConfig;
  state: UpstreamState;
  conn?: Connection;
  tools: Tool[];
  /** What the upstream declared at initialize; kept for the host-facing capabilities. */
  caps?: ServerCapabilities;
  /** Its title and instructions from initialize, for the catalog (the curator indexes them). */
  info?: ServerInfo;
  /** Its resources, templates and prompts (lists.ts). */
  lists: RelayLists;
  /** The current connection's changes and resource subscriptions (listen.ts). */
  watch?: ResourceWatch;
  error?: string;
  /** Since when it is `failed`, and whether it had been connected (notConnected.ts). */
  down?: Down;
  retries: number;
  retryTimer?: NodeJS.Timeout;
  authState?: UpstreamAuthStatus['state'];
  /** The OAuth provider of the current connection (remote upstreams with `auth`). */
  provider?: OAuthClientProvider;
  /** Stored OAuth state version when consent was found missing. */
  authVersion?: number;
  /** A re-initialization in progress after the upstream forgot our session; concurrent calls share it. */
  reinit?: Promise<boolean>;
  /** One tools/list for a burst of its tools/list_changed notifications. */
  toolsRelist: Coalescer;
  /** One re-list per kind for a burst of its resources/prompts list_changed notifications. */
  listsRelist: Coalescer;
  /** The kinds named by the notifications of the current burst. */
  listKinds: Set<ListKind>;
  /** Notifications folded into the next re-list (for the log line). */
  notices: number;
}

/** Default gap within which one upstream's list_changed notifications cause one re-list. */
const COALESCE_MS = 100;

/**
 * Lists every tool of a connected client: the SDK follows `nextCursor` (at most 64 pages;
 * a cursor that repeats with the same page ends the walk) and serves or stores the list
 * as the upstream's caching hints allow (responseCache.ts). `refresh` after a
 * list_changed: the notification says the cached list is stale whatever its `ttlMs`.
 */
export async function listAllTools(conn: Pick<Connection, 'client'>, timeoutMs: number, cacheMode: CacheMode = 'use'): Promise<Tool[]> {
  return (await conn.client.listTools(undefined, { timeout: timeoutMs, cacheMode })).tools;
}

/**
 * Events: `change` when the tools of the pool change (an upstream arrives with tools,
 * changes its list, leaves for consent, or comes back with a different list);
 * `relay-change` (server, kind) when its resources or prompts do; `connected` (name,
 * client) for every new connection, before its first tools/call, for the relay;
 * `reconnected` (name) after a reconnect or a new session (subscriptions are made again);
 * `resource-updated` (name, uri).
 */
export class UpstreamPool extends EventEmitter {
  private readonly upstreams = new Map<string, Upstream>();
  private closing = false;
  /** Aborted by close(): connects still in progress end at once (a hung upstream's process too). */
  private readonly stop = new AbortController();

  constructor(
    configs: Record<string, UpstreamConfig>,
    private readonly opts: PoolOptions,
  ) {
    super();
    // Every upstream starting (and each handshake) listens for the pool's stop at once: more than Node's default 10 is expected.
    setMaxListeners(0, this.stop.signal);
    const coalesceMs = opts.coalesceMs ?? COALESCE_MS;
    for (const [name, cfg] of Object.entries(configs)) {
      const u: Upstream = {
        name, cfg, state: 'connecting', tools: [], lists: EMPTY_LISTS, retries: 0, listKinds: new Set(), notices: 0,
        toolsRelist: new Coalescer(() => this.relistTools(u), coalesceMs),
        listsRelist: new Coalescer(() => this.relistLists(u), coalesceMs),
      };
      this.upstreams.set(name, u);
    }
  }

  /**
   * Connects every upstream in parallel; each one's tools are announced (`change`) as soon
   * as it is ready. Resolves once every upstream is ready or has failed (after its
   * start-up timeout at the latest). Never rejects: failures are logged and kept in status().
   */
  async start(): Promise<void> {
    await Promise.all(
      [...this.upstreams.values()].map(async (u) => {
        const started = performance.now();
        if (!(await this.connect(u))) return;
        log.info({ upstream: u.name, era: u.conn?.era, tools: u.tools.length, ms: Math.round(performance.now() - started) }, `upstream "${u.name}" ready`);
        this.announce(u);
      }),
    );
    const ready = this.status().filter((s) => s.state === 'ready');
    log.info({ ready: ready.length, total: this.upstreams.size, tools: ready.reduce((n, s) => n + s.tools, 0) }, 'upstreams connected');
  }

  /** Tells the listeners what a newly arrived upstream brings. */
  private announce(u: Upstream): void {
    if (u.tools.length > 0) this.emit('change');
    if (u.lists.resources.length + u.lists.templates.length > 0) this.emit('relay-change', u.name, 'resources');
    if (u.lists.prompts.length > 0) this.emit('relay-change', u.name, 'prompts');
  }

  private async connect(u: Upstream): Promise<boolean> {
    // A retry keeps reporting 'failed' (or 'needs_authorization') with the last error until it succeeds.
    if (u.state !== 'failed' && u.state !== 'needs_authorization') u.state = 'connecting';
    const ms = u.cfg.startup_timeout_ms ?? this.opts.startupMs;
    let conn: Connection | undefined;
    u.provider = 'url' in u.cfg ? this.opts.auth?.provider(u.name, u.cfg) : undefined;
    // A close() during the lists below ends them too, rather than waiting for their timeout.
    const closeOnStop = () => void conn?.client.close().catch(() => undefined);
    this.stop.signal.addEventListener('abort', closeOnStop, { once: true });
    try {
      conn = await connectUpstream(u.name, u.cfg, this.opts.baseDir, ms, u.provider, {
        capabilities: this.opts.capabilities,
        maxMessageBytes: this.maxMessageBytes,
        signal: this.stop.signal,
        memory: this.opts.memory,
      });
      const caps = conn.client.getServerCapabilities();
      // A server of resources or prompts only has no tools/list to call.
      const tools = caps?.tools
        ? await withTimeout(listAllTools(conn, ms), ms, `tools/list of upstream "${u.name}"`).catch((err) => {
            throw conn?.explain?.(err) ?? err;
          })
        : [];
      const lists = await fetchLists(u.name, conn.client, caps, { timeoutMs: ms, maxItems: this.opts.maxItems ?? 5000 });
      if (this.closing) {
        await conn.client.close();
        return false;
      }
      // The step-up scope a tool asked for before (another process, an earlier run) shows in status().
      if (u.provider instanceof StoreOAuthProvider) await u.provider.pendingScope().catch(() => undefined);
      const version = conn.client.getServerVersion();
      const info: ServerInfo = { title: version?.title ?? version?.name, instructions: conn.client.getInstructions() };
      Object.assign(u, { conn, tools, caps, info, lists, state: 'ready', error: undefined, down: undefined, retries: 0, authState: 'ok' });
      conn.client.setNotificationHandler('notifications/tools/list_changed', () => this.noticed(u, u.toolsRelist));
      conn.client.setNotificationHandler('notifications/resources/list_changed', () => this.noticed(u, u.listsRelist, 'resources'));
      conn.client.setNotificationHandler('notifications/prompts/list_changed', () => this.noticed(u, u.listsRelist, 'prompts'));
      conn.client.setNotificationHandler('notifications/resources/updated', (n) => void this.emit('resource-updated', u.name, n.params.uri));
      // A 2026 upstream sends its changes only on a subscriptions/listen stream; one is kept open while connected.
      u.watch = watchChanges(u.name, conn, { current: () => u.conn === conn && !this.closing, timeoutMs: this.opts.callMs });
      conn.client.onclose = () => this.lost(u, conn!);
      // The GET stream found our session gone (the upstream restarted while no call reached it): a new session, and its subscriptions again.
      conn.client.onerror = (err) => {
        if (sessionGone(err)) void this.reinitialize(u, conn!);
      };
      this.emit('connected', u.name, conn.client);
      return true;
    } catch (err) {
      // A stored era verdict that led here is not trusted again: the next attempt probes.
      await conn?.forgetEra();
      await conn?.client.close().catch(() => undefined);
      // A start cut short by the gateway's own shutdown is no failure: the upstream stays 'closed'.
      if (this.closing) return false;
      if (err instanceof NeedsAuthorizationError) return this.awaitConsent(u, err);
      u.state = 'failed';
      u.error = (err as Error).message;
      // A failed retry keeps the time of the first failure (or of the loss).
      u.down ??= { since: Date.now(), lost: false };
      u.authState = err instanceof UpstreamAuthError ? 'refused' : u.authState;
      log.error({ upstream: u.name, err: u.error }, `upstream "${u.name}" failed to start; serving the others`);
      this.scheduleReconnect(u);
      return false;
    } finally {
      this.stop.signal.removeEventListener('abort', closeOnStop);
    }
  }

  private get maxMessageBytes(): number {
    return this.opts.maxMessageBytes ?? this.opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  }

  /**
   * No consent to act for the configured account: the upstream's tools leave the catalog
   * and the pool waits, without network traffic, until the store changes (a
   * `tool-curator auth` run), then connects again.
   */
  private awaitConsent(u: Upstream, err: NeedsAuthorizationError): false {
    const first = u.state !== 'needs_authorization';
    Object.assign(u, { state: 'needs_authorization', error: err.message, authState: 'needs_authorization', conn: undefined });
    // Unusable since the first of its failure, its loss or this wait.
    u.down ??= { since: Date.now(), lost: false };
    if (first) log.warn({ upstream: u.name }, err.message);
    if (u.tools.length > 0) {
      u.tools = [];
      this.emit('change');
    }
    const version = () => this.opts.auth?.version(u.name).catch(() => u.authVersion) ?? Promise.resolve(0);
    const poll = () => {
      u.retryTimer = setTimeout(async () => {
        u.retryTimer = undefined;
        if (this.closing) return;
        if ((await version()) === u.authVersion) return poll();
        if (await this.connect(u)) {
          log.info({ upstream: u.name, tools: u.tools.length }, `upstream "${u.name}" authorized`);
          this.announce(u);
        }
      }, this.opts.authPollMs ?? 2000);
      u.retryTimer.unref();
    };
    void version().then((v) => {
      u.authVersion = v;
      if (!this.closing) poll();
    });
    return false;
  }

  /** A list_changed notification: counted, and folded into the burst's one re-list. */
  private noticed(u: Upstream, relist: Coalescer, kind?: ListKind): void {
    u.notices++;
    if (kind) u.listKinds.add(kind);
    relist.request();
  }

  private async relistTools(u: Upstream): Promise<void> {
    const notices = u.notices;
    u.notices = 0;
    if (!u.conn || u.state !== 'ready') return;
    try {
      const tools = await withTimeout(listAllTools(u.conn, this.opts.startupMs, 'refresh'), this.opts.startupMs, `tools/list of upstream "${u.name}"`);
      const changed = JSON.stringify(tools) !== JSON.stringify(u.tools);
      u.tools = tools;
      log.info({ upstream: u.name, tools: tools.length, notifications: notices, changed }, 'upstream tool list re-listed after list_changed');
      if (changed) this.emit('change');
    } catch (err) {
      log.warn({ upstream: u.name, err: (err as Error).message }, 'could not re-list tools after list_changed');
    }
  }

  /** An upstream's resources or prompts changed: re-list the kinds named, then emit `relay-change` (server, kind) for each. */
  private async relistLists(u: Upstream): Promise<void> {
    const kinds = [...u.listKinds];
    u.listKinds.clear();
    if (!u.conn || u.state !== 'ready') return;
    u.lists = await fetchLists(u.name, u.conn.client, u.caps, { timeoutMs: this.opts.startupMs, maxItems: this.opts.maxItems ?? 5000 }, kinds, u.lists);
    log.info({ upstream: u.name, kinds }, 'upstream lists re-listed after list_changed');
    for (const kind of kinds) this.emit('relay-change', u.name, kind);
  }

  /**
   * The upstream went away. Its tools stay in the catalog while it reconnects: a call
   * meanwhile gets "unavailable, try again" instead of being corrected onto some other
   * server's look-alike tool, and hosts' tool lists (and prompt caches) stay stable.
   */
  private lost(u: Upstream, conn: Connection): void {
    if (this.closing || u.conn !== conn) return;
    u.conn = undefined;
    u.state = 'failed';
    u.error = 'connection closed; reconnecting';
    u.down = { since: Date.now(), lost: true };
    log.warn({ upstream: u.name }, `upstream "${u.name}" went away; reconnecting`);
    this.scheduleReconnect(u);
  }

  private scheduleReconnect(u: Upstream): void {
    if (this.closing || u.retryTimer) return;
    const delay = Math.min((this.opts.reconnectBaseMs ?? 1000) * 2 ** u.retries, 30_000);
    u.retries++;
    u.retryTimer = setTimeout(async () => {
      u.retryTimer = undefined;
      const before = JSON.stringify(u.tools);
      const beforeLists = JSON.stringify(u.lists);
      if (await this.connect(u)) {
        log.info({ upstream: u.name, tools: u.tools.length }, `upstream "${u.name}" reconnected`);
        if (JSON.stringify(u.tools) !== before) this.emit('change');
        if (JSON.stringify(u.lists) !== beforeLists) for (const kind of ['resources', 'prompts']) this.emit('relay-change', u.name, kind);
        this.emit('reconnected', u.name);
      }
    }, delay);
    u.retryTimer.unref();
  }

  /** Tools per upstream, in config order: ready ones and those reconnecting after a loss. */
  toolsByServer(): Map<string, Tool[]> {
    const out = new Map<string, Tool[]>();
    for (const u of this.upstreams.values()) if (u.tools.length > 0 && u.state !== 'closed') out.set(u.name, u.tools);
    return out;
  }

  /** What each upstream that has been connected said about itself at initialize (title, instructions). */
  serverInfo(): Map<string, ServerInfo> {
    const out = new Map<string, ServerInfo>();
    for (const u of this.upstreams.values()) if (u.info) out.set(u.name, u.info);
    return out;
  }

  /**
   * Capabilities and relayed lists of the connected upstreams, in config order. A per-user
   * upstream's are not relayed: its connection here acts for the gateway's own account,
   * which no user may read through.
   */
  relayed(): RelayedUpstream[] {
    return [...this.upstreams.values()].filter((u) => u.state === 'ready' && u.caps && !isPerUser(u.cfg)).map((u) => ({ name: u.name, caps: u.caps!, lists: u.lists }));
  }

  /**
   * The per-user upstreams' lists as the gateway's own (catalog) account sees them, in config
   * order: only for routing a user's request to that user's own connection or consent link
   * (relay/perUser.ts); never shown to a host or read through.
   */
  perUserCatalog(): RelayedUpstream[] {
    return [...this.upstreams.values()].filter((u) => u.state === 'ready' && u.caps && isPerUser(u.cfg)).map((u) => ({ name: u.name, caps: u.caps!, lists: u.lists }));
  }

  /** The client of a ready upstream, for relayed requests; undefined while it is unavailable. */
  client(server: string): Client | undefined {
    const u = this.upstreams.get(server);
    return u?.state === 'ready' && !isPerUser(u.cfg) ? u.conn?.client : undefined;
  }

  /**
   * Subscribes the upstream's connection to resource `uri` (listen.ts: resources/subscribe,
   * or the connection's listen stream at 2026-07-28).
   * @throws an Error when the upstream is unavailable; the upstream's refusal.
   */
  async subscribeResource(server: string, uri: string): Promise<void> {
    const watch = this.client(server) && this.upstreams.get(server)?.watch;
    if (!watch) throw new Error(`upstream "${server}" is unavailable; try again later`);
    await watch.subscribe(uri);
  }

  /** Ends the subscription of the upstream's connection to `uri`; nothing while it is unavailable (a lost connection holds none). */
  async unsubscribeResource(server: string, uri: string): Promise<void> {
    if (this.client(server)) await this.upstreams.get(server)?.watch?.unsubscribe(uri);
  }

  status(): UpstreamStatus[] {
    return [...this.upstreams.values()].map((u) => ({
      name: u.name,
      state: u.state,
      tools: u.tools.length,
      error: u.error,
      pid: u.conn?.pid,
      era: u.conn?.era,
      ...((u.state === 'failed' || u.state === 'needs_authorization') && u.down && { down: u.down }),
      ...('url' in u.cfg && { auth: this.authStatus(u, u.cfg) }),
    }));
  }

  private authStatus(u: Upstream, cfg: RemoteUpstreamConfig): UpstreamAuthStatus {
    const more = u.provider instanceof StoreOAuthProvider ? moreScope(u.provider) : undefined;
    return { method: authMethod(cfg), state: u.authState ?? 'ok', ...(more && { moreScope: more }), ...(isPerUser(cfg) && { perUser: true as const }) };
  }

  /**
   * Forwards a tools/call (call.ts): upstream errors come back as MCP error results, never
   * as exceptions, except -32042 (URL elicitation required), thrown for the relay to pass on,
   * and ArgumentsNotSentError for arguments that cannot be serialized (call.ts).
   * @param relayed the host's cancellation signal, progress relay and `_meta` (relay/calls.ts).
   */
  async call(server: string, tool: string, args: Record<string, unknown>, relayed: CallOptions & { allowInputRequired: true }): Promise<UpstreamOutcome>;
  async call(server: string, tool: string, args: Record<string, unknown>, relayed?: CallOptions): Promise<CallToolResult>;
  async call(server: string, tool: string, args: Record<string, unknown>, relayed: CallOptions = {}): Promise<UpstreamOutcome> {
    const u = this.upstreams.get(server);
    // Its connection here lists tools with the gateway's own account; calls go as their user (users.ts).
    if (u && isPerUser(u.cfg)) return errorResult(`upstream "${server}" acts with each user's own account; the gateway's own authorization only lists its tools`);
    // A new session is being opened in place of a forgotten one: the call waits for it (as long as a start may take).
    if (u?.reinit) await u.reinit;
    if (u?.state === 'failed') return errorResult(`upstream "${server}" is unavailable (${notConnected(u.down, 'url' in u.cfg)}); nothing was run. Try again later.`);
    if (!u?.conn || u.state !== 'ready') return errorResult(`upstream "${server}" is unavailable${u?.error ? `: ${u.error}` : ''}; try again later`);
    const target: CallTarget = {
      server,
      conn: () => u.conn,
      definition: (name) => u.tools.find((t) => t.name === name),
      reinitialize: (gone) => this.reinitialize(u, gone),
      // A withdrawn grant ends the connection's use.
      consentLost: (err) => {
        const conn = u.conn;
        this.awaitConsent(u, err);
        void conn?.client.close().catch(() => undefined);
      },
    };
    const limits = { callMs: this.opts.callMs, callMaxMs: this.opts.callMaxMs, maxResultBytes: this.opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES };
    return forwardCall(target, tool, args, relayed, limits);
  }

  /**
   * A Streamable HTTP upstream that restarted no longer knows our session and answers
   * 404: open a new session (initialize, tools/list) in place of the old one. Calls that
   * meet the 404 together share one re-initialization.
   * @returns whether the upstream is ready again.
   */
  private reinitialize(u: Upstream, gone: Connection): Promise<boolean> {
    if (u.reinit) return u.reinit;
    // Another caller (a call, the GET stream) has already replaced this session.
    if (u.conn !== gone) return Promise.resolve(u.conn !== undefined);
    u.reinit = (async () => {
      u.conn = undefined;
      log.warn({ upstream: u.name }, `upstream "${u.name}" lost our session (HTTP 404); initializing a new one`);
      const before = JSON.stringify(u.tools);
      const ok = await this.connect(u);
      // Closed once the new session is up: a call still in flight on the old one meets its 404 and retries on the new one, rather than a "connection closed".
      await gone.client.close().catch(() => undefined);
      if (ok && JSON.stringify(u.tools) !== before) this.emit('change');
      // Subscriptions of the forgotten session are made again on the new one.
      if (ok) this.emit('reconnected', u.name);
      return ok;
    })().finally(() => (u.reinit = undefined));
    return u.reinit;
  }


  async close(): Promise<void> {
    this.closing = true;
    this.stop.abort();
    await Promise.all(
      [...this.upstreams.values()].map(async (u) => {
        clearTimeout(u.retryTimer);
        u.toolsRelist.stop();
        u.listsRelist.stop();
        u.state = 'closed';
        await u.conn?.client.close().catch(() => undefined);
      }),
    );
  }
}

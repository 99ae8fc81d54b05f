/**
 * One MCP client per upstream: connects them in parallel with a start-up timeout, lists
 * their tools (following pagination cursors), follows their `list_changed`
 * notifications, reconnects with backoff when one goes away, and forwards calls.
 * A failing upstream is reported on stderr and skipped; it never takes the pool down.
 */
import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerInfo } from '../catalog/catalog.js';
import type { UpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
import type { RelayedCallOptions } from '../relay/calls.js';
import { EMPTY_LISTS, fetchLists, listPaged, type ListKind, type RelayLists } from '../relay/lists.js';
import { authMethod, NeedsAuthorizationError, UpstreamAuthError, type AuthMethod, type UpstreamAuth } from './auth/index.js';
import { connectUpstream, withTimeout, type Connection } from './connect.js';

/**
 * `needs_authorization`: a remote upstream waiting for a person's consent
 * (`tool-curator auth <name>`); its tools are absent until then, and the pool picks the
 * new tokens up by itself once they are stored.
 */
export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'needs_authorization' | 'closed';

/** How a remote upstream authorizes, and whether the last attempt was refused. */
export interface UpstreamAuthStatus {
  method: AuthMethod;
  /** `needs_authorization`: consent missing; `refused`: the server answered 401/403. */
  state: 'ok' | 'needs_authorization' | 'refused';
}

export interface UpstreamStatus {
  name: string;
  state: UpstreamState;
  tools: number;
  error?: string;
  pid?: number;
  /** Remote upstreams only. */
  auth?: UpstreamAuthStatus;
}

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
  /** Its resources, templates and prompts (src/relay/lists.ts). */
  lists: RelayLists;
  error?: string;
  retries: number;
  retryTimer?: NodeJS.Timeout;
  authState?: UpstreamAuthStatus['state'];
  /** Stored OAuth state version when consent was found missing. */
  authVersion?: number;
  /** A re-initialization in progress after the upstream forgot our session; concurrent calls share it. */
  reinit?: Promise<boolean>;
}

export interface PoolOptions {
  /** Folder relative `cwd`s resolve against (the config file's). */
  baseDir: string;
  /** Time to connect and list tools, per upstream. */
  startupMs: number;
  /** Time a forwarded tools/call gets; each progress notification from the upstream starts it again. */
  callMs: number;
  /** Longest total time of a forwarded tools/call, however much progress it reports. Default: `callMs`. */
  callMaxMs?: number;
  /** First reconnect delay; doubles per failure up to 30 s. Default 1000 ms. */
  reconnectBaseMs?: number;
  /** OAuth providers for remote upstreams with `auth` (upstream/auth). */
  auth?: UpstreamAuth;
  /** How often an upstream waiting for consent checks the store for new tokens. Default 2000 ms. */
  authPollMs?: number;
  /** Cap per upstream on each relayed list (config `relay.max_items`). Default 5000. */
  maxItems?: number;
}

/** One upstream's relayed state, as src/relay/ reads it. */
export interface RelayedUpstream {
  name: string;
  caps: ServerCapabilities;
  lists: RelayLists;
}

/**
 * The upstream no longer knows our Streamable HTTP session (it restarted, or expired it):
 * 404 as the spec says, or the 400 "No valid session ID" that some servers built on the
 * SDK's examples send. Either way the request was refused, not run, so a retry is safe.
 */
function sessionGone(err: unknown): boolean {
  if (!(err instanceof StreamableHTTPError)) return false;
  return err.code === 404 || (err.code === 400 && /session/i.test(err.message));
}

/** Lists every tool of a connected client, following `nextCursor` pages. */
export function listAllTools(conn: Pick<Connection, 'client'>, timeoutMs: number): Promise<Tool[]> {
  return listPaged<Tool>((cursor) => conn.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs }), 'tools', Infinity, 'tools/list');
}

/**
 * Emits `change` after the first start when an upstream's tool list changes (its
 * list_changed, or a reconnect that brings a different list), and `connected`
 * (name, client) for every new connection, before its first tools/call, for the relay.
 */
export class UpstreamPool extends EventEmitter {
  private readonly upstreams = new Map<string, Upstream>();
  private closing = false;

  constructor(
    configs: Record<string, UpstreamConfig>,
    private readonly opts: PoolOptions,
  ) {
    super();
    for (const [name, cfg] of Object.entries(configs)) {
      this.upstreams.set(name, { name, cfg, state: 'connecting', tools: [], lists: EMPTY_LISTS, retries: 0 });
    }
  }

  /** Connects every upstream in parallel. Never rejects: failures are logged and kept in status(). */
  async start(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => this.connect(u)));
    const ready = this.status().filter((s) => s.state === 'ready');
    log.info({ ready: ready.length, total: this.upstreams.size, tools: ready.reduce((n, s) => n + s.tools, 0) }, 'upstreams connected');
  }

  private async connect(u: Upstream): Promise<boolean> {
    // A retry keeps reporting 'failed' (or 'needs_authorization') with the last error until it succeeds.
    if (u.state !== 'failed' && u.state !== 'needs_authorization') u.state = 'connecting';
    const ms = u.cfg.startup_timeout_ms ?? this.opts.startupMs;
    let conn: Connection | undefined;
    const provider = 'url' in u.cfg ? this.opts.auth?.provider(u.name, u.cfg) : undefined;
    try {
      conn = await connectUpstream(u.name, u.cfg, this.opts.baseDir, ms, provider);
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
      const version = conn.client.getServerVersion();
      const info: ServerInfo = { title: version?.title ?? version?.name, instructions: conn.client.getInstructions() };
      Object.assign(u, { conn, tools, caps, info, lists, state: 'ready', error: undefined, retries: 0, authState: 'ok' });
      conn.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refresh(u));
      conn.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void this.refreshLists(u, 'resources'));
      conn.client.setNotificationHandler(PromptListChangedNotificationSchema, () => void this.refreshLists(u, 'prompts'));
      conn.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void this.emit('resource-updated', u.name, n.params.uri));
      conn.client.onclose = () => this.lost(u, conn!);
      this.emit('connected', u.name, conn.client);
      return true;
    } catch (err) {
      await conn?.client.close().catch(() => undefined);
      if (err instanceof NeedsAuthorizationError) return this.awaitConsent(u, err);
      u.state = 'failed';
      u.error = (err as Error).message;
      u.authState = err instanceof UpstreamAuthError ? 'refused' : u.authState;
      // A start cut short by the gateway's own shutdown is not a failure worth an error line.
      if (this.closing) return false;
      log.error({ upstream: u.name, err: u.error }, `upstream "${u.name}" failed to start; serving the others`);
      this.scheduleReconnect(u);
      return false;
    }
  }

  /**
   * No consent to act for the configured account: the upstream's tools leave the catalog
   * and the pool waits, without network traffic, until the store changes (a
   * `tool-curator auth` run), then connects again.
   */
  private awaitConsent(u: Upstream, err: NeedsAuthorizationError): false {
    const first = u.state !== 'needs_authorization';
    Object.assign(u, { state: 'needs_authorization', error: err.message, authState: 'needs_authorization', conn: undefined });
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
          this.emit('change');
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

  private async refresh(u: Upstream): Promise<void> {
    if (!u.conn || u.state !== 'ready') return;
    try {
      u.tools = await listAllTools(u.conn, this.opts.startupMs);
      log.info({ upstream: u.name, tools: u.tools.length }, 'upstream tool list changed');
      this.emit('change');
    } catch (err) {
      log.warn({ upstream: u.name, err: (err as Error).message }, 'could not re-list tools after list_changed');
    }
  }

  /** An upstream's resources or prompts changed: re-list that kind, then emit `relay-change` (server, kind). */
  private async refreshLists(u: Upstream, kind: ListKind): Promise<void> {
    if (!u.conn || u.state !== 'ready') return;
    u.lists = await fetchLists(u.name, u.conn.client, u.caps, { timeoutMs: this.opts.startupMs, maxItems: this.opts.maxItems ?? 5000 }, [kind], u.lists);
    log.info({ upstream: u.name, kind }, `upstream ${kind} list changed`);
    this.emit('relay-change', u.name, kind);
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

  /** Capabilities and relayed lists of the connected upstreams, in config order. */
  relayed(): RelayedUpstream[] {
    return [...this.upstreams.values()].filter((u) => u.state === 'ready' && u.caps).map((u) => ({ name: u.name, caps: u.caps!, lists: u.lists }));
  }

  /** The client of a ready upstream, for relayed requests; undefined while it is unavailable. */
  client(server: string): Client | undefined {
    const u = this.upstreams.get(server);
    return u?.state === 'ready' ? u.conn?.client : undefined;
  }

  status(): UpstreamStatus[] {
    return [...this.upstreams.values()].map((u) => ({
      name: u.name,
      state: u.state,
      tools: u.tools.length,
      error: u.error,
      pid: u.conn?.pid,
      ...('url' in u.cfg && { auth: { method: authMethod(u.cfg), state: u.authState ?? 'ok' } }),
    }));
  }

  /**
   * Forwards a tools/call. Upstream errors (thrown, timed out, unavailable) come back as
   * MCP error results, never as exceptions, except -32042 (URL elicitation required),
   * which asks the host to act and is thrown for the relay to pass on.
   * @param relayed the host's cancellation signal, progress relay and `_meta` (relay/relay.ts).
   */
  async call(server: string, tool: string, args: Record<string, unknown>, relayed: RelayedCallOptions = {}): Promise<CallToolResult> {
    const u = this.upstreams.get(server);
    if (!u?.conn || u.state !== 'ready') {
      return { isError: true, content: [{ type: 'text', text: `upstream "${server}" is unavailable${u?.error ? `: ${u.error}` : ''}; try again later` }] };
    }
    const { signal, onprogress, meta } = relayed;
    const params = { name: tool, arguments: args, ...(meta && { _meta: meta }) };
    const options = { timeout: this.opts.callMs, maxTotalTimeout: Math.max(this.opts.callMs, this.opts.callMaxMs ?? 0), signal, onprogress, resetTimeoutOnProgress: true };
    const forward = async (conn: Connection) => (await conn.client.callTool(params, undefined, options)) as CallToolResult;
    const failed = (err: unknown): CallToolResult => {
      if (err instanceof UrlElicitationRequiredError) throw err;
      const explained = u.conn?.explain?.(err) ?? (err as Error);
      // A withdrawn grant ends the connection's use; a step-up only concerns this call.
      if (explained instanceof NeedsAuthorizationError && explained.reason !== 'step_up') {
        const conn = u.conn;
        this.awaitConsent(u, explained);
        void conn?.client.close().catch(() => undefined);
      }
      // The model is told what happened, never a command to run (the log has the operator's fix).
      const said = explained instanceof NeedsAuthorizationError || explained instanceof UpstreamAuthError ? explained.forModel : explained.message;
      return { isError: true, content: [{ type: 'text', text: `upstream "${server}" failed on ${tool}: ${said}` }] };
    };
    try {
      return await forward(u.conn);
    } catch (err) {
      if (!sessionGone(err) || !(await this.reinitialize(u)) || !u.conn) return failed(err);
      try {
        return await forward(u.conn);
      } catch (retryErr) {
        return failed(retryErr);
      }
    }
  }

  /**
   * A Streamable HTTP upstream that restarted no longer knows our session and answers
   * 404: open a new session (initialize, tools/list) in place of the old one. Calls that
   * meet the 404 together share one re-initialization.
   * @returns whether the upstream is ready again.
   */
  private reinitialize(u: Upstream): Promise<boolean> {
    u.reinit ??= (async () => {
      const old = u.conn;
      u.conn = undefined;
      log.warn({ upstream: u.name }, `upstream "${u.name}" lost our session (HTTP 404); initializing a new one`);
      await old?.client.close().catch(() => undefined);
      const before = JSON.stringify(u.tools);
      const ok = await this.connect(u);
      if (ok && JSON.stringify(u.tools) !== before) this.emit('change');
      return ok;
    })().finally(() => (u.reinit = undefined));
    return u.reinit;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      [...this.upstreams.values()].map(async (u) => {
        clearTimeout(u.retryTimer);
        u.state = 'closed';
        await u.conn?.client.close().catch(() => undefined);
      }),
    );
  }
}

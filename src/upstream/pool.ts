/**
 * One MCP client per upstream: connects them in parallel with a start-up timeout, lists
 * their tools (following pagination cursors), follows their `list_changed`
 * notifications, reconnects with backoff when one goes away, and forwards calls.
 * A failing upstream is reported on stderr and skipped; it never takes the pool down.
 */
import { EventEmitter } from 'node:events';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolListChangedNotificationSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
import type { RelayedCallOptions } from '../relay/relay.js';
import { connectUpstream, withTimeout, type Connection } from './connect.js';

export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'closed';

export interface UpstreamStatus {
  name: string;
  state: UpstreamState;
  tools: number;
  error?: string;
  pid?: number;
}

interface Upstream {
  name: string;
  cfg: UpstreamConfig;
  state: UpstreamState;
  conn?: Connection;
  tools: Tool[];
  error?: string;
  retries: number;
  retryTimer?: NodeJS.Timeout;
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
}

/** Lists every tool of a connected client, following `nextCursor` pages. */
export async function listAllTools(conn: Connection, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  do {
    const page = await conn.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw new Error(`tools/list pagination loops on cursor ${cursor}`);
      seen.add(cursor);
    }
  } while (cursor);
  return tools;
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
      this.upstreams.set(name, { name, cfg, state: 'connecting', tools: [], retries: 0 });
    }
  }

  /** Connects every upstream in parallel. Never rejects: failures are logged and kept in status(). */
  async start(): Promise<void> {
    await Promise.all([...this.upstreams.values()].map((u) => this.connect(u)));
    const ready = this.status().filter((s) => s.state === 'ready');
    log.info({ ready: ready.length, total: this.upstreams.size, tools: ready.reduce((n, s) => n + s.tools, 0) }, 'upstreams connected');
  }

  private async connect(u: Upstream): Promise<boolean> {
    // A retry keeps reporting 'failed' with the last error until it succeeds.
    if (u.state !== 'failed') u.state = 'connecting';
    const ms = u.cfg.startup_timeout_ms ?? this.opts.startupMs;
    let conn: Connection | undefined;
    try {
      conn = await connectUpstream(u.name, u.cfg, this.opts.baseDir, ms);
      const tools = await withTimeout(listAllTools(conn, ms), ms, `tools/list of upstream "${u.name}"`);
      if (this.closing) {
        await conn.client.close();
        return false;
      }
      Object.assign(u, { conn, tools, state: 'ready', error: undefined, retries: 0 });
      conn.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refresh(u));
      conn.client.onclose = () => this.lost(u, conn!);
      this.emit('connected', u.name, conn.client);
      return true;
    } catch (err) {
      await conn?.client.close().catch(() => undefined);
      u.state = 'failed';
      u.error = (err as Error).message;
      log.error({ upstream: u.name, err: u.error }, `upstream "${u.name}" failed to start; serving the others`);
      this.scheduleReconnect(u);
      return false;
    }
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
      if (await this.connect(u)) {
        log.info({ upstream: u.name, tools: u.tools.length }, `upstream "${u.name}" reconnected`);
        if (JSON.stringify(u.tools) !== before) this.emit('change');
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

  status(): UpstreamStatus[] {
    return [...this.upstreams.values()].map((u) => ({
      name: u.name,
      state: u.state,
      tools: u.tools.length,
      error: u.error,
      pid: u.conn?.pid,
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
    try {
      const { signal, onprogress, meta } = relayed;
      const params = { name: tool, arguments: args, ...(meta && { _meta: meta }) };
      const options = { timeout: this.opts.callMs, maxTotalTimeout: Math.max(this.opts.callMs, this.opts.callMaxMs ?? 0), signal, onprogress, resetTimeoutOnProgress: true };
      return (await u.conn.client.callTool(params, undefined, options)) as CallToolResult;
    } catch (err) {
      if (err instanceof UrlElicitationRequiredError) throw err;
      return { isError: true, content: [{ type: 'text', text: `upstream "${server}" failed on ${tool}: ${(err as Error).message}` }] };
    }
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

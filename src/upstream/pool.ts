/**
 * One MCP client per upstream: connects them in parallel with a start-up timeout, lists
 * their tools (following pagination cursors), follows their `list_changed`
 * notifications, reconnects with backoff when one goes away, and forwards calls.
 * A failing upstream is reported on stderr and skipped; it never takes the pool down.
 */
import { EventEmitter } from 'node:events';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { UpstreamConfig } from '../config/schema.js';
import { log } from '../log.js';
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
  /** A re-initialization in progress after the upstream forgot our session; concurrent calls share it. */
  reinit?: Promise<boolean>;
}

export interface PoolOptions {
  /** Folder relative `cwd`s resolve against (the config file's). */
  baseDir: string;
  /** Time to connect and list tools, per upstream. */
  startupMs: number;
  /** Time a forwarded tools/call gets. */
  callMs: number;
  /** First reconnect delay; doubles per failure up to 30 s. Default 1000 ms. */
  reconnectBaseMs?: number;
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
 * list_changed, or a reconnect that brings a different list).
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
   * MCP error results, never as exceptions.
   */
  async call(server: string, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const u = this.upstreams.get(server);
    if (!u?.conn || u.state !== 'ready') {
      return { isError: true, content: [{ type: 'text', text: `upstream "${server}" is unavailable${u?.error ? `: ${u.error}` : ''}; try again later` }] };
    }
    const forward = async (conn: Connection) =>
      (await conn.client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.opts.callMs })) as CallToolResult;
    const failed = (err: unknown): CallToolResult => ({ isError: true, content: [{ type: 'text', text: `upstream "${server}" failed on ${tool}: ${(err as Error).message}` }] });
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

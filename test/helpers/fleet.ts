/**
 * A fleet on this machine: N `tool-curator serve --http` replicas (real processes,
 * dist/src/cli.js) of the bundled university example, sharing one store, behind HAProxy
 * (the Debian package) on free loopback ports, with the configuration docs/FLEET.md
 * shows (`haproxyConfig`). Used by test/fleet/ and bench/fleet.ts.
 *
 * Every wait has a deadline and lives here, not in assertions: a replica is taken as
 * started once its /readyz answers 200, HAProxy once it routes /readyz to every replica.
 * The store is a parameter: by default one SQLite file in the fleet's folder (WAL works
 * across processes on one machine); a `postgres://` URL puts the fleet on PostgreSQL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { dump, load } from 'js-yaml';
import { writeConfig } from '../../bench/http.js';
import { freePort, HttpChild, within } from '../../bench/processes.js';

/** The repository root, from test/helpers (sources) or dist/test/helpers (compiled, as bench/fleet.ts runs it). */
const ROOT = resolve(import.meta.dirname, basename(resolve(import.meta.dirname, '../..')) === 'dist' ? '../../..' : '../..');
const CLI = join(ROOT, 'dist/src/cli.js');

export interface HaproxyOptions {
  /** `address:port` the load balancer listens on. */
  bind: string;
  /** The replicas, in order: a name (shown in `X-Served-By`) and `address:port`. */
  servers: { name: string; address: string }[];
  /**
   * `sessions` (default): a host's requests go to the replica that answered its
   * initialize (a stick table on `Mcp-Session-Id`). `roundrobin`: any request to any
   * replica, for stateless gateways (`http.stateless`).
   */
  balance?: 'sessions' | 'roundrobin';
  /** Health check interval. Default `2s`. */
  checkInterval?: string;
}

/** The HAProxy configuration of a fleet; docs/FLEET.md shows it for two replicas. */
export function haproxyConfig({ bind, servers, balance = 'sessions', checkInterval = '2s' }: HaproxyOptions): string {
  const sticky = balance === 'sessions'
    ? [
        '  # Sessions live in the replica that created them: remember which replica answered',
        '  # each initialize (the Mcp-Session-Id response header) and send the later requests',
        '  # of that session there. When that replica is down the request goes to another one,',
        '  # which answers 404 (unknown session): the host starts a new session there.',
        '  stick-table type string len 64 size 1m expire 30m',
        '  stick on req.hdr(mcp-session-id)',
        '  stick store-response res.hdr(mcp-session-id)',
      ]
    : ['  # Stateless gateways (http.stateless): any replica answers any request.'];
  return [
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  # A tools/call may stream progress for up to timeouts.call_max_ms (10 minutes).',
    '  timeout client 10m',
    '  timeout server 10m',
    '  timeout http-request 30s',
    '  # A replica busy serving answers /readyz late, not never: give it 10 s (a dead one refuses at once).',
    '  timeout check 10s',
    '  # A replica that refuses the connection: try again, on another replica.',
    '  retries 2',
    '  option redispatch',
    '',
    'frontend mcp',
    `  bind ${bind}`,
    '  default_backend gateways',
    '',
    'backend gateways',
    '  balance roundrobin',
    ...sticky,
    '  # /readyz: 503 until the store answers, an upstream is connected and BM25 is built.',
    '  option httpchk',
    '  http-check send meth GET uri /readyz',
    '  http-check expect status 200',
    `  default-server check inter ${checkInterval} fall 3 rise 2`,
    '  # Which replica answered, for debugging (and for the fleet tests).',
    '  http-response set-header X-Served-By %[srv_name]',
    ...servers.map((s) => `  server ${s.name} ${s.address}`),
    '',
  ].join('\n');
}

/** Whether the `haproxy` binary is installed. */
export function haproxyInstalled(): boolean {
  return spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
}

/** Polls `url` until it answers `status`; rejects naming `what` after `ms`. */
export async function waitFor(url: string, status: number, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      last = `${r.status} ${await r.text()}`;
      if (r.status === status) return;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: ${url} did not answer ${status} within ${ms / 1000} s (last: ${last.slice(0, 500)})`);
}

export interface FleetOptions {
  /** Replicas. Default 2. */
  replicas?: number;
  /** The `store` of every replica: a SQLite path or a `postgres://` URL. Default: one SQLite file in the fleet's folder. */
  store?: string;
  /** Default `sessions`; see HaproxyOptions. */
  balance?: HaproxyOptions['balance'];
  /** Merged into the replicas' gateway.config.yaml (top-level keys; `http` is merged key by key). Default curator: bm25. */
  config?: Record<string, any>;
  /** How long a replica gets to answer /readyz 200. Default 240 s (eight upstreams each, on a loaded machine). */
  readyMs?: number;
  /** HAProxy's health check interval. Default `500ms`: the tests see a killed replica marked down within about a second. */
  checkInterval?: string;
}

export interface Replica {
  name: string;
  /** Its own address, `127.0.0.1:port` (health and metrics are read here directly). */
  address: string;
  process: HttpChild;
}

/** What a host saw through the load balancer: which replica answered each HTTP response. */
export interface FleetHost {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** `X-Served-By` of every response, in order. */
  servedBy: string[];
  /** Every `Mcp-Session-Id` response header seen. */
  sessionIds: Set<string>;
  close(): Promise<void>;
}

export class Fleet {
  /** The hosts' bearer token (the student persona of the university example). */
  readonly token = randomBytes(24).toString('hex');
  readonly replicas: Replica[] = [];
  /** The MCP endpoint through HAProxy. */
  url = '';
  configPath = '';
  private haproxy?: ChildProcess;
  private haproxyLog = '';

  private constructor(readonly dir: string) {}

  /** Starts the replicas, waits for each /readyz, then starts HAProxy and waits until it routes to every replica. */
  static async start(options: FleetOptions = {}): Promise<Fleet> {
    const fleet = new Fleet(mkdtempSync(join(tmpdir(), 'tc-fleet-')));
    try {
      await fleet.boot(options);
      return fleet;
    } catch (err) {
      await fleet.stop();
      throw err;
    }
  }

  private async boot(options: FleetOptions): Promise<void> {
    const n = options.replicas ?? 2;
    this.configPath = writeConfig(this.dir, this.token, 30);
    const config = load(readFileSync(this.configPath, 'utf8')) as Record<string, any>;
    const { http, ...extra } = options.config ?? {};
    Object.assign(config, {
      curator: { mode: 'bm25' },
      timeouts: { startup_ms: 120_000 },
      store: options.store ?? join(this.dir, 'store.db'),
      ...extra,
    });
    config.http = { ...config.http, metrics: { enabled: true }, ...http };
    writeFileSync(this.configPath, dump(config));

    for (let i = 0; i < n; i++) {
      const process = new HttpChild([CLI, 'serve', '--http', '0', '--config', this.configPath], { TOOL_CURATOR_LOG: 'info' });
      const url = (await process.line(/^(?=.*"msg":"serving MCP over Streamable HTTP").*"url":"([^"]+)"/, 120_000, `replica gw${i + 1} serving over HTTP`))[1]!;
      this.replicas.push({ name: `gw${i + 1}`, address: new URL(url).host, process });
    }
    const readyMs = options.readyMs ?? 240_000;
    await Promise.all(this.replicas.map((r) => waitFor(`http://${r.address}/readyz`, 200, readyMs, `replica ${r.name}`)));

    const port = await freePort();
    const cfg = join(this.dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig({ bind: `127.0.0.1:${port}`, servers: this.replicas.map((r) => ({ name: r.name, address: r.address })), balance: options.balance, checkInterval: options.checkInterval ?? '500ms' }));
    this.haproxy = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const s of [this.haproxy.stdout!, this.haproxy.stderr!]) s.setEncoding('utf8').on('data', (c: string) => (this.haproxyLog = (this.haproxyLog + c).slice(-20_000)));
    this.url = `http://127.0.0.1:${port}/mcp`;
    await this.routesToAll(60_000);
  }

  /** Until HAProxy has sent /readyz to every live replica (round robin): both listening and every server up. */
  private async routesToAll(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    const want = new Set(this.live().map((r) => r.name));
    const seen = new Set<string>();
    while (Date.now() < deadline) {
      try {
        const r = await fetch(this.url.replace(/\/mcp$/, '/readyz'), { signal: AbortSignal.timeout(5_000) });
        const by = r.headers.get('x-served-by');
        if (r.status === 200 && by) seen.add(by);
        if ([...want].every((w) => seen.has(w))) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`HAProxy did not route to ${[...want].join(', ')} within ${ms / 1000} s (seen: ${[...seen].join(', ') || 'none'}); its log:\n${this.haproxyLog}`);
  }

  /** The HAProxy process's id. */
  get haproxyPid(): number {
    if (!this.haproxy?.pid) throw new Error('HAProxy is not running');
    return this.haproxy.pid;
  }

  /** Replicas whose process is running. */
  live(): Replica[] {
    return this.replicas.filter((r) => r.process.child.exitCode === null && r.process.child.signalCode === null);
  }

  /** SIGKILL to one replica (its upstreams end when their stdin closes); resolves once it is gone. */
  async kill9(replica: Replica): Promise<void> {
    const gone = new Promise((r) => replica.process.child.once('exit', r));
    replica.process.child.kill('SIGKILL');
    await gone;
  }

  /**
   * A host connected through HAProxy with the fleet's token: an SDK Client over Streamable
   * HTTP whose fetch records which replica answered (`X-Served-By`) and the session ids issued.
   */
  async host(ms = 120_000): Promise<FleetHost> {
    const servedBy: string[] = [];
    const sessionIds = new Set<string>();
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const by = res.headers.get('x-served-by');
      if (by) servedBy.push(by);
      const sid = res.headers.get('mcp-session-id');
      if (sid) sessionIds.add(sid);
      return res;
    };
    const transport = new StreamableHTTPClientTransport(new URL(this.url), { requestInit: { headers: { Authorization: `Bearer ${this.token}` } }, fetch: recording });
    const client = new Client({ name: 'fleet-host', version: '1.0.0' });
    await within(client.connect(transport), ms, 'initialize through HAProxy');
    return {
      client,
      transport,
      servedBy,
      sessionIds,
      close: async () => {
        await within(transport.terminateSession(), 10_000, 'DELETE session').catch(() => undefined);
        await client.close().catch(() => undefined);
      },
    };
  }

  /** Every audit row in the fleet's store, read with the CLI (`tool-curator audit --json`), whatever the backend. */
  audit(): { sessionId: string; tool: string; outcome: string }[] {
    const out = spawnSync(process.execPath, [CLI, 'audit', '--json', '--tail', '1000000', '--config', this.configPath], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (out.status !== 0) throw new Error(`tool-curator audit failed (${out.status}): ${out.stderr}`);
    return JSON.parse(out.stdout) as { sessionId: string; tool: string; outcome: string }[];
  }

  /** Stops HAProxy and every replica, removes the folder. */
  async stop(): Promise<void> {
    if (this.haproxy && this.haproxy.exitCode === null) {
      const gone = new Promise((r) => this.haproxy!.once('exit', r));
      this.haproxy.kill('SIGTERM');
      await within(gone, 10_000, 'haproxy exit').catch(() => this.haproxy!.kill('SIGKILL'));
    }
    await Promise.all(this.replicas.map((r) => r.process.stop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

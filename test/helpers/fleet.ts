/**
 * A fleet on this machine: N `tool-curator serve --http` replicas (real processes,
 * dist/src/cli.js) of the bundled university example, sharing one store, behind HAProxy
 * (the Debian package) on free loopback ports, with the configuration docs/FLEET.md
 * shows (haproxy.ts). Used by test/fleet/ and bench/fleet.ts.
 *
 * Every wait has a deadline and lives here, not in assertions: the replicas are spawned
 * together (as a fleet starting at once would be), each taken as started once its /readyz
 * answers 200, HAProxy once it routes /readyz to every replica. The store is a parameter,
 * given to the replicas through the environment (`store: ${TC_STORE}`, as docs/STORE.md
 * advises for a URL with a password): a `postgres://` URL (test/helpers/pgDatabase.ts
 * makes a database per test file), or by default one SQLite file in the fleet's folder
 * (WAL works across processes on one machine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { dump, load } from 'js-yaml';
import { writeConfig } from '../../bench/http.js';
import { freePort, HttpChild, within } from '../../bench/processes.js';
import { haproxyConfig, haproxyInstalled, type HaproxyOptions } from './haproxy.js';
import { PG_URL } from './pgDatabase.js';

export { haproxyConfig, haproxyInstalled, type HaproxyOptions } from './haproxy.js';

/** The repository root, from test/helpers (sources) or dist/test/helpers (compiled, as bench/fleet.ts runs it). */
const ROOT = resolve(import.meta.dirname, basename(resolve(import.meta.dirname, '../..')) === 'dist' ? '../../..' : '../..');
const CLI = join(ROOT, 'dist/src/cli.js');
/** The MCP server of recordsUpstream.ts, compiled. */
const RECORDS = join(ROOT, 'dist/test/fleet/recordsUpstream.js');

/** A stdio upstream of four record tools answering as `label` (test/fleet/recordsUpstream.ts), for fleets that need a small catalog. */
export function recordsUpstream(label: string): Record<string, unknown> {
  return { command: process.execPath, args: [RECORDS], env: { RECORDS_LABEL: label } };
}

/**
 * Whether a fleet test file must be skipped here: without the `haproxy` binary, or (for
 * `postgres`) without TOOL_CURATOR_TEST_PG; the reason is printed. With CI=true nothing is
 * skipped (.ci/run installs HAProxy and PostgreSQL), so a missing piece fails there.
 */
export function skipFleet(file: string, needs: { postgres?: boolean } = {}): boolean {
  const missing = [
    ...(haproxyInstalled() ? [] : ['the `haproxy` binary (Debian: apt-get install haproxy)']),
    ...(needs.postgres && PG_URL === undefined ? ['TOOL_CURATOR_TEST_PG (a postgres:// URL of a role that may create databases; docs/STORE.md, "Tests")'] : []),
  ];
  if (missing.length === 0 || process.env.CI === 'true') return false;
  console.warn(`${file}: SKIPPING, missing ${missing.join(' and ')}; with CI=true it runs and fails instead`);
  return true;
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
  /** The `store` of every replica (through TC_STORE): a SQLite path or a `postgres://` URL. Default: one SQLite file in the fleet's folder. */
  store?: string;
  /** TOOL_CURATOR_LOG of the replicas. Default `info`. */
  logLevel?: string;
  /** Runs once the config is written, before any replica starts (consent to an upstream, an approver key). */
  beforeReplicas?: (fleet: Fleet) => Promise<void>;
  /** Default `sessions`; see HaproxyOptions. */
  balance?: HaproxyOptions['balance'];
  /**
   * Merged into the replicas' gateway.config.yaml (top-level keys; `http` is merged key by
   * key). Default: the university example's eight upstreams, curator bm25.
   */
  config?: Record<string, any>;
  /** How long a replica gets to answer /readyz 200. Default 240 s (eight upstreams each, on a loaded machine). */
  readyMs?: number;
  /** HAProxy's health check interval. Default `500ms`: the tests see a killed replica marked down within about a second. */
  checkInterval?: string;
  /** A file HAProxy writes its request log to (`HaproxyOptions.log`). Default: no request log. */
  haproxyLog?: string;
  /** HAProxy's port, when the configuration must name it before the replicas start (an identity provider's redirect URI). Default: a free one. */
  port?: number;
}

export interface Replica {
  name: string;
  /** Its own address, `127.0.0.1:port` (health, metrics and its approvals page are reached here directly). */
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
  /** `http.approvals_token`: what a person's browser or script sends to a replica's /approvals page. */
  readonly approvalsToken = randomBytes(24).toString('hex');
  /** The environment every replica and CLI run gets (TC_STORE). */
  env: Record<string, string> = {};
  readonly replicas: Replica[] = [];
  /** The MCP endpoint through HAProxy. */
  url = '';
  configPath = '';
  private haproxy?: ChildProcess;
  private haproxyOutput = '';

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
      store: '${TC_STORE}',
      ...extra,
    });
    config.http = { ...config.http, metrics: { enabled: true }, approvals_token: this.approvalsToken, ...http };
    writeFileSync(this.configPath, dump(config));
    this.env = { TC_STORE: options.store ?? join(this.dir, 'store.db') };
    await options.beforeReplicas?.(this);

    // All at once, as replicas of a fleet (re)started together.
    for (let i = 0; i < n; i++) {
      const env = { ...this.env, TOOL_CURATOR_LOG: options.logLevel ?? 'info' };
      this.replicas.push({ name: `gw${i + 1}`, address: '', process: new HttpChild([CLI, 'serve', '--http', '0', '--config', this.configPath], env) });
    }
    await Promise.all(this.replicas.map(async (r) => {
      const url = (await r.process.line(/^(?=.*"msg":"serving MCP over Streamable HTTP").*"url":"([^"]+)"/, 120_000, `replica ${r.name} serving over HTTP`))[1]!;
      r.address = new URL(url).host;
    }));
    const readyMs = options.readyMs ?? 240_000;
    await Promise.all(this.replicas.map((r) => waitFor(`http://${r.address}/readyz`, 200, readyMs, `replica ${r.name}`)));

    const port = options.port ?? (await freePort());
    const cfg = join(this.dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig({ bind: `127.0.0.1:${port}`, servers: this.replicas.map((r) => ({ name: r.name, address: r.address })), balance: options.balance, checkInterval: options.checkInterval ?? '500ms', log: options.haproxyLog !== undefined }));
    const requestLog = options.haproxyLog === undefined ? 'pipe' : openSync(options.haproxyLog, 'a');
    this.haproxy = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', requestLog, 'pipe'] });
    if (typeof requestLog === 'number') closeSync(requestLog);
    for (const s of [this.haproxy.stdout, this.haproxy.stderr]) s?.setEncoding('utf8').on('data', (c: string) => (this.haproxyOutput = (this.haproxyOutput + c).slice(-20_000)));
    this.url = `http://127.0.0.1:${port}/mcp`;
    await this.routesToAll(60_000);
  }

  /** Until HAProxy has sent /readyz to every live replica (round robin): both listening and every server up. */
  async routesToAll(ms: number): Promise<void> {
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
    throw new Error(`HAProxy did not route to ${[...want].join(', ')} within ${ms / 1000} s (seen: ${[...seen].join(', ') || 'none'}); its output:\n${this.haproxyOutput}`);
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
   * `modern`: the client is pinned to 2026-07-28 (stateless requests, no session); else it
   * speaks 2025-11-25 (a session).
   */
  async host(ms = 120_000, { modern = false }: { modern?: boolean } = {}): Promise<FleetHost> {
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
    const client = new Client({ name: 'fleet-host', version: '1.0.0' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : undefined);
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

  /** Runs `tool-curator <args> --config <the fleet's config>` with the replicas' environment; never blocks the event loop. */
  cli(args: string[], ms = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [CLI, ...args, '--config', this.configPath], { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) => child.on('close', (code) => r({ code, stdout, stderr })));
    return within(done, ms, `tool-curator ${args.join(' ')}`).catch((err: Error) => {
      child.kill('SIGKILL');
      throw err;
    });
  }

  /** Every audit row in the fleet's store, read with the CLI (`tool-curator audit --json`), whatever the backend. */
  async audit(): Promise<{ sessionId: string; tool: string; outcome: string; args: Record<string, unknown>; decisions: string[]; notes: string[] }[]> {
    const out = await this.cli(['audit', '--json', '--tail', '1000000']);
    if (out.code !== 0) throw new Error(`tool-curator audit failed (${out.code}): ${out.stderr}`);
    return JSON.parse(out.stdout);
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

/**
 * The MCP processes a benchmark starts, and their bounded waits: an SDK Client over stdio
 * to a spawned server (the upstream directly, or the gateway), and a spawned HTTP server
 * (the gateway's Streamable HTTP face, mcp-proxy) whose URL is read from its output, and
 * what a process has cost so far (CPU time and run-queue wait, from /proc).
 * Every wait has a deadline, and `stop()` ends the process for sure (SIGTERM, then
 * SIGKILL), so a hung child never hangs the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** `promise`, or a rejection naming `what` after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // Unref'd: a wait that was given up on (its race lost) must not keep the benchmark alive.
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${(ms / 1000).toFixed(0)} s`)), ms).unref();
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Collects a child's output lines (the last 10,000) and answers waits for a line matching a pattern. */
class Lines {
  private all: string[] = [];
  private buffered = '';
  private waits: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];

  push(chunk: string): void {
    this.buffered += chunk;
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop()!;
    for (const line of lines) {
      this.all.push(line);
      if (this.all.length > 10_000) this.all.shift();
      this.waits = this.waits.filter((w) => {
        const m = w.re.exec(line);
        if (m) w.resolve(m);
        return !m;
      });
    }
  }

  get tail(): string {
    return this.all.slice(-30).join('\n');
  }

  /** Every line so far (of the last 10,000) matching `re`. */
  matches(re: RegExp): RegExpExecArray[] {
    return this.all.map((line) => re.exec(line)).filter((m): m is RegExpExecArray => m !== null);
  }

  /** The first line so far, or the next one, matching `re`. */
  find(re: RegExp, ms: number, what: string): Promise<RegExpExecArray> {
    for (const line of this.all) {
      const m = re.exec(line);
      if (m) return Promise.resolve(m);
    }
    return within(new Promise<RegExpExecArray>((resolve) => this.waits.push({ re, resolve })), ms, what).catch((err: Error) => {
      throw new Error(`${err.message}; last output:\n${this.tail}`);
    });
  }
}

/** An SDK Client connected over stdio to `node args…`; stderr is kept (last 30 lines) and can be waited on. */
export class StdioPeer {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  private readonly lines = new Lines();

  /** @param options the Client's options (e.g. `versionNegotiation` for a 2026-07-28 host); default a 2025 client. */
  constructor(args: string[], env: Record<string, string> = {}, options?: ClientOptions) {
    this.client = new Client({ name: 'bench-overhead', version: '1.0.0' }, options);
    this.transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe', env: { ...(process.env as Record<string, string>), ...env } });
    (this.transport.stderr as Readable).setEncoding('utf8').on('data', (c: string) => this.lines.push(c));
  }

  /** Spawns the process and runs the MCP initialize handshake. */
  connect(ms: number): Promise<void> {
    return within(this.client.connect(this.transport), ms, 'initialize over stdio');
  }

  /** The first stderr line matching `re`, logged already or within `ms`. */
  stderrLine(re: RegExp, ms: number, what: string): Promise<RegExpExecArray> {
    return this.lines.find(re, ms, what);
  }

  get pid(): number {
    const pid = this.transport.pid;
    if (pid === null) throw new Error('the stdio peer has no process (not connected, or exited)');
    return pid;
  }

  /** Closes stdin (a gateway then ends its upstreams and exits), SIGTERM after 2 s, SIGKILL after 4 s (the SDK's close). */
  async stop(): Promise<void> {
    await within(this.client.close(), 10_000, 'closing a stdio peer').catch(() => undefined);
  }
}

/** A spawned HTTP server; `url` resolves from the first output line matching `urlLine` (group 1, or `url` from a group-less match). */
export class HttpChild {
  readonly child: ChildProcess;
  private readonly lines = new Lines();

  constructor(args: string[], env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const s of [this.child.stdout!, this.child.stderr!]) s.setEncoding('utf8').on('data', (c: string) => this.lines.push(c));
  }

  /** The first line on stdout or stderr matching `re`, printed already or within `ms`; rejects when the process exits first. */
  line(re: RegExp, ms: number, what: string): Promise<RegExpExecArray> {
    if (this.child.exitCode !== null) return Promise.reject(new Error(`${what}: process exited (${this.child.exitCode}); last output:\n${this.lines.tail}`));
    let onExit!: (code: number | null) => void;
    const exited = new Promise<never>((_, reject) => {
      onExit = (code) => reject(new Error(`${what}: process exited (${code}); last output:\n${this.lines.tail}`));
      this.child.once('exit', onExit);
    });
    return Promise.race([this.lines.find(re, ms, what), exited]).finally(() => this.child.off('exit', onExit));
  }

  /** Every output line so far (of the last 10,000) matching `re`. */
  matches(re: RegExp): RegExpExecArray[] {
    return this.lines.matches(re);
  }

  /** The last 30 output lines. */
  get tail(): string {
    return this.lines.tail;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** An SDK Client over Streamable HTTP to `url`, initialized. */
export async function httpClient(url: string, ms: number, headers: Record<string, string> = {}, options?: ClientOptions): Promise<Client> {
  const client = new Client({ name: 'bench-overhead', version: '1.0.0' }, options);
  await within(client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })), ms, `initialize over HTTP at ${url}`);
  return client;
}

/** A TCP port free on 127.0.0.1 right now (for servers that cannot report the port they bound). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolvePort(port));
    });
  });
}

/**
 * CPU time and run-queue wait (runnable, but no core free) of every thread of `pid` so far,
 * in ms, from /proc/PID/task/TID/schedstat: what a process did per call, and how long the
 * machine's other jobs kept it waiting.
 */
export function schedOf(pid: number): { cpu: number; wait: number } {
  let cpu = 0;
  let wait = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, queued] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      cpu += run!;
      wait += queued!;
    } catch {
      // the thread ended between listing and reading
    }
  }
  return { cpu: cpu / 1e6, wait: wait / 1e6 };
}

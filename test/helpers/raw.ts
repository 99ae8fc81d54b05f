/**
 * Raw JSON-RPC against the built gateway, for tests that send what an SDK client never
 * would (oversized lines, batches, malformed requests, reused ids): a stdio gateway
 * process fed line by line, and an HTTP gateway process posted to with fetch.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './reference.js';

export type Message = { jsonrpc: '2.0'; id?: string | number; result?: unknown; error?: { code: number; message: string }; method?: string };

export const INITIALIZE = { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** `tool-curator serve` on stdio; every line it writes is parsed and kept in `messages`. */
export class RawStdio {
  readonly child: ChildProcess;
  readonly messages: Message[] = [];
  stderr = '';
  private waiters: (() => void)[] = [];
  private partial = '';

  /** @param nodeArgs options for the gateway's node, e.g. `--max-old-space-size=64`. */
  constructor(configPath: string, args: string[] = [], env: Record<string, string> = {}, nodeArgs: string[] = []) {
    this.child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--config', configPath, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TOOL_CURATOR_LOG: 'warn', ...env },
    });
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-200_000)));
    this.child.stdout!.on('data', (d: Buffer) => {
      const lines = (this.partial + d.toString()).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) if (line.trim()) this.messages.push(JSON.parse(line) as Message);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Writes one line (an object is serialized). Resolves once the pipe has taken it. */
  send(message: unknown): Promise<void> {
    const line = typeof message === 'string' ? message : JSON.stringify(message);
    return new Promise((resolve, reject) => this.child.stdin!.write(`${line}\n`, (err) => (err ? reject(err) : resolve())));
  }

  /** The first message matching `pred`, waiting up to `timeoutMs`. */
  async next(pred: (m: Message) => boolean, timeoutMs: number): Promise<Message> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      if (Date.now() > end || this.child.exitCode !== null) throw new Error(`no matching message within ${timeoutMs} ms (exit ${this.child.exitCode}); stderr:\n${this.stderr.slice(-2000)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  /** Sends a request and waits for the answer with its id. */
  async request(id: number | string, method: string, params: unknown, timeoutMs: number): Promise<Message> {
    await this.send({ jsonrpc: '2.0', id, method, params });
    return this.next((m) => m.id === id && m.method === undefined, timeoutMs);
  }

  async initialize(timeoutMs = 60_000): Promise<void> {
    await this.send({ ...INITIALIZE, id: 'init' });
    await this.next((m) => m.id === 'init', timeoutMs);
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
}

/** `tool-curator serve --http 0`; resolves once it listens, with its /mcp URL. */
export function startHttpGateway(configPath: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<{ child: ChildProcess; url: URL; stderr: () => string }> {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', '--http', '0', '--config', configPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOL_CURATOR_LOG: 'info', ...env },
  });
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`HTTP gateway not listening after 120 s:\n${err}`)), 120_000);
    child.stderr!.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-200_000);
      const m = /"url":"(http:\/\/[^"]+\/mcp)"/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: new URL(m[1]!), stderr: () => err });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`HTTP gateway exited with ${code}:\n${err}`));
    });
  });
}

/** One MCP session over raw HTTP POSTs. */
export class RawHttp {
  sessionId: string | undefined;

  constructor(readonly url: URL, readonly token: string) {}

  /** POSTs `body` (an object is serialized); the JSON-RPC messages of the answer, from JSON or SSE. */
  async post(body: unknown, signal?: AbortSignal): Promise<{ status: number; messages: Message[] }> {
    const r = await fetch(this.url, {
      method: 'POST',
      signal,
      headers: {
        authorization: `Bearer ${this.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(this.sessionId && { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': '2025-06-18' }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    this.sessionId ??= r.headers.get('mcp-session-id') ?? undefined;
    const text = await r.text();
    const messages = (r.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Message)
      : text ? [JSON.parse(text) as Message] : [];
    return { status: r.status, messages };
  }

  async initialize(): Promise<void> {
    const r = await this.post({ ...INITIALIZE, id: 0 });
    if (r.status !== 200) throw new Error(`initialize: HTTP ${r.status} ${JSON.stringify(r.messages)}`);
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
}

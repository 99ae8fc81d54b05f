/**
 * Upstream faults the pool recovers from, against real server processes: a Streamable
 * HTTP upstream that restarts (and so answers 404 for our old session) is initialized
 * anew and the call retried once; one that restarts while no call reaches it is noticed
 * by the GET stream, and its resource subscriptions are made again; a stdio upstream that cannot start is reported with
 * its real cause (stderr tail and exit code) in the warning, not only at debug level.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Subscriptions } from '../../src/relay/subscriptions.js';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { freePort } from '../helpers/process.js';
import { ROOT } from '../helpers/reference.js';

/** The path of one of the SDK's ESM entry points, for a server script outside the project. */
const sdk = (pkg: string, file = 'index.mjs') => JSON.stringify(join(ROOT, 'node_modules/@modelcontextprotocol', pkg, 'dist', file));

/** A stateful Streamable HTTP MCP server (sessions in memory, as most are); unknown sessions get the spec's 404. */
const SERVER = `
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
const { isInitializeRequest, McpServer } = await import(${sdk('server')});
const { NodeStreamableHTTPServerTransport } = await import(${sdk('node')});
const sessions = new Map();
/** The servers (one per session) subscribed to status://now. */
const subscribed = new Set();
let inits = 0;
createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
  const sid = req.headers['mcp-session-id'];
  if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res, body);
  if (!sid && req.method === 'POST' && isInitializeRequest(body)) {
    inits++;
    const server = new McpServer({ name: 'restartable', version: '1' });
    server.registerTool('whoami', { description: 'process id and initialize count' }, async () => ({ content: [{ type: 'text', text: JSON.stringify({ pid: process.pid, inits }) }] }));
    server.registerTool('touch', { description: 'status://now changed: tells its subscribers' }, async () => {
      for (const s of subscribed) await s.server.sendResourceUpdated({ uri: 'status://now' });
      return { content: [{ type: 'text', text: String(subscribed.size) }] };
    });
    server.registerResource('status', 'status://now', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'up' }] }));
    server.server.registerCapabilities({ resources: { subscribe: true } });
    server.server.setRequestHandler('resources/subscribe', () => (subscribed.add(server), {}));
    const t = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => sessions.set(id, t) });
    await server.connect(t);
    return t.handleRequest(req, res, body);
  }
  res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
}).listen(Number(process.argv[2]), '127.0.0.1', () => console.error('listening'));
`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function startServer(script: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

const text = (r: CallToolResult) => {
  expect(r.isError, JSON.stringify(r)).toBeFalsy();
  return (r.content[0] as { text: string }).text;
};

const whoami = (r: CallToolResult) => {
  expect(r.isError, JSON.stringify(r)).toBeFalsy();
  return JSON.parse((r.content[0] as { text: string }).text) as { pid: number; inits: number };
};

/** The restartable server (SERVER) started on a free port, and a pool connected to it as upstream `remote`. */
async function restartable(): Promise<{ script: string; port: number; first: ChildProcess; pool: UpstreamPool }> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-recover-'));
  const script = join(dir, 'server.mjs');
  writeFileSync(script, SERVER);
  const port = await freePort();
  const first = await startServer(script, port);
  const pool = new UpstreamPool(
    { remote: { url: `http://127.0.0.1:${port}/mcp`, transport: 'streamable-http' } as never },
    { baseDir: dir, startupMs: 30_000, callMs: 30_000 },
  );
  return { script, port, first, pool };
}

describe('upstream recovery', () => {
  it('re-initializes a restarted Streamable HTTP upstream (404 Session not found) and retries the call once', async () => {
    const { script, port, first, pool } = await restartable();
    try {
      await pool.start();
      expect(pool.status()[0]).toMatchObject({ state: 'ready', tools: 2 });
      const before = whoami(await pool.call('remote', 'whoami', {}));
      expect(before).toEqual({ pid: first.pid, inits: 1 });

      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      const second = await startServer(script, port);

      // The old session id reaches a process that never saw it: 404, new session, same call again.
      const after = whoami(await pool.call('remote', 'whoami', {}));
      expect(after).toEqual({ pid: second.pid, inits: 1 });
      expect(pool.status()[0]).toMatchObject({ state: 'ready', tools: 2 });
      // The new session is used from then on: no further initialize.
      expect(whoami(await pool.call('remote', 'whoami', {}))).toEqual({ pid: second.pid, inits: 1 });
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('a restart no call reaches: the GET stream meets the 404, the pool opens a new session and subscribes again, and updates flow', async () => {
    const { script, port, first, pool } = await restartable();
    const subscriptions = new Subscriptions(pool);
    const updates: string[] = [];
    /** Resolves once `n` updates have reached the subscribed session. */
    const updated = (n: number) => new Promise<void>((resolve) => {
      const check = setInterval(() => updates.length >= n && (clearInterval(check), resolve()), 50);
    });
    try {
      await pool.start();
      await subscriptions.subscribe('session-1', { server: 'remote', uri: 'status://now', exposed: 'status://now' }, { notify: (uri) => void updates.push(uri), mayRead: () => true });
      expect(text(await pool.call('remote', 'touch', {}))).toBe('1');
      await updated(1);

      const renewed = new Promise((resolve) => pool.once('reconnected', resolve));
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      const second = await startServer(script, port);
      // No call is made: the dropped GET stream reconnects, meets the new process's 404, and the pool starts over.
      await renewed;
      expect(whoami(await pool.call('remote', 'whoami', {}))).toEqual({ pid: second.pid, inits: 1 });
      expect(text(await pool.call('remote', 'touch', {}))).toBe('1');
      await updated(2);
      expect(updates).toEqual(['status://now', 'status://now']);
    } finally {
      await pool.close();
    }
  }, 180_000);

  it("reports a stdio upstream's real start failure: stderr tail and exit code in the status and warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-recover-'));
    const missing = join(dir, 'no-such-server.js');
    const pool = new UpstreamPool(
      { broken: { command: process.execPath, args: [missing] } as never },
      { baseDir: dir, startupMs: 30_000, callMs: 30_000, reconnectBaseMs: 60_000 },
    );
    try {
      await pool.start();
      const [status] = pool.status();
      expect(status!.state).toBe('failed');
      expect(status!.error).toContain('exited with code 1');
      expect(status!.error).toContain('Cannot find module');
      expect(status!.error).toContain(missing);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

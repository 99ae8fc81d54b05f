/**
 * The HTTP face's limits, against the built gateway over Streamable HTTP: a request body
 * over the limit gets 413 and the connection is closed after it, so requests behind it on
 * a kept-alive connection are not lost to resets; sessions per token are capped (429),
 * and a session closed with DELETE frees its place.
 */
import { request, Agent } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawHttp, startHttpGateway } from '../helpers/raw.js';

const BULKY = join(import.meta.dirname, '../upstream/fixtures/bulky.mjs');
const TOKEN = 'limits-test-token-0123456789';
const OTHER = 'limits-other-token-0123456789';
const MAX_SESSIONS = 5;

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
}

/** POSTs `body` on `agent`'s pooled connections; resolves with the status or the socket error. */
function post(url: URL, agent: Agent, sessionId: string, body: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(body);
  });
}

describe('HTTP face limits', () => {
  let gateway: { child: ChildProcess; url: URL };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tc-http-limits-'));
    writeFileSync(join(dir, 'personas.yaml'), dump({ anyone: { allow: ['*'], confirm: 'none' } }));
    const config = {
      upstreams: { bulky: { command: process.execPath, args: [BULKY] } },
      curator: { mode: 'none' },
      store: join(dir, 'store.db'),
      policy: { personas: 'personas.yaml' },
      timeouts: { startup_ms: 120_000 },
      http: { tokens: [{ token: TOKEN, persona: 'anyone' }, { token: OTHER, persona: 'anyone' }], max_sessions_per_token: MAX_SESSIONS },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    gateway = await startHttpGateway(join(dir, 'gateway.config.yaml'));
  }, 180_000);
  afterAll(() => gateway?.child.kill('SIGTERM'));

  it('5 MiB bodies mixed with pings on 4 kept-alive connections: every big one 413 with Connection: close, every ping 200, none lost', async () => {
    const session = new RawHttp(gateway.url, TOKEN);
    await session.initialize();
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } });
    const outcomes = await Promise.all(
      Array.from({ length: 240 }, (_, i) => {
        const body = i % 4 === 0 ? big : JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' });
        return post(gateway.url, agent, session.sessionId!, body).then((o) => ({ big: i % 4 === 0, ...o }));
      }),
    );
    agent.destroy();
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    expect(outcomes.filter((o) => o.big).map((o) => `${o.status} ${o.connection}`)).toEqual(Array(60).fill('413 close'));
    expect(outcomes.filter((o) => !o.big).map((o) => o.status)).toEqual(Array(180).fill(200));
  }, 300_000);

  it('a body nested deeper than 1,000 levels gets 400 -32600 in both eras, not 500; 1,000 levels and the next request are served (attack8)', async () => {
    // The other token: this test's session must not count against the session cap tested below.
    const session = new RawHttp(gateway.url, OTHER);
    await session.initialize();
    // The message, its params and _meta are three levels; `depth` arrays inside make 3 + depth.
    const nested = (depth: number, meta: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: '2.0', id: depth, method: 'tools/list', params: { _meta: { ...meta, deep: 'DEEP' } } }).replace('"DEEP"', '['.repeat(depth) + ']'.repeat(depth));
    const modern = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const send = async (body: string, era: '2025' | '2026') => {
      const headers: Record<string, string> = { authorization: `Bearer ${OTHER}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (era === '2025') Object.assign(headers, { 'mcp-session-id': session.sessionId!, 'mcp-protocol-version': '2025-11-25' });
      else Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
      const res = await fetch(gateway.url, { method: 'POST', headers, body });
      const text = await res.text();
      return { status: res.status, error: res.status === 400 ? (JSON.parse(text) as { error: { code: number; message: string } }).error : undefined };
    };
    for (const era of ['2025', '2026'] as const) {
      const meta = era === '2026' ? modern : {};
      expect(await send(nested(5000, meta), era)).toEqual({ status: 400, error: { code: -32600, message: 'invalid request: JSON nested deeper than 1000 levels' } });
      expect(await send(nested(998, meta), era)).toMatchObject({ status: 400 });
      expect((await send(nested(997, meta), era)).status).toBe(200);
    }
    // Brackets inside strings are text, not nesting.
    expect((await send(JSON.stringify({ jsonrpc: '2.0', id: 'str', method: 'tools/list', params: { _meta: { ...modern, note: '['.repeat(5000) } } }), '2026')).status).toBe(200);
  }, 60_000);

  it('a body announced over the limit (Expect: 100-continue) is refused with 413 before it is sent', async () => {
    const outcome = await new Promise<{ status?: number; continued: boolean }>((resolve) => {
      let continued = false;
      const req = request(gateway.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', expect: '100-continue', 'content-length': 5 * 1024 * 1024 },
      });
      req.on('continue', () => {
        continued = true;
        req.end(Buffer.alloc(5 * 1024 * 1024, 0x20));
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, continued }));
        req.destroy();
      });
      req.on('error', () => resolve({ continued }));
      req.flushHeaders();
    });
    expect(outcome).toEqual({ status: 413, continued: false });
  }, 60_000);

  it(`caps open sessions per token at http.max_sessions_per_token (${MAX_SESSIONS}): the next initialize gets 429; DELETE frees a place; other tokens are not affected`, async () => {
    const open: RawHttp[] = [];
    // The first test's session still counts.
    for (let i = 1; i < MAX_SESSIONS; i++) {
      const s = new RawHttp(gateway.url, TOKEN);
      await s.initialize();
      open.push(s);
    }
    const refused = new RawHttp(gateway.url, TOKEN);
    const answer = await refused.post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    expect(answer.status).toBe(429);
    expect(answer.messages[0]?.error?.message).toBe(
      `this token has ${MAX_SESSIONS} open MCP sessions, the most http.max_sessions_per_token allows; close one (HTTP DELETE with its Mcp-Session-Id) or wait until one is idle for http.session_idle_minutes`,
    );

    const other = new RawHttp(gateway.url, OTHER);
    await other.initialize();

    const closed = await fetch(gateway.url, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': open[0]!.sessionId!, 'mcp-protocol-version': '2025-06-18' } });
    expect(closed.status).toBe(200);
    const again = new RawHttp(gateway.url, TOKEN);
    await again.initialize();
    expect(again.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  }, 120_000);
});

/**
 * The HTTP face's answers before MCP: DNS-rebinding protection (403), methods (405),
 * unknown sessions (404), missing session (400), and `http.anonymous` — served on
 * loopback only, never a fallback for a wrong token. In process, in front of the
 * conformance upstream over stdio.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { conformanceConfig } from '../helpers/conformance.js';
import { CLI } from '../helpers/reference.js';

const TOKEN = 'face-test-token-0123456789';
const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A raw HTTP request (node:http, because fetch may not set Host). */
function raw(port: number, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      // SSE answers stay open: the status and headers are what these tests read.
      if (res.headers['content-type']?.includes('text/event-stream')) {
        res.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body: '' });
      }
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

describe('HTTP face: status codes, DNS-rebinding protection, anonymous loopback access', () => {
  let gateway: Gateway;
  let face: HttpFace;
  let host: string;

  beforeAll(async () => {
    const path = conformanceConfig({ http: { tokens: [{ token: TOKEN, persona: 'tester' }], anonymous: { persona: 'visitor' } } });
    gateway = await Gateway.start(loadConfig(path), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
    host = `127.0.0.1:${face.port}`;
  });
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });

  it('refuses a foreign Host or Origin with 403 before anything else, and serves localhost ones', async () => {
    const evilHost = await raw(face.port, 'POST', { ...MCP_HEADERS, host: 'evil.example.com', origin: 'http://evil.example.com' }, INITIALIZE);
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body).error.message).toMatch(/Host "evil.example.com" is not allowed/);
    const evilOrigin = await raw(face.port, 'POST', { ...MCP_HEADERS, host, origin: 'http://evil.example.com', authorization: `Bearer ${TOKEN}` }, INITIALIZE);
    expect(evilOrigin.status).toBe(403);
    expect(JSON.parse(evilOrigin.body).error.message).toMatch(/Origin "http:\/\/evil.example.com" is not allowed/);
    const local = await raw(face.port, 'POST', { ...MCP_HEADERS, host: `localhost:${face.port}`, origin: `http://localhost:${face.port}` }, INITIALIZE);
    expect(local.status).toBe(200);
    expect(local.headers['mcp-session-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 405 (with Allow) for methods MCP does not use, 400 without a session, 404 for an unknown session', async () => {
    const put = await raw(face.port, 'PUT', { ...MCP_HEADERS, host }, '{}');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST, DELETE');
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await raw(face.port, 'POST', { ...MCP_HEADERS, host }, list)).status).toBe(400);
    expect((await raw(face.port, 'GET', { ...MCP_HEADERS, host })).status).toBe(400);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const r = await raw(face.port, method, { ...MCP_HEADERS, host, 'mcp-session-id': 'no-such-session' }, method === 'POST' ? list : undefined);
      expect(r.status, method).toBe(404);
      expect(JSON.parse(r.body).error.message).toMatch(/session not found/);
    }
  });

  it('serves requests without a token as http.anonymous, but a wrong token is still 401', async () => {
    const url = new URL(`http://${host}/mcp`);
    const client = new Client({ name: 'no-token-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    const result = (await client.callTool({ name: 'test_simple_text', arguments: {} })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    expect((await gateway.store.audit.tail(1))[0]).toMatchObject({ tool: 'test_simple_text', persona: 'visitor' });
    await client.close();
    const wrong = await raw(face.port, 'POST', { ...MCP_HEADERS, host, authorization: 'Bearer wrong-token-wrong-token' }, INITIALIZE);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="tool-curator", error="invalid_token", error_description="the bearer token is not valid"');
  });

  it('a token\'s session cannot be continued without the token', async () => {
    const init = await raw(face.port, 'POST', { ...MCP_HEADERS, host, authorization: `Bearer ${TOKEN}` }, INITIALIZE);
    const sid = init.headers['mcp-session-id'] as string;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const anonymous = await raw(face.port, 'POST', { ...MCP_HEADERS, host, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, list);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toMatch(/belongs to another token/);
  });

  it('refuses to start with http.anonymous on a non-loopback address, saying why', async () => {
    await expect(serveHttp(gateway, 0, '0.0.0.0')).rejects.toThrow(/http\.anonymous: requests without a token are served only on a loopback address .* binds "0\.0\.0\.0"/);
  });
});

describe('HTTP face config, checked before anything starts', () => {
  it('serve --http refuses http.anonymous on a non-loopback address and exits', () => {
    const path = conformanceConfig({ http: { host: '0.0.0.0', anonymous: { persona: 'visitor' } } });
    const run = spawnSync(process.execPath, [CLI, 'serve', '--config', path, '--http', '0'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/http\.anonymous: requests without a token are served only on a loopback address .* binds "0\.0\.0\.0"/);
    expect(run.stderr).not.toMatch(/serving MCP over Streamable HTTP/);
  });

  it('allowed_hosts takes hostnames without port; allowed_origins takes URLs', () => {
    expect(() => loadConfig(conformanceConfig({ http: { allowed_hosts: ['mcp.example.com:8080'] } }))).toThrow(
      /http\.allowed_hosts\.0: a hostname without port, e\.g\. mcp\.example\.com or \[::1\]/,
    );
    expect(() => loadConfig(conformanceConfig({ http: { allowed_origins: ['app.example.com'] } }))).toThrow(/http\.allowed_origins\.0/);
    const ok = loadConfig(conformanceConfig({ http: { allowed_hosts: ['MCP.example.com', '[::1]'], allowed_origins: ['https://app.example.com'] } }));
    expect(ok.config.http.allowed_hosts).toEqual(['MCP.example.com', '[::1]']);
  });
});

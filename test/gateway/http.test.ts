/**
 * Streamable HTTP on both sides: remote upstreams (the reference "everything" server in
 * its Streamable HTTP and its legacy SSE mode, the second reached through the SSE
 * fallback), and the gateway served with `serve --http PORT` to an SDK client that
 * authenticates with a bearer token.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnUntil } from '../helpers/process.js';
import { CLI, INDEX_READY_MS, ROOT, referenceConfig } from '../helpers/reference.js';

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOKEN = 'http-test-token-0123456789';
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('gateway over HTTP with remote upstreams', () => {
  const children: ChildProcess[] = [];
  let url: URL;

  beforeAll(async () => {
    const [streamPort, ssePort, gatewayPort] = await Promise.all([freePort(), freePort(), freePort()]);
    children.push((await spawnUntil(process.execPath, [EVERYTHING, 'streamableHttp'], /listening on port/, { PORT: String(streamPort) })).child);
    children.push((await spawnUntil(process.execPath, [EVERYTHING, 'sse'], /running on|listening|port/i, { PORT: String(ssePort) })).child);
    const { configPath } = referenceConfig(
      { http: { tokens: [{ token: '${GW_TEST_TOKEN}', persona: 'tester' }] }, policy: {} },
      {
        remote: { url: `http://127.0.0.1:${streamPort}/mcp` },
        legacy: { url: `http://127.0.0.1:${ssePort}/sse` },
      },
    );
    // Listening, and the index built (find_tools answers from BM25 alone before that), with its own timeout.
    const servingAndIndexed = /(?=[\s\S]*serving MCP over Streamable HTTP)(?=[\s\S]*"msg":"gateway ready")/;
    const gw = await spawnUntil(process.execPath, [CLI, 'serve', '--config', configPath, '--http', String(gatewayPort)], servingAndIndexed, { GW_TEST_TOKEN: TOKEN, TOOL_CURATOR_LOG: 'info' }, INDEX_READY_MS);
    children.push(gw.child);
    url = new URL(`http://127.0.0.1:${gatewayPort}/mcp`);
  }, INDEX_READY_MS + 60_000);
  afterAll(() => {
    for (const c of children) c.kill();
  });

  async function connect(token?: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(url, token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined);
    const client = new Client({ name: 'http-host', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('refuses requests without a token or with a wrong one: HTTP 401, a JSON-RPC error and a challenge that says which', async () => {
    const none = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(none.status).toBe(401);
    // No resource_metadata: there is no authorization server for a client to discover.
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="tool-curator", error="invalid_request", error_description="a bearer token is required"');
    expect(await none.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: "unauthorized: a bearer token is required; send Authorization: Bearer <token>, a token of http.tokens in the gateway's config" },
      id: null,
    });
    const wrong = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer not-the-token-at-all', 'content-type': 'application/json' }, body: '{}' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="tool-curator", error="invalid_token", error_description="the bearer token is not valid"');
    // The SDK client shows the gateway's message.
    await expect(connect('wrong-token-wrong-token')).rejects.toThrow(/unauthorized: the bearer token is not valid; send Authorization: Bearer <token>/);
    await expect(connect()).rejects.toThrow(/unauthorized: a bearer token is required/);
  });

  it('serves find_tools and forwards calls to Streamable HTTP and SSE upstreams, with collisions qualified', async () => {
    const client = await connect(TOKEN);
    const found = JSON.parse(text(await client.callTool({ name: 'find_tools', arguments: { query: 'add two numbers together', limit: 5 } }))) as { tools: { name: string }[] };
    const names = found.tools.map((t) => t.name);
    // The three everything servers (stdio, Streamable HTTP, SSE) collide on every name: the
    // first in config order (everything) keeps it, the later ones are qualified.
    expect(names).toEqual(expect.arrayContaining(['get-sum', 'remote__get-sum', 'legacy__get-sum']));
    for (const name of ['remote__get-sum', 'legacy__get-sum']) {
      const r = await client.callTool({ name, arguments: { a: 20, b: 22 } });
      expect(r.isError).toBeFalsy();
      expect(text(r)).toContain('42');
    }
    await client.close();
  });
});

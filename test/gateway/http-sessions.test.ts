/**
 * Session bookkeeping of the Streamable HTTP face, in process so the gateway's own
 * objects can be counted: a session holds one `catalog` listener on the gateway while it
 * lives, and gives it back when the host closes it or when the transport refuses the
 * initialize request before a session exists.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/gateway/http.js';
import { referenceConfig } from '../helpers/reference.js';

const TOKEN = 'sessions-test-token-0123456789';
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('HTTP sessions release what they hold', () => {
  let gateway: Gateway;
  let face: HttpFace;
  let url: URL;

  beforeAll(async () => {
    const { configPath } = referenceConfig({ http: { tokens: [{ token: TOKEN, persona: 'tester' }] }, policy: {} });
    gateway = await Gateway.start(loadConfig(configPath), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
    url = new URL(`http://127.0.0.1:${face.port}/mcp`);
  });
  afterAll(async () => {
    await face?.close();
    await gateway?.close();
  });

  it('an initialize the transport refuses (406: no text/event-stream in Accept) leaves no session behind', async () => {
    const before = gateway.listenerCount('catalog');
    for (let i = 0; i < 5; i++) {
      const r = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(INITIALIZE),
      });
      expect(r.status).toBe(406);
    }
    expect(gateway.listenerCount('catalog')).toBe(before);
  });

  it('a session holds one catalog listener while open and none once the host terminates it', async () => {
    const before = gateway.listenerCount('catalog');
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    const client = new Client({ name: 'http-host', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).slice(0, 2)).toEqual(['find_tools', 'call_tool']);
    expect(gateway.listenerCount('catalog')).toBe(before + 1);
    await transport.terminateSession();
    await client.close();
    await expect.poll(() => gateway.listenerCount('catalog'), { timeout: 2000 }).toBe(before);
  });
});

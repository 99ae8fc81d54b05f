/**
 * A 2026-07-28 upstream whose tools/call result carries no `resultType`: the pool reads it
 * as `complete` (the 2026-07-28 specification; the SDK 2.4.0 client alone refuses it).
 * The upstream is the SDK's own 2026 handler over real HTTP; its answer for the tool
 * `bare` leaves the wire without `resultType` (counted, so the test cannot pass on a
 * server that kept the field), as a server that omits it would send it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, expect, it } from 'vitest';
import { upstreamSchema } from '../../src/config/schema.js';
import { UpstreamPool } from '../../src/upstream/pool.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A 2026-only server with `bare` and `full`; `stripped` counts the answers sent without `resultType`. */
async function serve(): Promise<{ url: string; stripped: () => number }> {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'bare-results', version: '1.0.0' });
      for (const name of ['bare', 'full']) server.registerTool(name, { description: `Answers ${name}` }, async () => ({ content: [{ type: 'text', text: `${name} answer` }] }));
      return server;
    },
    { legacy: 'reject' },
  );
  let stripped = 0;
  const node = toNodeHandler({
    fetch: async (request: Request) => {
      const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string; params?: { name?: string } }) : undefined;
      const response = await handler.fetch(request);
      if (body?.method !== 'tools/call' || body.params?.name !== 'bare') return response;
      const text = await response.text();
      const without = text.replace(/"resultType":"complete",?/, '');
      if (without !== text) stripped++;
      return new Response(without, { status: response.status, headers: response.headers });
    },
  });
  const http = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, stripped: () => stripped };
}

it('a 2026 result without resultType reaches the caller as a complete result', async () => {
  const server = await serve();
  const pool = new UpstreamPool({ up: upstreamSchema.parse({ url: server.url }) }, { baseDir: import.meta.dirname, startupMs: 20_000, callMs: 20_000, reconnectBaseMs: 60_000 });
  cleanup.push(() => pool.close());
  await pool.start();
  expect(pool.status()[0]).toMatchObject({ state: 'ready', era: '2026-07-28' });

  const bare = await pool.call('up', 'bare', {});
  expect(server.stripped()).toBe(1);
  expect(bare.isError).toBeFalsy();
  expect(bare.content).toEqual([{ type: 'text', text: 'bare answer' }]);
  expect((await pool.call('up', 'full', {})).content).toEqual([{ type: 'text', text: 'full answer' }]);
  expect(server.stripped()).toBe(1);
});

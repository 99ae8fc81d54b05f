/**
 * UpstreamClient (src/upstream/client.ts): the SDK's Client, asking its era codec once per
 * revision and method whether a result schema exists, instead of on every request. Run
 * against a real SDK server over real HTTP, in both eras, beside a plain SDK Client: the
 * probe count is what differs, never a result, an error or a refusal.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { UpstreamClient } from '../../src/upstream/client.js';

let url: string;
let close: () => Promise<unknown>;

/** Serves both eras; the tool `broken` answers a `content` that is not a list (rewritten on the wire). */
beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'probe-count', version: '1.0.0' });
      for (const name of ['echo', 'broken']) server.registerTool(name, { description: `Answers ${name}` }, async () => ({ content: [{ type: 'text', text: `${name} answer` }] }));
      return server;
    },
    { legacy: 'serve' },
  );
  const node = toNodeHandler({
    fetch: async (request: Request) => {
      const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string; params?: { name?: string } }) : undefined;
      const response = await handler.fetch(request);
      if (body?.method !== 'tools/call' || body.params?.name !== 'broken') return response;
      const text = (await response.text()).replace(/"content":\[[^\]]*\]/, '"content":"not a list"');
      return new Response(text, { status: response.status, headers: response.headers });
    },
  });
  const http = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  close = async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  };
});
afterAll(() => close());

const ERAS = [
  { era: '2026-07-28', versionNegotiation: { mode: { pin: '2026-07-28' } } },
  { era: '2025-11-25', versionNegotiation: { mode: 'legacy' } },
] as const;

type Codec = { validateResult: (method: string, raw: unknown) => unknown };

async function connected(Kind: typeof Client, versionNegotiation: (typeof ERAS)[number]['versionNegotiation']): Promise<Client> {
  const client = new Kind({ name: 'probe-test', version: '1' }, { versionNegotiation } as ConstructorParameters<typeof Client>[1]);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * How often `work` makes `client`'s era codec validate `undefined` (the SDK's "is there a
 * result schema" question). The codec is one object per era, shared by every client of the
 * process: counted around one client's work at a time.
 */
async function probesDuring(client: Client, work: () => Promise<void>): Promise<number> {
  const spy = vi.spyOn((client as unknown as { _wireCodec(): Codec })._wireCodec(), 'validateResult');
  try {
    await work();
    return spy.mock.calls.filter(([, raw]) => raw === undefined).length;
  } finally {
    spy.mockRestore();
  }
}

describe.each(ERAS)('$era', ({ era, versionNegotiation }) => {
  test('asks whether tools/call and tools/list have a result schema once each, and answers as the SDK client does', async () => {
    const mine = await connected(UpstreamClient, versionNegotiation);
    const plain = await connected(Client, versionNegotiation);
    try {
      expect(mine.getNegotiatedProtocolVersion()).toBe(era);
      const work = (client: Client) => async () => {
        for (let i = 0; i < 3; i++) expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'echo answer' }] });
        expect((await client.listTools(undefined, { cacheMode: 'refresh' } as never)).tools.map((t) => t.name).sort()).toEqual(['broken', 'echo']);
      };
      // The SDK's client asks on every request; this one once per method, and never again.
      expect(await probesDuring(plain, work(plain))).toBe(4);
      expect(await probesDuring(mine, work(mine))).toBe(2);
      expect(await probesDuring(mine, work(mine))).toBe(0);
    } finally {
      await mine.close();
      await plain.close();
    }
  });

  test('a result that breaks the era schema is refused with the SDK client\'s own error', async () => {
    const mine = await connected(UpstreamClient, versionNegotiation);
    const plain = await connected(Client, versionNegotiation);
    try {
      const refusal = async (client: Client) => (await client.callTool({ name: 'broken', arguments: {} }).then(() => undefined, (err: Error) => err)) as Error | undefined;
      const [ours, theirs] = [await refusal(mine), await refusal(plain)];
      expect(theirs?.message).toMatch(/content/);
      expect(ours?.constructor).toBe(theirs?.constructor);
      expect(ours?.message).toBe(theirs?.message);
    } finally {
      await mine.close();
      await plain.close();
    }
  });

  test('a method outside the spec, sent without a schema, is refused as the SDK refuses it', async () => {
    const mine = await connected(UpstreamClient, versionNegotiation);
    try {
      expect(() => mine.request({ method: 'acme/custom' } as never)).toThrow("'acme/custom' is not a spec method; pass a result schema as the second argument to request().");
      // With a schema the SDK's explicit path is taken untouched: the server does not know the method.
      const schema = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;
      await expect(mine.request({ method: 'acme/custom' }, schema as never)).rejects.toThrow(/not found/i);
    } finally {
      await mine.close();
    }
  });
});

/**
 * The store-backed response cache behind the upstream clients (src/upstream/responseCache.ts)
 * with real SDK clients on the 2026-07-28 era against a real server that counts the
 * requests reaching it: `public` results are shared by every user of the upstream,
 * `private` ones stay with the user (`cachePartition`) that fetched them, two upstreams
 * that report the same serverInfo never share entries, and a result over the size bound
 * is never kept.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { StoreResponseCache } from '../../src/upstream/responseCache.js';

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

/** A 2026 server: tools/list public for a minute, resources/read private for a minute; `counts` by method. */
function upstream(body = 'secret of whoever asked') {
  const counts = new Map<string, number>();
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(
        { name: 'same-name', version: '1.0.0' },
        { cacheHints: { 'tools/list': { ttlMs: 60_000, cacheScope: 'public' }, 'resources/read': { ttlMs: 60_000, cacheScope: 'private' } } },
      );
      server.registerTool('ping', { description: 'answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
      server.registerResource('note', 'note://me', { description: 'a per-user note' }, async (uri) => ({ contents: [{ uri: uri.href, text: body }] }));
      return server;
    },
    { legacy: 'reject' },
  );
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const method = (JSON.parse(String(init?.body ?? '{}')) as { method?: string }).method;
    if (method) counts.set(method, (counts.get(method) ?? 0) + 1);
    return handler.fetch(new Request(url, init));
  };
  return { counts, fetch };
}

async function client(server: ReturnType<typeof upstream>, cache: StoreResponseCache, user: string): Promise<Client> {
  const c = new Client({ name: 'gateway', version: '1' }, { versionNegotiation: { mode: 'auto' }, responseCacheStore: cache, cachePartition: user });
  await c.connect(new StreamableHTTPClientTransport(new URL('http://upstream.test/mcp'), { fetch: server.fetch }));
  return c;
}

async function store(): Promise<Store> {
  const s = await openStore(':memory:');
  stores.push(s);
  return s;
}

const readText = async (c: Client) => ((await c.readResource({ uri: 'note://me' })).contents[0] as { text: string }).text;

describe('StoreResponseCache', () => {
  it('shares a public tools/list across users, keeps a private read per user', async () => {
    const server = upstream();
    const cache = new StoreResponseCache((await store()).responseCache, '["up","k"]', 1_000_000);
    const alice = await client(server, cache, 'alice');
    const bob = await client(server, cache, 'bob');
    expect((await alice.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(['ping']);
    expect(server.counts.get('tools/list')).toBe(1);
    expect(await readText(alice)).toBe('secret of whoever asked');
    expect(await readText(alice)).toBe('secret of whoever asked');
    expect(server.counts.get('resources/read')).toBe(1);
    // Bob's read is his own: alice's private entry is not served to him.
    await readText(bob);
    expect(server.counts.get('resources/read')).toBe(2);
  });

  it('keeps two upstreams apart even when both report the same serverInfo', async () => {
    const s = await store();
    const one = upstream('from one');
    const two = upstream('from two');
    const a = await client(one, new StoreResponseCache(s.responseCache, '["one","k1"]', 1_000_000), '');
    const b = await client(two, new StoreResponseCache(s.responseCache, '["two","k2"]', 1_000_000), '');
    expect(await readText(a)).toBe('from one');
    expect(await readText(b)).toBe('from two');
    expect([one.counts.get('resources/read'), two.counts.get('resources/read')]).toEqual([1, 1]);
  });

  it('does not keep a result over its size bound', async () => {
    const server = upstream('x'.repeat(5000));
    const c = await client(server, new StoreResponseCache((await store()).responseCache, '["up","k"]', 1000), 'alice');
    await readText(c);
    await readText(c);
    expect(server.counts.get('resources/read')).toBe(2);
  });
});

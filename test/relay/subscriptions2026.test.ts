/**
 * A 2025-11-25 host's resources/subscribe in front of a 2026-07-28 upstream, through the
 * built gateway over Streamable HTTP. The upstream (fixtures/watched2026.ts, a separate
 * process serving 2026-07-28 only) has no resources/subscribe: the gateway carries the
 * hosts' subscriptions on its subscriptions/listen stream to it. Hosts are the SDK's Client
 * in its default (2025-11-25) mode; the test reaches the upstream directly (2026-07-28) to
 * change a resource and to read which listen filters it was sent and how many of its listen
 * streams are open. The last part drives the connection's stream itself (upstream/listen.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type SubscriptionFilter } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchChanges } from '../../src/upstream/listen.js';
import { spawnUntil } from '../helpers/process.js';
import { until } from '../helpers/reference.js';
import { httpGateway, mcpError } from './setup.js';

const FIXTURE = join(import.meta.dirname, '../../dist/test/relay/fixtures/watched2026.js');
const TOKENS = { full: 'full-token-0123456789abcdef', limited: 'limited-token-0123456789abcdef' };
const PERSONAS = {
  full: { allow: ['*'], resources: { allow: ['*'] }, confirm: 'none' },
  limited: { allow: ['*'], resources: { allow: ['watched.*'], deny: ['watched.watch://secret'] }, confirm: 'none' },
};
/** Long enough for a loaded machine; a wait that runs out fails the test with what it waited for. */
const WAIT = { timeout: 30_000, interval: 50 };

interface Upstream {
  child: ChildProcess;
  url: string;
  /** A 2026-07-28 client of the upstream itself, past the gateway. */
  direct: Client;
  touch(uri: string): Promise<void>;
  streams(): Promise<{ filters: SubscriptionFilter[]; open: number }>;
}

async function startUpstream(args: string[] = []): Promise<Upstream> {
  const { child, stderr } = await spawnUntil(process.execPath, [FIXTURE, ...args], /watched2026 listening on \S+\n/);
  const url = /watched2026 listening on (\S+)/.exec(stderr())![1]!;
  const direct = new Client({ name: 'direct', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await direct.connect(new StreamableHTTPClientTransport(new URL(url)));
  const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
  return {
    child,
    url,
    direct,
    touch: async (uri) => void (await direct.callTool({ name: 'touch', arguments: { uri } })),
    streams: async () => JSON.parse(text(await direct.callTool({ name: 'streams', arguments: {} }))),
  };
}

function gatewayConfig(url: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tc-subscriptions2026-'));
  writeFileSync(join(dir, 'personas.yaml'), dump(PERSONAS));
  const config = {
    upstreams: { watched: { url, transport: 'streamable-http' } },
    curator: { mode: 'bm25', top_k: 12, embedder: 'none' },
    store: join(dir, 'store.db'),
    policy: { personas: 'personas.yaml' },
    timeouts: { list_wait_ms: 120_000 },
    http: { tokens: [{ token: TOKENS.full, persona: 'full' }, { token: TOKENS.limited, persona: 'limited' }] },
  };
  writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
  return join(dir, 'gateway.config.yaml');
}

/** The URIs of the resources/updated notifications `host` receives, in order. */
function updates(host: Client): string[] {
  const got: string[] = [];
  host.setNotificationHandler('notifications/resources/updated', (n) => void got.push(n.params.uri));
  return got;
}

const named = (...uris: string[]): SubscriptionFilter => ({ resourceSubscriptions: uris });

describe('in front of a 2026 upstream that announces no list changes', () => {
  let up: Upstream;
  let gateway: Awaited<ReturnType<typeof httpGateway>>;
  const hosts: Client[] = [];
  const host = async (token: string) => {
    const h = await gateway.host(token);
    hosts.push(h);
    return h;
  };
  /** The listen filters the upstream received since `from`. */
  const filtersSince = async (from: number) => (await up.streams()).filters.slice(from);
  const openStreams = async () => (await up.streams()).open;

  beforeAll(async () => {
    up = await startUpstream();
    gateway = await httpGateway(gatewayConfig(up.url));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    await up?.direct.close();
    gateway?.child.kill();
    up?.child.kill();
  });

  it('subscribe: the gateway listens naming the URI and the update reaches the host; unsubscribe ends the listen and no more arrive', async () => {
    const a = await host(TOKENS.full);
    const got = updates(a);
    const from = (await up.streams()).filters.length;
    await a.subscribeResource({ uri: 'watch://a' });
    expect(await filtersSince(from)).toEqual([named('watch://a')]);
    expect(await openStreams()).toBe(1);
    await up.touch('watch://a');
    await until(() => got.length === 1, 'the update of watch://a at the host');
    expect(got).toEqual(['watch://a']);
    await a.unsubscribeResource({ uri: 'watch://a' });
    await expect.poll(openStreams, WAIT).toBe(0);
    // Both changes travel one ordered way: had the first reached the host, it would come before the second.
    await a.subscribeResource({ uri: 'watch://b' });
    await up.touch('watch://a');
    await up.touch('watch://b');
    await until(() => got.length === 2, 'the update of watch://b at the host');
    expect(got).toEqual(['watch://a', 'watch://b']);
    await a.unsubscribeResource({ uri: 'watch://b' });
    expect(await filtersSince(from)).toEqual([named('watch://a'), named('watch://b')]);
    await expect.poll(openStreams, WAIT).toBe(0);
  });

  it('two hosts on one URI: one unsubscribes, the other still gets its updates; the listen names the URI until the last one leaves', async () => {
    const [a, b] = [await host(TOKENS.full), await host(TOKENS.full)];
    const [toA, toB] = [updates(a), updates(b)];
    const from = (await up.streams()).filters.length;
    await a.subscribeResource({ uri: 'watch://a' });
    await a.subscribeResource({ uri: 'watch://b' });
    await b.subscribeResource({ uri: 'watch://a' });
    await up.touch('watch://a');
    await until(() => toA.length === 1 && toB.length === 1, 'the update of watch://a at both hosts');
    await a.unsubscribeResource({ uri: 'watch://a' });
    await up.touch('watch://a');
    await up.touch('watch://b');
    await until(() => toA.length === 2 && toB.length === 2, 'the second updates');
    expect(toA).toEqual(['watch://a', 'watch://b']);
    expect(toB).toEqual(['watch://a', 'watch://a']);
    await b.unsubscribeResource({ uri: 'watch://a' });
    await a.unsubscribeResource({ uri: 'watch://b' });
    expect(await filtersSince(from)).toEqual([named('watch://a'), named('watch://a', 'watch://b'), named('watch://b')]);
    await expect.poll(openStreams, WAIT).toBe(0);
  });

  it('a host whose session ends drops its subscriptions, and the listen ends with them', async () => {
    const c = await host(TOKENS.full);
    const from = (await up.streams()).filters.length;
    await c.subscribeResource({ uri: 'watch://b' });
    expect(await openStreams()).toBe(1);
    await (c.transport as StreamableHTTPClientTransport).terminateSession();
    await expect.poll(openStreams, WAIT).toBe(0);
    expect(await filtersSince(from)).toEqual([named('watch://b')]);
  });

  it('the persona decides as for a 2025 upstream: a denied URI is refused and never reaches the upstream', async () => {
    const limited = await host(TOKENS.limited);
    const from = (await up.streams()).filters.length;
    const denied = await mcpError(limited.subscribeResource({ uri: 'watch://secret' }));
    expect(denied.code).toBe(-32602);
    expect(denied.message).toContain('watch://secret');
    await limited.subscribeResource({ uri: 'watch://a' });
    await limited.unsubscribeResource({ uri: 'watch://a' });
    expect(await filtersSince(from)).toEqual([named('watch://a')]);
  });
});

describe('in front of a 2026 upstream that announces resource list changes', () => {
  let up: Upstream;
  let gateway: Awaited<ReturnType<typeof httpGateway>>;
  let host: Client;
  beforeAll(async () => {
    up = await startUpstream(['--list-changed']);
    gateway = await httpGateway(gatewayConfig(up.url));
    host = await gateway.host(TOKENS.full);
  });
  afterAll(async () => {
    await host?.close();
    await up?.direct.close();
    gateway?.child.kill();
    up?.child.kill();
  });

  it('one stream carries the list changes and the subscribed URIs; after the unsubscribe it carries the list changes alone', async () => {
    const got = updates(host);
    // The gateway's first request waits for the upstream, whose list-change stream is open by then.
    await host.listResources();
    await expect.poll(async () => (await up.streams()).filters, WAIT).toEqual([{ resourcesListChanged: true }]);
    await host.subscribeResource({ uri: 'watch://a' });
    await up.touch('watch://a');
    await until(() => got.length === 1, 'the update of watch://a at the host');
    await host.unsubscribeResource({ uri: 'watch://a' });
    expect((await up.streams()).filters).toEqual([{ resourcesListChanged: true }, { resourcesListChanged: true, ...named('watch://a') }, { resourcesListChanged: true }]);
    await expect.poll(async () => (await up.streams()).open, WAIT).toBe(1);
    expect(got).toEqual(['watch://a']);
  });
});

describe("a connection's listen stream (upstream/listen.ts)", () => {
  let up: Upstream;
  let client: Client;
  beforeAll(async () => {
    up = await startUpstream();
    client = new Client({ name: 'gateway', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(up.url)));
  });
  afterAll(async () => {
    await client?.close();
    await up?.direct.close();
    up?.child.kill();
  });

  it('carries at most its bound of URIs and of characters; a subscription past either is refused, naming the bound', async () => {
    const watch = watchChanges('watched', { client, era: '2026-07-28' }, { current: () => true, timeoutMs: 20_000, maxUris: 2, maxUriChars: 20 });
    await watch.subscribe('watch://a');
    await watch.subscribe('watch://b');
    await expect(watch.subscribe('watch://secret')).rejects.toThrow('already carries 2 resource subscriptions (at most 2 URIs, 20 characters together)');
    await watch.unsubscribe('watch://b');
    // 9 + 14 characters: past the bound of 20 though under 2 URIs.
    await expect(watch.subscribe('watch://secret')).rejects.toThrow('already carries 1 resource subscriptions');
    await watch.subscribe('watch://b');
    expect((await up.streams()).filters).toEqual([named('watch://a'), named('watch://a', 'watch://b'), named('watch://a'), named('watch://a', 'watch://b')]);
  });

  it('concurrent subscriptions share one listen request', async () => {
    const watch = watchChanges('watched', { client, era: '2026-07-28' }, { current: () => true, timeoutMs: 20_000 });
    const from = (await up.streams()).filters.length;
    await Promise.all(['watch://a', 'watch://b', 'watch://secret'].map((uri) => watch.subscribe(uri)));
    const filters = (await up.streams()).filters.slice(from);
    // The first opens a stream at once; the two that came while it opened take the next one together.
    expect(filters).toEqual([named('watch://a'), named('watch://a', 'watch://b', 'watch://secret')]);
  });
});

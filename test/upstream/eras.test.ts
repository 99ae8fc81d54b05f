/**
 * The upstream face in both protocol eras: the pool against a 2026-only, a 2025-only and
 * a both-era server over Streamable HTTP and stdio (and a 2025 SSE server), what each
 * negotiates, lists and calls; the era verdict kept in the store (a second start, or a
 * replica, skips the probe); the caching hint of tools/list honoured across replicas
 * through the store; a 2026 upstream's list change arriving over subscriptions/listen.
 * Wire requests are counted by the fixture's HTTP face (fixtures/eraServer.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../src/config/schema.js';
import { upstreamSchema } from '../../src/config/schema.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { connectionKey, VERDICT_HORIZON_MS } from '../../src/upstream/era.js';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { until } from '../helpers/reference.js';
import { BACKENDS, freshStores, setupBackends } from '../helpers/stores.js';
import { serveHttp, type FixtureEra, type FixtureHttp } from './fixtures/eraServer.js';

setupBackends();

/** The compiled fixture (npm run build): stdio upstreams are spawned as processes. */
const FIXTURE = join(import.meta.dirname, '../../dist/test/upstream/fixtures/eraServer.js');
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const cfgOf = (raw: Record<string, unknown>): UpstreamConfig => upstreamSchema.parse(raw);

async function startPool(name: string, raw: Record<string, unknown>, store?: Store): Promise<UpstreamPool> {
  const pool = new UpstreamPool({ [name]: cfgOf(raw) }, { baseDir: import.meta.dirname, startupMs: 20_000, callMs: 20_000, reconnectBaseMs: 60_000, ...(store && { memory: store }) });
  cleanup.push(() => pool.close());
  await pool.start();
  return pool;
}

async function http(era: FixtureEra): Promise<FixtureHttp> {
  const server = await serveHttp(era);
  cleanup.push(() => server.close());
  return server;
}

async function memoryStore(): Promise<Store> {
  const store = await openStore(':memory:');
  cleanup.push(() => store.close());
  return store;
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const toolNames = (pool: UpstreamPool, name: string) => (pool.toolsByServer().get(name) ?? []).map((t) => t.name).sort();

describe.each([
  ['2026', '2026-07-28', 'modern'],
  ['2025', '2025', 'legacy'],
  ['both', '2026-07-28', 'modern'],
] as const)('a %s-era upstream under protocol auto', (fixture, era, served) => {
  it('over Streamable HTTP: the era negotiated, the catalog and a call', async () => {
    const server = await http(fixture);
    const pool = await startPool('up', { url: server.url }, await memoryStore());
    expect(pool.status()[0]).toMatchObject({ state: 'ready', era, tools: 3 });
    expect(toolNames(pool, 'up')).toEqual(['add_tool', 'ask_name', 'echo']);
    expect(text(await pool.call('up', 'echo', { text: 'hi' }))).toBe(`hi (${served})`);
  });

  it('over stdio: the era negotiated, the catalog and a call', async () => {
    const pool = await startPool('up', { command: process.execPath, args: [FIXTURE, fixture] }, await memoryStore());
    expect(pool.status()[0]).toMatchObject({ state: 'ready', era, tools: 3 });
    expect(text(await pool.call('up', 'echo', { text: 'hi' }))).toBe(`hi (${served})`);
  });
});

describe('pinned protocols', () => {
  it("protocol 2026-07-28 refuses a 2025-only upstream, naming the pin; 2025-11-25 speaks 2025 to a both-era one without a probe", async () => {
    const old = await http('2025');
    const pinned = await startPool('old', { url: old.url, protocol: '2026-07-28' });
    expect(pinned.status()[0]).toMatchObject({ state: 'failed' });
    expect(pinned.status()[0]!.error).toMatch(/2026-07-28/);
    const both = await http('both');
    const legacy = await startPool('both', { url: both.url, protocol: '2025-11-25' });
    expect(legacy.status()[0]).toMatchObject({ state: 'ready', era: '2025' });
    expect(both.counts.get('server/discover')).toBeUndefined();
    expect(both.counts.get('initialize')).toBe(1);
  });
});

describe('a 2025 SSE upstream (the reference "everything" server)', () => {
  it('is reached over SSE in the 2025 era, with its catalog and calls', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js'), 'sse'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    cleanup.push(() => stop(child));
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => /running on port/i.test(d.toString()) && resolve());
      child.on('exit', (code) => reject(new Error(`everything sse exited ${code}`)));
    });
    const pool = await startPool('everything', { url: `http://127.0.0.1:${port}/sse`, transport: 'sse' }, await memoryStore());
    expect(pool.status()[0]).toMatchObject({ state: 'ready', era: '2025' });
    expect(toolNames(pool, 'everything')).toContain('echo');
    expect(text(await pool.call('everything', 'echo', { message: 'over sse' }))).toBe('Echo: over sse');
  });
});

describe.each(BACKENDS)('era verdicts and the response cache in the store ($kind)', (backend) => {
  const stores = freshStores(backend);

  it('a second replica connects with the stored 2026 verdict (no probe) and is served the public tools/list from the store', async () => {
    const server = await http('2026');
    const cfg = { url: server.url };
    const first = await startPool('up', cfg, await stores.another());
    expect(first.status()[0]).toMatchObject({ state: 'ready', era: '2026-07-28' });
    expect([server.counts.get('server/discover'), server.counts.get('tools/list')]).toEqual([1, 1]);
    const second = await startPool('up', cfg, await stores.another());
    expect(second.status()[0]).toMatchObject({ state: 'ready', era: '2026-07-28', tools: 3 });
    // Neither a probe nor a tools/list reached the upstream: the verdict and the list (public, 60 s) came from the store.
    expect([server.counts.get('server/discover'), server.counts.get('tools/list')]).toEqual([1, 1]);
    expect(text(await second.call('up', 'echo', { text: 'again' }))).toBe('again (modern)');
  });

  it('a stored 2025 verdict skips the probe; one past the horizon is probed again', async () => {
    const server = await http('2025');
    const cfg = { url: server.url };
    const store = await stores.another();
    await startPool('up', cfg, store);
    expect([server.counts.get('server/discover'), server.counts.get('initialize')]).toEqual([1, 1]);
    expect((await store.eras.get(connectionKey('up', cfgOf(cfg))))?.era).toBe('legacy');
    await startPool('up', cfg, store);
    expect([server.counts.get('server/discover'), server.counts.get('initialize')]).toEqual([1, 2]);
    await store.eras.put(connectionKey('up', cfgOf(cfg)), { era: 'legacy' }, Date.now() - VERDICT_HORIZON_MS - 1);
    await startPool('up', cfg, store);
    expect([server.counts.get('server/discover'), server.counts.get('initialize')]).toEqual([2, 3]);
  });
});

describe('a stale stored verdict', () => {
  it('a 2026 verdict for a server now 2025-only fails the start, is dropped, and the reconnect probes and finds 2025', async () => {
    const store = await memoryStore();
    const modern = await http('2026');
    const first = await startPool('up', { url: modern.url }, store);
    const discover = (await store.eras.get(connectionKey('up', cfgOf({ url: modern.url }))))?.discover;
    expect(discover).toContain('2026-07-28');
    const old = await http('2025');
    const key = connectionKey('up', cfgOf({ url: old.url }));
    await store.eras.put(key, { era: 'modern', discover });
    await first.close();
    const pool = new UpstreamPool({ up: cfgOf({ url: old.url }) }, { baseDir: import.meta.dirname, startupMs: 20_000, callMs: 20_000, reconnectBaseMs: 50, memory: store });
    cleanup.push(() => pool.close());
    await pool.start();
    expect(pool.status()[0]!.state).toBe('failed');
    await until(() => pool.status()[0]!.state === 'ready', 'reconnected', 20_000);
    expect(pool.status()[0]!.era).toBe('2025');
    expect((await store.eras.get(key))?.era).toBe('legacy');
    expect(old.counts.get('server/discover')).toBe(1);
  });
});

describe('list changes of a 2026 upstream', () => {
  it('arrive over subscriptions/listen and re-list past the cached copy', async () => {
    const server = await http('2026');
    const pool = await startPool('up', { url: server.url }, await memoryStore());
    await until(() => (server.counts.get('subscriptions/listen') ?? 0) > 0, 'listen stream opened', 20_000);
    let changes = 0;
    pool.on('change', () => changes++);
    await pool.call('up', 'add_tool', {});
    await until(() => changes > 0, 'tools changed', 20_000);
    expect(toolNames(pool, 'up')).toEqual(['add_tool', 'added', 'ask_name', 'echo']);
    // The first list was fresh for 60 s: the change, not its expiry, made the second one.
    expect(server.counts.get('tools/list')).toBe(2);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
}

/**
 * A hung upstream bounds nothing else (docs/PROTOCOL.md "Start-up"): the gateway in
 * process over two real upstream processes. A first run lists "hung" as the bulky fixture
 * (tools hung_*), so the store remembers whose those names are; the second run starts
 * "hung" as a process that reads its stdin and never answers initialize, beside "healthy"
 * (the bulky fixture), with a start-up timeout far beyond the test. The host is the SDK's
 * Client. Nothing is bounded by time: every request has a timeout far above list_wait_ms,
 * which the old behaviour (calls of a name the catalog lacks waited for every upstream
 * to arrive or fail) overran.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { Session } from '../../src/host/session.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, '../upstream/fixtures/bulky.mjs');
const REQUEST = { timeout: 120_000 };
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
/** `still starting since 12:53:41Z, 3 s ago; it has until 13:03:41Z to connect` (600 s after). */
const STARTING = String.raw`still starting since \d\d:\d\d:\d\dZ, \d+ s ago; it has until \d\d:\d\d:\d\dZ to connect`;

describe('a call while an upstream is hung at start-up', () => {
  let dir: string;
  let gateway: Gateway;
  let host: Client;
  const state = (name: string) => gateway.pool.status().find((s) => s.name === name)?.state;
  const write = (hung: { command: string; args: string[] }) => {
    const config = {
      upstreams: { hung, healthy: { command: process.execPath, args: [BULKY] } },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      // Ten minutes: nothing in this test may wait for a start-up timeout.
      timeouts: { startup_ms: 600_000, list_wait_ms: 1_000 },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    return loadConfig(join(dir, 'gateway.config.yaml'));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tc-hung-'));
    const first = await Gateway.start(write({ command: process.execPath, args: [BULKY, '--prefix', 'hung_'] }), { noEmbedder: true });
    expect(first.catalog.filter((t) => t.server === 'hung').map((t) => t.name)).toContain('hung_echo');
    await first.close();
    gateway = await Gateway.create(write({ command: process.execPath, args: ['-e', 'process.stdin.resume()'] }), { noEmbedder: true });
    const session = new Session(gateway, {});
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    host = new Client({ name: 'host', version: '1' });
    await host.connect(b);
    await until(() => state('healthy') === 'ready' && gateway.catalog.length > 0, 'the healthy upstream in the catalog');
  }, 180_000);

  afterAll(async () => {
    await host?.close();
    await gateway?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await host.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, REQUEST)) as CallToolResult;

  it("finds and calls the healthy upstream's tools while the hung one is still connecting", async () => {
    const found = JSON.parse(text((await host.callTool({ name: 'find_tools', arguments: { query: 'return the text echo' } }, REQUEST)) as CallToolResult)) as {
      tools: { name: string }[];
      unavailable?: { upstream: string; why: string }[];
      hint?: string;
    };
    expect(found.tools.map((t) => t.name)).toContain('echo');
    // The result says whose tools it cannot include yet: an answer without them is not the catalog's last word.
    expect(found.unavailable).toHaveLength(1);
    expect(found.unavailable![0]!.upstream).toBe('hung');
    expect(found.unavailable![0]!.why).toMatch(new RegExp(`^${STARTING}$`));
    expect(found.hint).toMatch(new RegExp(`Upstream "hung" \\(${STARTING}\\) is not ready, so its tools are not in this result; search again once it has started\\.$`));
    expect(text(await call('echo', { text: 'hello' }))).toBe('hello');
    expect(state('hung')).toBe('connecting');
  }, 150_000);

  it("a name the hung upstream listed before is answered at once as its, with since when and what to do, never another server's tool", async () => {
    const r = await call('hung_echo', { text: 'hello' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`^hung_echo belongs to upstream "hung", which is unavailable \\(${STARTING}\\); nothing was run\\. Try again once it has started, or call find_tools for the tools available now\\.$`));
    const prefixed = await call('hung__stats');
    expect(text(prefixed)).toMatch(/^hung__stats belongs to upstream "hung", which is unavailable \(still starting since /);
    expect(state('hung')).toBe('connecting');
  }, 150_000);

  it('a name nobody listed is unknown for now, naming the upstream still starting; no correction or did-you-mean onto a ready tool', async () => {
    // `echoo` is one letter from healthy's `echo`: with every upstream ready it would be corrected.
    for (const name of ['echoo', 'fetch_weather']) {
      const r = await call(name, { text: 'hello' });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(new RegExp(`^unknown tool ${name}: no upstream that is ready has it, and upstream "hung" \\(${STARTING}\\), not ready yet, may; nothing was run\\. Try again once it has started, or call find_tools for the tools available now\\.$`));
      expect(text(r)).not.toMatch(/did you mean|resolved to|\becho\b/);
    }
    expect(state('hung')).toBe('connecting');
  }, 150_000);
});

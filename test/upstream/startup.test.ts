/**
 * Upstreams start independently: the gateway in process (its pool's status within reach)
 * over three real upstream processes — "healthy" (the bulky fixture), "hung" (a process
 * that reads its stdin and never answers initialize) and "slow" (the bulky fixture
 * waiting for a file before it serves) — with a start-up timeout far beyond the test.
 * The host is the SDK's Client. Everything is asserted by the order of events, not by
 * time: the healthy upstream's tools are listed, found and called while "hung" is still
 * connecting; "slow" joins later with notifications/tools/list_changed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { Session } from '../../src/gateway/session.js';
import { liveChildren } from '../../src/upstream/children.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, 'fixtures/bulky.mjs');
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('a hung upstream beside a healthy one and a slow one', () => {
  let dir: string;
  let gateway: Gateway;
  let host: Client;
  let complete = false;
  let closed = false;
  const listChanged: number[] = [];
  const state = (name: string) => gateway.pool.status().find((s) => s.name === name)?.state;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tc-startup-'));
    const config = {
      upstreams: {
        hung: { command: process.execPath, args: ['-e', 'process.stdin.resume()'] },
        healthy: { command: process.execPath, args: [BULKY] },
        slow: { command: process.execPath, args: [BULKY, '--prefix', 'slow_', '--wait-for', join(dir, 'go')] },
      },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      // Ten minutes: nothing in this test may wait for a start-up timeout.
      timeouts: { startup_ms: 600_000, list_wait_ms: 1_000 },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    gateway = await Gateway.create(loadConfig(join(dir, 'gateway.config.yaml')), { noEmbedder: true });
    void gateway.catalogComplete.then(() => (complete = true));
    const session = new Session(gateway, {});
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    host = new Client({ name: 'host', version: '1' });
    host.setNotificationHandler('notifications/tools/list_changed', () => void listChanged.push(gateway.catalog.length));
    await host.connect(b);
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    if (!closed) await gateway?.close();
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await host.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, { timeout: 120_000 })) as CallToolResult;
  const found = async (query: string) =>
    (JSON.parse(text((await host.callTool({ name: 'find_tools', arguments: { query } }, { timeout: 120_000 })) as CallToolResult)) as { tools: { name: string }[] }).tools.map((t) => t.name);

  it("lists, finds and calls the healthy upstream's tools while the hung one is still connecting", async () => {
    // The first tools/list waits list_wait_ms at most: the healthy upstream may arrive
    // before it (in the first catalog) or after (announced with list_changed).
    const listed = (await host.listTools(undefined, { timeout: 120_000 })).tools.map((t) => t.name);
    expect(listed).toEqual(['find_tools', 'call_tool']);
    await until(() => gateway.catalog.length > 0, 'the healthy upstream in the catalog');
    expect(gateway.catalog.map((t) => `${t.server}.${t.name}`)).toEqual(['healthy.big', 'healthy.echo', 'healthy.flood_list_changed', 'healthy.flood_log', 'healthy.stats']);
    expect(await found('return the text echo')).toContain('echo');
    expect(text(await call('echo', { text: 'hello' }))).toBe('hello');
    expect([state('healthy'), state('hung'), state('slow')]).toEqual(['ready', 'connecting', 'connecting']);
    expect(complete).toBe(false);
    expect(gateway.startup.upstreamsMs).toBe(0);
  }, 120_000);

  it('a slow upstream joins when it is ready: list_changed, then its tools are found and called; the hung one still holds nothing back', async () => {
    const before = listChanged.length;
    writeFileSync(join(dir, 'go'), '');
    await until(() => listChanged.length > before, 'list_changed for the slow upstream');
    expect(listChanged.slice(before)).toEqual([10]);
    expect(state('slow')).toBe('ready');
    expect(await found('return the text echo slow')).toContain('slow_echo');
    expect(text(await call('slow_echo', { text: 'late but here' }))).toBe('late but here');
    expect(state('hung')).toBe('connecting');
    expect(complete).toBe(false);
  }, 120_000);

  it('closing the gateway ends the hung upstream too, without waiting for its start-up timeout', async () => {
    const before = liveChildren().length;
    expect(before).toBe(3);
    await gateway.close();
    closed = true;
    expect(gateway.pool.status().map((s) => s.state)).toEqual(['closed', 'closed', 'closed']);
    await until(() => liveChildren().length === 0, 'every upstream process gone', 30_000);
  }, 120_000);
});

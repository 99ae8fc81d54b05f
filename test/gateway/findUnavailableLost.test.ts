/**
 * find_tools names the upstreams whose tools it cannot include (docs/PROTOCOL.md
 * "Start-up"), and only those: an upstream that lost its connection keeps its tools in the
 * catalog, so a result that ranks them must not also say they are missing. The gateway in
 * process over two real upstream processes (the bulky fixture, "lost" with tools lost_*);
 * "lost" is killed (the pool reports it failed, reconnecting), and its next start waits for a file the test has removed, so it stays
 * reconnecting for as long as the test needs. The host is the SDK's Client; nothing is
 * bounded by time.
 */
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { Session } from '../../src/host/session.js';
import { resultText as text, type Found } from '../helpers/found.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, '../upstream/fixtures/bulky.mjs');
const REQUEST = { timeout: 120_000 };

describe('find_tools while an upstream that was connected is down', () => {
  let dir: string;
  let gate: string;
  let gateway: Gateway;
  let host: Client;
  const state = (name: string) => gateway.pool.status().find((s) => s.name === name)?.state;
  const find = async (query: string) => JSON.parse(text((await host.callTool({ name: 'find_tools', arguments: { query } }, REQUEST)) as CallToolResult)) as Found;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tc-lost-'));
    gate = join(dir, 'gate');
    writeFileSync(gate, '');
    const config = {
      upstreams: {
        lost: { command: process.execPath, args: [BULKY, '--prefix', 'lost_', '--wait-for', gate] },
        healthy: { command: process.execPath, args: [BULKY, '--prefix', 'healthy_'] },
      },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      timeouts: { startup_ms: 600_000, list_wait_ms: 1_000 },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    gateway = await Gateway.start(loadConfig(join(dir, 'gateway.config.yaml')), { noEmbedder: true });
    const session = new Session(gateway, {});
    const [a, b] = InMemoryTransport.createLinkedPair();
    await session.server.connect(a);
    host = new Client({ name: 'host', version: '1' });
    await host.connect(b);
  }, 180_000);

  afterAll(async () => {
    await host?.close();
    await gateway?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ranks the lost upstream\'s tools and does not call it unavailable; a call of one says it is', async () => {
    expect(state('lost')).toBe('ready');
    const before = await find('return the text echo');
    expect(before.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['lost_echo', 'healthy_echo']));
    expect(before.unavailable).toBeUndefined();

    const stats = text((await host.callTool({ name: 'call_tool', arguments: { name: 'lost_stats', arguments: {} } }, REQUEST)) as CallToolResult);
    const { pid } = JSON.parse(stats) as { pid: number };
    unlinkSync(gate);
    process.kill(pid, 'SIGKILL');
    await until(() => state('lost') === 'failed', 'the lost upstream reconnecting');
    expect(existsSync(gate)).toBe(false);

    const during = await find('return the text echo');
    // Its tools are still in the catalog, so still ranked: the result lacks nothing.
    expect(during.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['lost_echo', 'healthy_echo']));
    expect(during.unavailable).toBeUndefined();
    expect(during.hint ?? '').not.toMatch(/not ready/);
    // The call is where the model learns it: which upstream, and that nothing ran.
    const called = (await host.callTool({ name: 'call_tool', arguments: { name: 'lost_echo', arguments: { text: 'hi' } } }, REQUEST)) as CallToolResult;
    expect(called.isError).toBe(true);
    expect(text(called)).toMatch(/upstream "lost".*(unavailable|reconnecting)/);

    writeFileSync(gate, '');
    await until(() => state('lost') === 'ready', 'the lost upstream back');
    expect(text((await host.callTool({ name: 'call_tool', arguments: { name: 'lost_echo', arguments: { text: 'back' } } }, REQUEST)) as CallToolResult)).toBe('back');
  }, 180_000);
});

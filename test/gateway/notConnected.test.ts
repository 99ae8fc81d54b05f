/**
 * An upstream that is not connected says since when and what to check, in a call's answer
 * and in find_tools' `unavailable` (the issue: "a call to an upstream that is not ready
 * says so at once (which upstream, since when, what to do)"). It said "not connected",
 * with no time. The gateway in process, served over Streamable HTTP to the SDK's Client;
 * upstreams: "broken" (a command that exits at once: it fails to start), "lost" (the bulky
 * fixture, killed once connected, its next start waiting for a file the test has removed)
 * and "healthy". The times asserted are the pool's own records, not the clock's.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { serveHttp, type HttpFace } from '../../src/host/http.js';
import { isoTime } from '../../src/upstream/notConnected.js';
import { resultText as text, type Found } from '../helpers/found.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, '../upstream/fixtures/bulky.mjs');
const TOKEN = 'not-connected-token-0123456789';
const REQUEST = { timeout: 120_000 };

describe('an upstream that is not connected, since when and what to check', () => {
  let dir: string;
  let gate: string;
  let gateway: Gateway;
  let face: HttpFace;
  let host: Client;
  const status = (name: string) => gateway.pool.status().find((s) => s.name === name);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await host.callTool({ name, arguments: args }, REQUEST)) as CallToolResult;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tc-not-connected-'));
    gate = join(dir, 'gate');
    writeFileSync(gate, '');
    const config = {
      upstreams: {
        broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        lost: { command: process.execPath, args: [BULKY, '--prefix', 'lost_', '--wait-for', gate] },
        healthy: { command: process.execPath, args: [BULKY, '--prefix', 'healthy_'] },
      },
      curator: { mode: 'bm25', embedder: 'none' },
      store: join(dir, 'store.db'),
      timeouts: { startup_ms: 600_000, list_wait_ms: 1_000 },
      http: { tokens: [{ token: TOKEN, persona: 'tester', user_id: 'u1' }] },
    };
    writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
    gateway = await Gateway.start(loadConfig(join(dir, 'gateway.config.yaml')), { noEmbedder: true });
    face = await serveHttp(gateway, 0, '127.0.0.1');
    host = new Client({ name: 'host', version: '1' });
    await host.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${face.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    await until(() => status('broken')?.state === 'failed' && status('lost')?.state === 'ready', 'broken failed and lost ready');
  }, 180_000);

  afterAll(async () => {
    await host?.close();
    await face?.close();
    await gateway?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a failed start: the call and find_tools name the time it failed and what to check', async () => {
    const found = JSON.parse(text(await call('find_tools', { query: 'return the text echo' }))) as Found;
    const why = 'not connected since TIME, when it failed to start; the gateway keeps retrying it; `tool-curator doctor` tells its operator why (check its command in the config)';
    const time = /since (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ),/.exec(found.unavailable?.[0]?.why ?? '')?.[1];
    expect(found.unavailable).toEqual([{ upstream: 'broken', why: why.replace('TIME', time ?? '(no time)') }]);
    // The time of the failure the pool recorded (a failed retry keeps the first).
    expect(isoTime(status('broken')!.down!.since)).toBe(time);
    expect(status('broken')!.down!.lost).toBe(false);
    expect(found.hint).toContain(`Upstream "broken" (${found.unavailable![0]!.why}) is not ready`);

    expect(text(await call('broken__echo'))).toBe(`broken__echo belongs to upstream "broken", which is unavailable (${found.unavailable![0]!.why}); nothing was run. Try again later.`);
  });

  it('a lost connection: the call names the time it was lost and what to check; once back, it runs', async () => {
    const { pid } = JSON.parse(text(await call('lost_stats'))) as { pid: number };
    unlinkSync(gate);
    process.kill(pid, 'SIGKILL');
    await until(() => status('lost')?.state === 'failed', 'the lost upstream reconnecting');

    const called = await call('lost_echo', { text: 'hi' });
    expect(called.isError).toBe(true);
    const time = /since (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ),/.exec(text(called))?.[1] ?? '(no time)';
    expect(text(called)).toBe(
      `upstream "lost" is unavailable (not connected since ${time}, when its connection was lost; the gateway is reconnecting; \`tool-curator doctor\` tells its operator why (check its command in the config)); nothing was run. Try again later.`,
    );
    expect(isoTime(status('lost')!.down!.since)).toBe(time);
    expect(status('lost')!.down!.lost).toBe(true);

    writeFileSync(gate, '');
    await until(() => status('lost')?.state === 'ready', 'the lost upstream back');
    expect(status('lost')!.down).toBeUndefined();
    expect(text(await call('lost_echo', { text: 'back' }))).toBe('back');
  }, 180_000);
});

/**
 * Bounded results, end to end: the built gateway over Streamable HTTP with two host
 * sessions (the SDK's Client), in front of the "bulky" fixture upstream over stdio and
 * over Streamable HTTP (SSE answers and JSON answers). A 12 MB result comes back as an
 * error naming the tool and the size while the other session's call, in flight on the
 * same upstream connection, completes; the upstream is not restarted: the gateway skips
 * the message on the connection instead of closing it. A result between
 * relay.max_result_bytes and the connection's bound is read and refused the same way.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil } from '../helpers/process.js';
import { startHttpGateway } from '../helpers/raw.js';
import { until } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, 'fixtures/bulky.mjs');
const TOKEN = 'bounds-test-token-0123456789';
const MiB = 1024 * 1024;

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

/** The gateway over `upstream` as "bulky", serving HTTP; `host()` opens one more session. */
async function gatewayOver(upstream: Record<string, unknown>, relay: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tc-bounds-'));
  const config = {
    upstreams: { bulky: upstream },
    curator: { mode: 'none' },
    store: join(dir, 'store.db'),
    relay,
    timeouts: { startup_ms: 120_000, call_ms: 120_000 },
    http: { tokens: [{ token: TOKEN, persona: 'anyone' }] },
    policy: { personas: 'personas.yaml' },
  };
  writeFileSync(join(dir, 'personas.yaml'), dump({ anyone: { allow: ['*'], confirm: 'none' } }));
  writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
  const gateway = await startHttpGateway(join(dir, 'gateway.config.yaml'));
  children.push(gateway.child);
  const host = async () => {
    const client = new Client({ name: 'bounds-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    return client;
  };
  return { dir, gateway, host };
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, { timeout: 300_000 })) as CallToolResult;

/**
 * Session B's call is in flight on the upstream (it has started and waits for a file)
 * while session A's 12 MB result arrives; then B is released.
 */
async function oversizedBesideInFlight(upstream: Record<string, unknown>) {
  // The connection's bound is the larger of max_result_bytes and max_read_bytes: 10 MiB here.
  const { dir, gateway, host } = await gatewayOver(upstream, { max_read_bytes: 10 * MiB });
  const [a, b] = [await host(), await host()];
  try {
    const before = JSON.parse(text(await call(a, 'stats'))) as { pid: number; listed: number };
    const started = join(dir, 'b-started');
    const release = join(dir, 'b-release');
    const inFlight = call(b, 'echo', { text: 'still here', started, release });
    await until(() => existsSync(started), "session B's call reaching the upstream");

    const big = await call(a, 'big', { bytes: 12_000_000 });
    console.log(`bounds (${JSON.stringify(upstream.transport ?? 'stdio')}): ${text(big)}`);
    expect(big.isError).toBe(true);
    expect(text(big)).toMatch(/^upstream "bulky" answered big with a result of 12\d{6} bytes, over the gateway's limit of 10485760 bytes \(relay\.max_result_bytes\)/);

    writeFileSync(release, '');
    const other = await inFlight;
    expect(other.isError, text(other)).toBeFalsy();
    expect(text(other)).toBe('still here');

    // Same process, same session: no reconnect, no re-initialization (no second tools/list).
    expect(JSON.parse(text(await call(a, 'stats')))).toEqual(before);
    const log = gateway.stderr();
    expect(log).not.toMatch(/went away|reconnect|lost our session/);
    // Skipped on the connection, not read whole and refused after.
    expect(log).toMatch(/upstream \\"bulky\\" sent a message of 12\d{6} bytes, over the limit; skipped, the connection stays up/);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

describe('a tool result over the size limit', () => {
  it('stdio upstream: the error names the tool and the size; the other session\'s call in flight completes; the upstream is not restarted', async () => {
    await oversizedBesideInFlight({ command: process.execPath, args: [BULKY] });
  }, 300_000);

  for (const json of [false, true]) {
    it(`Streamable HTTP upstream (${json ? 'JSON' : 'SSE'} answers): the same, with the upstream's session kept`, async () => {
      const { child, stderr } = await spawnUntil(process.execPath, [BULKY, '--http', ...(json ? ['--json'] : [])], /bulky listening on \S+\n/);
      children.push(child);
      const url = /bulky listening on (\S+)/.exec(stderr())![1]!;
      await oversizedBesideInFlight({ url, transport: 'streamable-http' });
    }, 300_000);
  }

  it('a result over relay.max_result_bytes but within what the connection reads is refused the same way', async () => {
    const { host } = await gatewayOver({ command: process.execPath, args: [BULKY] }, { max_result_bytes: MiB });
    const client = await host();
    try {
      const refused = await call(client, 'big', { bytes: 2 * MiB });
      expect(text(refused)).toMatch(/^upstream "bulky" answered big with a result of 20\d{5} bytes, over the gateway's limit of 1048576 bytes \(relay\.max_result_bytes\)/);
      const fits = await call(client, 'big', { bytes: MiB / 2 });
      expect(fits.isError).toBeFalsy();
      expect(text(fits)).toHaveLength(MiB / 2);
    } finally {
      await client.close();
    }
  }, 300_000);
});

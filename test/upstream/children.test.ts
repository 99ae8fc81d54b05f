/**
 * Upstream child processes of the built gateway (`tool-curator serve` over stdio, a real
 * SDK host): `command: node` runs on the gateway's own Node whatever `node` PATH finds
 * first, and a stdio upstream — with the process it started, as `npx` starts `node` —
 * ends when the gateway is killed with SIGKILL in the middle of a call (no exit handler
 * of the gateway runs then). Process facts come from /proc; every wait is a bounded poll.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, parentOf, waitFor } from '../helpers/procs.js';
import { CLI } from '../helpers/reference.js';

const BULKY = join(import.meta.dirname, 'fixtures/bulky.mjs');
/** Starts the rest of its arguments as a child with its own stdio and exits as that child does: what `npx` does. */
const LAUNCHER = "const c = require('child_process').spawn(process.execPath, process.argv.slice(1), { stdio: 'inherit' }); c.on('exit', (code) => process.exit(code ?? 1));";

const hosts: Client[] = [];
/** Processes a failing test would leave behind. */
const watched: number[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close().catch(() => undefined)));
  for (const pid of alive(watched.splice(0))) process.kill(pid, 'SIGKILL');
});

/** A gateway over the upstreams `upstreams`, its host connected; `env` is the gateway's environment. */
async function serve(upstreams: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env) {
  const dir = mkdtempSync(join(tmpdir(), 'tc-children-'));
  const configPath = join(dir, 'gateway.config.yaml');
  writeFileSync(configPath, dump({
    upstreams,
    curator: { mode: 'bm25', embedder: 'none' },
    store: join(dir, 'store.db'),
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 600_000 },
  }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', configPath],
    env: { ...env, TOOL_CURATOR_LOG: 'warn' } as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const host = new Client({ name: 'test-host', version: '1.0.0' });
  hosts.push(host);
  await host.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await host.callTool({ name: 'call_tool', arguments: { name, arguments: args } }, { timeout: 120_000 })) as CallToolResult;
  const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return { dir, gatewayPid: transport.pid!, call, text, stderr: () => stderr };
}

describe('stdio upstream processes', () => {
  it('command: node runs on the gateway\'s own Node, not on the first node on PATH', async () => {
    const bin = join(mkdtempSync(join(tmpdir(), 'tc-fake-node-')), 'bin');
    mkdirSync(bin);
    const ran = join(bin, 'fake-node-ran');
    writeFileSync(join(bin, 'node'), `#!/bin/sh\necho "$@" > ${JSON.stringify(ran)}\nexit 3\n`);
    chmodSync(join(bin, 'node'), 0o755);
    const g = await serve({ bulky: { command: 'node', args: [BULKY] } }, { ...process.env, PATH: `${bin}:${process.env.PATH}` });
    const result = await g.call('stats');
    expect(result.isError, g.text(result)).toBeFalsy();
    const stats = JSON.parse(g.text(result)) as { pid: number };
    expect(realpathSync(`/proc/${stats.pid}/exe`)).toBe(realpathSync(process.execPath));
    expect(existsSync(ran)).toBe(false);
  }, 180_000);

  it('a SIGKILL of the gateway mid-call ends the upstream and the process that started it', async () => {
    const g = await serve({ slow: { command: process.execPath, args: ['-e', LAUNCHER, BULKY] } });
    const upstream = (JSON.parse(g.text(await g.call('stats'))) as { pid: number }).pid;
    const launcher = parentOf(upstream)!;
    watched.push(upstream, launcher);
    const started = join(g.dir, 'started');
    // A call that never ends by itself: it waits for a release file nobody writes.
    void g.call('echo', { text: 'never', started, release: join(g.dir, 'never') }).catch(() => undefined);
    await waitFor(() => existsSync(started) || undefined, 60_000, 'the call to be running upstream');
    expect(alive([upstream, launcher])).toEqual([upstream, launcher]);
    process.kill(g.gatewayPid, 'SIGKILL');
    await waitFor(() => alive([g.gatewayPid]).length === 0 || undefined, 30_000, 'the gateway to be gone');
    // Bounded poll: on a loaded machine the supervisor's parent check and grace take a while.
    await waitFor(() => alive([upstream, launcher]).length === 0 || undefined, 30_000, 'the upstream to end').catch(() => undefined);
    expect(alive([upstream, launcher])).toEqual([]);
  }, 180_000);
});

/**
 * The built gateway stops when told, in every phase, and leaves no upstream child behind:
 * each test starts `tool-curator serve` (stdio) over the eight university servers, stops
 * it with SIGTERM, SIGINT or stdin EOF in one phase, waits (bounded) for the exit and
 * reads the process table for every descendant it had.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { universityConfig } from '../guards/university.js';
import { alive, descendants, waitFor } from '../helpers/procs.js';
import { CLI, connectGateway, ROOT } from '../helpers/reference.js';

/** The upstream processes among `pids`: each runs under a supervisor process (src/upstream/supervisor.ts), not counted. */
const upstreams = (pids: number[]) => pids.filter((pid) => !cmdline(pid).includes('supervisor.js'));
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** An upstream that never answers initialize and ignores SIGTERM: only SIGKILL ends it. */
const STUBBORN = ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"];

interface Running {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serve(configPath: string): Running {
  const child = spawn(process.execPath, [CLI, 'serve', '--config', configPath], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TOOL_CURATOR_LOG: 'info' },
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => err, exited };
}

/** Stops the gateway with `how`; resolves with its exit, the descendants it had just before, and which of them were upstreams. */
async function stop(g: Running, how: 'SIGTERM' | 'SIGINT' | 'EOF') {
  const before = descendants(g.child.pid!);
  const upstreamsBefore = upstreams(before);
  if (how === 'EOF') g.child.stdin!.end();
  else g.child.kill(how);
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`gateway still running 20 s after ${how}:\n${g.stderr()}`)), 20_000));
  const exit = await Promise.race([g.exited, timeout]);
  // Children get SIGKILLed on our exit at the latest; give the kernel a moment to reap them.
  const left = await waitFor(() => (alive(before).length === 0 ? [] : false), 5_000, 'children to end').catch(() => alive(before));
  return { exit, before, upstreamsBefore, left };
}

/** A university config (absolute paths) plus `extra` upstreams and top-level keys. */
function config(upstreams: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  // The machine may be loaded: upstreams get all the time they need to start.
  const uni = universityConfig({ timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 }, ...extra });
  const doc = load(readFileSync(uni.configPath, 'utf8')) as { upstreams: Record<string, unknown> };
  doc.upstreams = { ...doc.upstreams, ...upstreams };
  writeFileSync(uni.configPath, dump(doc));
  return uni.configPath;
}

describe('gateway lifecycle (built gateway, real upstream processes)', () => {
  it('SIGTERM while upstreams are still starting: exits and ends every child, one that ignores SIGTERM too', async () => {
    const configPath = config({ stuck: { command: process.execPath, args: STUBBORN, startup_timeout_ms: 120_000 } });
    const g = serve(configPath);
    await waitFor(() => upstreams(descendants(g.child.pid!)).length >= 9 || undefined, 60_000, 'nine upstream children');
    expect(g.stderr()).not.toContain('upstreams connected');
    const { exit, upstreamsBefore, left } = await stop(g, 'SIGTERM');
    expect(upstreamsBefore.length).toBeGreaterThanOrEqual(9);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(left).toEqual([]);
  }, 120_000);

  it('stdin EOF during a cold index build: exits without waiting for the build, no child left', async () => {
    const configPath = config({}, { curator: { mode: 'hybrid', top_k: 12, embedder: 'use' }, policy: { personas: join(ROOT, 'personas.yaml'), synonyms: join(ROOT, 'domain_synonyms.json') } });
    const g = serve(configPath);
    await waitFor(() => g.stderr().includes('upstreams connected') || undefined, 60_000, 'upstreams connected');
    const building = !g.stderr().includes('catalog indexed');
    const { exit, upstreamsBefore, left } = await stop(g, 'EOF');
    expect(building).toBe(true);
    expect(upstreamsBefore.length).toBe(8);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(left).toEqual([]);
  }, 120_000);

  it('SIGINT while an upstream is being reconnected: the reconnecting child is ended too', async () => {
    const dir = universityConfig().dir;
    const marker = join(dir, 'flaky-started');
    // First run: a real MCP server that goes away on SIGUSR2. Every later run (the reconnect) hangs and ignores SIGTERM.
    const script = join(dir, 'flaky.mjs');
    writeFileSync(script, `
      import { existsSync, writeFileSync } from 'node:fs';
      if (existsSync(${JSON.stringify(marker)})) { process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); }
      else {
        writeFileSync(${JSON.stringify(marker)}, '1');
        process.on('SIGUSR2', () => process.exit(1));
        const { McpServer } = await import(${JSON.stringify(join(ROOT, 'node_modules/@modelcontextprotocol/server/dist/index.mjs'))});
        const { StdioServerTransport } = await import(${JSON.stringify(join(ROOT, 'node_modules/@modelcontextprotocol/server/dist/stdio.mjs'))});
        const server = new McpServer({ name: 'flaky', version: '1' });
        server.registerTool('flaky_echo', { description: 'echo' }, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
        await server.connect(new StdioServerTransport());
      }`);
    const configPath = config({ flaky: { command: process.execPath, args: [script] } });
    const g = serve(configPath);
    await waitFor(() => g.stderr().includes('upstreams connected') || undefined, 120_000, 'upstreams connected');
    const first = upstreams(descendants(g.child.pid!)).find((pid) => cmdline(pid).includes('flaky.mjs'));
    expect(g.stderr()).toContain('"ready":9');
    process.kill(first!, 'SIGUSR2');
    await waitFor(() => g.stderr().includes('upstream \\"flaky\\" went away') || undefined, 60_000, 'flaky to go away');
    // The reconnect spawns a ninth child again (the hanging one).
    await waitFor(() => upstreams(descendants(g.child.pid!)).length >= 9 || undefined, 30_000, 'the reconnecting child');
    const { exit, left } = await stop(g, 'SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(left).toEqual([]);
  }, 180_000);

  it('SIGHUP does not stop a serving gateway; host EOF afterwards does, with no child left', async () => {
    const uni = universityConfig({ timeouts: { startup_ms: 120_000, list_wait_ms: 120_000 } });
    const { client, transport } = await connectGateway(uni.configPath);
    const pid = transport.pid!;
    await waitFor(() => upstreams(descendants(pid)).length >= 8 || undefined, 60_000, 'eight upstream children');
    const before = descendants(pid);
    process.kill(pid, 'SIGHUP');
    await new Promise((r) => setTimeout(r, 300));
    await expect(client.ping()).resolves.toEqual({});
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('find_tools');
    await client.close();
    await waitFor(() => alive([pid, ...before]).length === 0 || undefined, 20_000, 'gateway and children to end');
  }, 120_000);
});

/**
 * Does a burst of find_tools hold up everything else? The gateway on the university
 * example over Streamable HTTP (set up as bench/concurrent.ts sets it up), once per
 * `curator.embedder.queryWorkers` value (`BENCH_BURST_WORKERS`, default "0,1": 0 embeds
 * queries on the main thread, as before query workers; 1 is the default on two cores).
 *
 * A probe host, one request at a time, runs rounds of initialize, tools/list and three
 * tools/call (read-only student tools) and DELETE, then a 2026-07-28 host's connect (one
 * `server/discover`, stateless): first with nothing else running
 * (idle, PROBE_ROUNDS rounds after WARMUP_ROUNDS not counted), then while BURST sessions at once each send FINDS
 * find_tools one after another, from a child process (the probe keeps going until the burst ends). Figures:
 * p50 / p99 per method of the probe, idle and during the burst, the ratio of the p99s
 * (target: within 3×), the burst's find_tools p50 / p99 and rate, errors (must be 0).
 * Run: `npm run build && node dist/bench/burst.js`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { dump, load } from 'js-yaml';
import { percentile } from '../src/eval/metrics.js';
import { CALLS } from './concurrent.js';
import { QUERIES, writeConfig } from './http.js';
import { HttpChild, httpClient, schedOf, within } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BURST = 50;
const FINDS = 10;
/** Idle rounds: 100, so the idle p99 of initialize and tools/list is a percentile (of 30 samples it was their maximum). */
const PROBE_ROUNDS = 100;
/**
 * Rounds run before the idle ones and not counted: the gateway's first session compiles its
 * code paths (the first initialize took 119 ms against 6 ms after), which made the idle
 * p99 a cold-start figure and the ratio look better than it is.
 */
const WARMUP_ROUNDS = 5;

type Method = 'initialize' | 'tools/list' | 'tools/call' | 'server/discover';
const METHODS: Method[] = ['initialize', 'tools/list', 'tools/call', 'server/discover'];
/** A 2026-07-28 host: its connect is one `server/discover`, no session. */
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' as const } } };

interface Probe {
  times: Record<Method, number[]>;
  errors: string[];
}

const timed = async <T>(into: number[], work: () => Promise<T>): Promise<T> => {
  const t = performance.now();
  const out = await work();
  into.push(performance.now() - t);
  return out;
};

/** One probe round: a new session, tools/list, three tools/call, DELETE; then a 2026 host's discovery. */
async function probeRound(url: string, token: string, round: number, probe: Probe): Promise<void> {
  await legacyRound(url, token, round, probe);
  try {
    const modern = await timed(probe.times['server/discover'], () => httpClient(url, 60_000, { Authorization: `Bearer ${token}` }, MODERN));
    await modern.close().catch(() => undefined);
  } catch (err) {
    probe.errors.push(`server/discover: ${(err as Error).message}`);
  }
}

async function legacyRound(url: string, token: string, round: number, probe: Probe): Promise<void> {
  let client: Client | undefined;
  try {
    client = await timed(probe.times.initialize, () => httpClient(url, 60_000, { Authorization: `Bearer ${token}` }));
    await timed(probe.times['tools/list'], () => client!.listTools(undefined, { timeout: 60_000 }));
    for (let i = 0; i < 3; i++) {
      const call = CALLS[(round + i) % CALLS.length]!;
      const r = await timed(probe.times['tools/call'], () => client!.callTool(call, { timeout: 60_000 }));
      if (r.isError) probe.errors.push(`${call.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
    }
  } catch (err) {
    probe.errors.push((err as Error).message);
  } finally {
    if (client) {
      await within((client.transport as StreamableHTTPClientTransport).terminateSession(), 10_000, 'DELETE session').catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  }
}

/** BURST sessions, each FINDS find_tools one after another; latencies and errors. */
async function findBurst(url: string, token: string): Promise<{ ms: number[]; errors: string[] }> {
  const ms: number[] = [];
  const errors: string[] = [];
  await Promise.all(Array.from({ length: BURST }, async (_, s) => {
    let client: Client | undefined;
    try {
      client = await httpClient(url, 120_000, { Authorization: `Bearer ${token}` });
      for (let i = 0; i < FINDS; i++) {
        const r = await timed(ms, () => client!.callTool({ name: 'find_tools', arguments: { query: QUERIES[(s + i) % QUERIES.length]! } }, { timeout: 120_000 }));
        if (r.isError) errors.push(`find_tools: ${JSON.stringify(r.content).slice(0, 200)}`);
      }
    } catch (err) {
      errors.push((err as Error).message);
    } finally {
      if (client) {
        await within((client.transport as StreamableHTTPClientTransport).terminateSession(), 10_000, 'DELETE session').catch(() => undefined);
        await client.close().catch(() => undefined);
      }
    }
  }));
  return { ms, errors };
}

/**
 * The burst, from a process of its own (this file with `--burst URL TOKEN`): its 50
 * clients parse 500 find_tools results, and in the probe's process that work would hold up
 * the probe's own event loop — its latencies would then measure the load generator, not
 * the gateway. The two processes still share the machine's cores, as hosts would.
 */
async function burstInChild(url: string, token: string): Promise<{ ms: number[]; errors: string[] }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--burst', url, token], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) return { ms: [], errors: [`burst process exited with code ${code}`] };
  return JSON.parse(out) as { ms: number[]; errors: string[] };
}

const newProbe = (): Probe => ({ times: { initialize: [], 'tools/list': [], 'tools/call': [], 'server/discover': [] }, errors: [] });
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const p = (xs: number[], q: number) => percentile(sorted(xs), q);

/** The rows of one gateway run with `queryWorkers` query workers. */
async function runWith(queryWorkers: number, store: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-burst-'));
  const token = randomBytes(24).toString('hex');
  const config = writeConfig(dir, token, 30);
  const yaml = load(readFileSync(config, 'utf8')) as Record<string, any>;
  yaml.curator.embedder = { provider: 'use', queryWorkers };
  // The shipped vectors (writeConfig leaves the path relative to the checkout).
  yaml.curator.vectors = join(ROOT, 'university.vectors');
  yaml.store = store;
  // Upstream start-up took over the 20 s default on a loaded machine.
  yaml.timeouts = { startup_ms: 120_000 };
  writeFileSync(config, dump(yaml));
  const gw = new HttpChild([join(ROOT, 'dist/src/cli.js'), 'serve', '--http', '0', '--config', config], { TOOL_CURATOR_LOG: 'info' });
  try {
    const url = (await gw.line(/^(?=.*"msg":"serving MCP over Streamable HTTP").*"url":"([^"]+)"/, 120_000, 'university gateway serving over HTTP'))[1]!;
    await gw.line(/"msg":"gateway ready"/, 900_000, 'university gateway index ready');
    const warmup = newProbe();
    for (let r = 0; r < WARMUP_ROUNDS; r++) await probeRound(url, token, r, warmup);
    const idle = newProbe();
    for (let r = 0; r < PROBE_ROUNDS; r++) await probeRound(url, token, r, idle);
    const busy = newProbe();
    const load = loadavg();
    const before = schedOf(gw.pid);
    const started = performance.now();
    let done = false;
    // BENCH_BURST_SAME_PROCESS=1: the burst from the probe's own process, as before 2026-12-06 (to compare).
    const burst = (process.env.BENCH_BURST_SAME_PROCESS === '1' ? findBurst(url, token) : burstInChild(url, token)).finally(() => (done = true));
    for (let r = 0; !done; r++) await probeRound(url, token, r, busy);
    const finds = await burst;
    const seconds = (performance.now() - started) / 1000;
    const cpu = (schedOf(gw.pid).cpu - before.cpu) / finds.ms.length;
    const errors = [...warmup.errors, ...idle.errors, ...busy.errors, ...finds.errors];
    const label = `queryWorkers ${queryWorkers}${queryWorkers === 0 ? ' (main thread)' : ''}`;
    const pp = (xs: number[]) => `${p(xs, 0.5).toFixed(1)} / ${p(xs, 0.99).toFixed(1)}`;
    return [
      ...METHODS.map((m) => {
        const ratio = p(busy.times[m], 0.99) / p(idle.times[m], 0.99);
        return `| ${label} | ${m} | ${pp(idle.times[m])} (${idle.times[m].length}) | ${pp(busy.times[m])} (${busy.times[m].length}) | ${ratio.toFixed(1)}× |`;
      }),
      `| ${label} | find_tools of the burst | — | ${pp(finds.ms)} (${finds.ms.length}, ${(finds.ms.length / seconds).toFixed(0)}/s, gateway CPU ${cpu.toFixed(1)} ms each incl. the probe's share) | errors ${errors.length}${errors.length ? ` (first: ${errors[0]})` : ''}; load ${load.map((l) => l.toFixed(2)).join(' ')} |`,
    ];
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBurst(): Promise<string[]> {
  const counts = (process.env.BENCH_BURST_WORKERS ?? '0,1').split(',').map(Number);
  const rows: string[] = [];
  // One store for every run: the first embeds the catalog, the others read its vectors.
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-burst-store-'));
  try {
    for (const n of counts) rows.push(...(await runWith(n, join(dir, 'store.db'))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    `University example (8 upstreams, 191 tools), student token, hybrid with USE, dense index built. A probe host, one request at a time, runs rounds of initialize, tools/list, 3 × tools/call, DELETE, and a 2026 host's server/discover: ${WARMUP_ROUNDS} rounds not counted, ${PROBE_ROUNDS} rounds idle, then rounds until a burst of ${BURST} sessions × ${FINDS} find_tools (each session one request at a time, from another process) ends. Latency client side, ms; (n) = requests measured.`,
    '',
    '| gateway | request | idle p50 / p99 | during the burst p50 / p99 | p99 burst ÷ idle (target ≤ 3×) |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--burst');
  if (at > 0) process.stdout.write(JSON.stringify(await findBurst(process.argv[at + 1]!, process.argv[at + 2]!)));
  else process.stdout.write(`${(await benchBurst()).join('\n')}\n`);
}

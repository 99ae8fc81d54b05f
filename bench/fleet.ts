/**
 * The fleet: 1 vs 2 `serve --http` replicas of the university example behind HAProxy
 * (test/helpers/fleet.ts, the configuration of docs/FLEET.md), hybrid with USE and its
 * query workers, on one PostgreSQL database when TOOL_CURATOR_TEST_PG is set (a fresh one,
 * dropped after), else one shared SQLite file. SESSIONS hosts at once, each: initialize,
 * then REQUESTS requests one after another cycling find_tools, tools/call (read-only
 * student tools) and tools/list, then DELETE.
 * Figures: errors (must be 0; the three commonest kinds), requests/s over the burst,
 * p50 / p99 per method (client side), CPU per request of the replicas and of HAProxy
 * (utime + stime from /proc/<pid>/stat, every thread), so the figure can be projected to
 * bigger machines. The benchmark's own clients share the machine's cores with the fleet.
 * Skipped, with a message, when haproxy is not installed.
 * Run: `npm run build && node dist/bench/fleet.js`. Settings: `BENCH_FLEET_SESSIONS`
 * (100), `BENCH_FLEET_REQUESTS` (12), `BENCH_FLEET_REPLICAS` ("1,2"); for diagnosis,
 * `BENCH_FLEET_VERBOSE=1` prints each failure as it happens and
 * `BENCH_FLEET_HAPROXY_LOG=<file>` has HAProxy log every request (timers, termination
 * state) to `<file>.<replicas>`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { percentile } from '../src/eval/metrics.js';
import { Fleet, haproxyInstalled, type FleetHost } from '../test/helpers/fleet.js';
import { createDatabase, dropDatabase, PG_URL } from '../test/helpers/pgDatabase.js';
import { CALLS } from './concurrent.js';
import { QUERIES } from './http.js';

type Method = 'initialize' | 'find_tools' | 'tools/call' | 'tools/list';
const METHODS: Method[] = ['initialize', 'find_tools', 'tools/call', 'tools/list'];

/** CPU time (user + system, all threads) of `pid` so far, in ms, from /proc/<pid>/stat. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the command name; clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Run {
  times: Record<Method, number[]>;
  errors: string[];
}

async function oneHost(fleet: Fleet, s: number, requests: number, run: Run): Promise<void> {
  let host: FleetHost | undefined;
  try {
    const t0 = performance.now();
    host = await fleet.host();
    run.times.initialize.push(performance.now() - t0);
    for (let i = 0; i < requests; i++) {
      const method = METHODS[1 + ((s + i) % 3)]!;
      const t = performance.now();
      try {
        if (method === 'tools/list') await host.client.listTools(undefined, { timeout: 120_000 });
        else {
          const req = method === 'find_tools' ? { name: 'find_tools', arguments: { query: QUERIES[(s + i) % QUERIES.length]! } } : CALLS[(s + i) % CALLS.length]!;
          const r = (await host.client.callTool(req, { timeout: 120_000 })) as CallToolResult;
          if (r.isError) run.errors.push(`${req.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
        }
        run.times[method].push(performance.now() - t);
      } catch (err) {
        const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
        run.errors.push(`${method}: ${(err as Error).message}${cause ? ` (${[cause.code, cause.message].filter(Boolean).join(' ')})` : ''}`);
        if (process.env.BENCH_FLEET_VERBOSE) process.stderr.write(`${new Date().toISOString()} session ${s} ${method} failed after ${(performance.now() - t).toFixed(0)} ms: ${run.errors.at(-1)}\n`);
      }
    }
  } catch (err) {
    run.errors.push(`initialize: ${(err as Error).message}`);
  } finally {
    await host?.close();
  }
}

/** One burst against a fleet of `replicas`; one table row. */
async function burst(store: string, replicas: number, sessions: number, requests: number): Promise<string> {
  // The health check interval of docs/FLEET.md, not the tests' quicker one.
  const haproxyLog = process.env.BENCH_FLEET_HAPROXY_LOG && `${process.env.BENCH_FLEET_HAPROXY_LOG}.${replicas}`;
  const fleet = await Fleet.start({ replicas, store, config: { curator: { mode: 'hybrid', embedder: 'use' } }, readyMs: 900_000, checkInterval: '2s', ...(haproxyLog && { haproxyLog }) });
  try {
    // /readyz answers once BM25 does; the burst starts with the dense index built on every replica.
    await Promise.all(fleet.replicas.map((r) => r.process.line(/"msg":"gateway ready"/, 900_000, `${r.name} index ready`)));
    const run: Run = { times: { initialize: [], find_tools: [], 'tools/call': [], 'tools/list': [] }, errors: [] };
    const pids = [...fleet.replicas.map((r) => r.process.pid), fleet.haproxyPid];
    const load = loadavg();
    const before = pids.map(cpuMsOf);
    const started = performance.now();
    await Promise.all(Array.from({ length: sessions }, (_, s) => oneHost(fleet, s, requests, run)));
    const seconds = (performance.now() - started) / 1000;
    const cpu = pids.map((pid, i) => cpuMsOf(pid) - before[i]!);
    const done = METHODS.slice(1).reduce((n, m) => n + run.times[m].length, 0);
    const pp = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length ? `${percentile(s, 0.5).toFixed(0)} / ${percentile(s, 0.99).toFixed(0)}` : '—';
    };
    const replicaCpu = cpu.slice(0, -1).reduce((a, b) => a + b, 0);
    const kinds = new Map<string, number>();
    for (const e of run.errors) {
      const kind = e.replace(/\s+/g, ' ').slice(0, 120);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const errors = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, n]) => `${n}× ${k}`).join('; ');
    return `| ${replicas} | ${run.errors.length} of ${sessions * (requests + 1)}${errors ? ` (${errors})` : ''} | ${(done / seconds).toFixed(0)} (${done} in ${seconds.toFixed(1)} s) | ${METHODS.map((m) => pp(run.times[m])).join(' | ')} | ${(replicaCpu / done).toFixed(1)} (${cpu.slice(0, -1).map((c) => (c / done).toFixed(1)).join(' + ')}) | ${(cpu.at(-1)! / done).toFixed(2)} | ${load.map((l) => l.toFixed(1)).join(' ')} |`;
  } finally {
    await fleet.stop();
  }
}

export async function benchFleet(): Promise<string[]> {
  if (!haproxyInstalled()) return ['Skipped: `haproxy` is not installed (Debian: `apt-get install haproxy`; .ci/run installs it).'];
  const sessions = Number(process.env.BENCH_FLEET_SESSIONS ?? 100);
  const requests = Number(process.env.BENCH_FLEET_REQUESTS ?? 12);
  const counts = (process.env.BENCH_FLEET_REPLICAS ?? '1,2').split(',').map(Number);
  // One store for both runs: the first run's replica embeds the catalog, later replicas read its vectors.
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-fleet-'));
  const database = PG_URL ? await createDatabase() : undefined;
  try {
    const rows = [];
    for (const replicas of counts) rows.push(await burst(database?.url ?? join(dir, 'store.db'), replicas, sessions, requests));
    const store = database ? 'one shared PostgreSQL database (TOOL_CURATOR_TEST_PG)' : 'one shared SQLite store (TOOL_CURATOR_TEST_PG not set)';
    return [
      `University example (8 upstreams per replica, 191 tools), hybrid with USE (1 query worker per replica), ${store}, HAProxy 2.6 routing by Mcp-Session-Id. ${sessions} hosts at once, each initialize + ${requests} requests one after another cycling find_tools, tools/call, tools/list, then DELETE. Latency client side, ms. CPU = utime + stime (/proc/<pid>/stat) during the burst ÷ requests (initialize and DELETE not counted as requests but their CPU is in); upstream processes and PostgreSQL not counted.`,
      '',
      '| replicas | errors | requests/s | initialize p50 / p99 | find_tools p50 / p99 | tools/call p50 / p99 | tools/list p50 / p99 | replica CPU ms per request (each) | HAProxy CPU ms per request | load average before |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...rows,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (database) await dropDatabase(database.name);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchFleet()).join('\n')}\n`);
}

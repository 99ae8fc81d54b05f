/**
 * Concurrent Streamable HTTP sessions against the gateway on the bundled university
 * example (eight mock upstreams, 191 tools; the student persona through a bearer token),
 * set up as bench/http.ts sets it up (writeConfig: a temporary folder, the USE embedder,
 * a copy of the checkout's store if there is one). After the gateway logs `gateway ready`
 * (dense index built), SESSIONS clients at once each run initialize, then REQUESTS
 * requests one after another, alternating find_tools (a student's queries) and tools/call
 * of read-only student tools (identity injected by the gateway).
 * Figures: errors (a thrown request or an `isError` result; must be 0), requests/s over
 * the wall time of the whole burst, initialize and request latency p50 / p99 (client side).
 * A second burst of tools/call only separates the call path from find_tools' retrieval. The
 * gateway's CPU time and run-queue wait (/proc schedstat, all threads) per request say how
 * much was its own work and how much waiting for a core the machine's other jobs held.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { percentile } from '../src/eval/metrics.js';
import { hwmOf, QUERIES, rssOf, writeConfig } from './http.js';
import { HttpChild, httpClient, schedOf, within } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MiB = 2 ** 20;

/** Read-only student tools and their arguments (student_id comes from the token). */
export const CALLS: { name: string; arguments: Record<string, unknown> }[] = [
  { name: 'get_cgpa', arguments: {} },
  { name: 'get_fee_dues', arguments: {} },
  { name: 'get_student_profile', arguments: {} },
  { name: 'get_attendance_summary', arguments: {} },
  { name: 'list_courses', arguments: { department: 'CSE' } },
];

export interface ConcurrentOptions {
  /** Sessions open at once. Default 50. */
  sessions?: number;
  /** Requests per session after initialize, half find_tools, half tools/call. Default 20. */
  requests?: number;
}

interface SessionRun {
  initMs: number;
  findMs: number[];
  callMs: number[];
  errors: string[];
}

/** One session: initialize, then `requests` requests; find_tools on even steps when `mixed`, else tools/call only. */
async function oneSession(url: string, token: string, s: number, requests: number, mixed: boolean): Promise<SessionRun> {
  const run: SessionRun = { initMs: 0, findMs: [], callMs: [], errors: [] };
  let client: Client | undefined;
  try {
    const t0 = performance.now();
    client = await httpClient(url, 60_000, { Authorization: `Bearer ${token}` });
    run.initMs = performance.now() - t0;
    for (let i = 0; i < requests; i++) {
      const find = mixed && i % 2 === 0;
      const req = find ? { name: 'find_tools', arguments: { query: QUERIES[(s + i) % QUERIES.length]! } } : CALLS[(s + i) % CALLS.length]!;
      const t = performance.now();
      try {
        const r = await client.callTool(req, { timeout: 60_000 });
        (find ? run.findMs : run.callMs).push(performance.now() - t);
        if (r.isError) run.errors.push(`${req.name}: ${JSON.stringify(r.content).slice(0, 200)}`);
      } catch (err) {
        run.errors.push(`${req.name}: ${(err as Error).message}`);
      }
    }
  } catch (err) {
    run.errors.push(`initialize: ${(err as Error).message}`);
  } finally {
    if (client) {
      await within((client.transport as StreamableHTTPClientTransport).terminateSession(), 10_000, 'DELETE session').catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  }
  return run;
}

/** `sessions` sessions at once; one table row per figure, in the column of this burst. */
async function burst(gw: HttpChild, url: string, token: string, sessions: number, requests: number, mixed: boolean): Promise<string[]> {
  const load = loadavg();
  const before = schedOf(gw.pid);
  const started = performance.now();
  const runs = await Promise.all(Array.from({ length: sessions }, (_, s) => oneSession(url, token, s, requests, mixed)));
  const seconds = (performance.now() - started) / 1000;
  const after = schedOf(gw.pid);
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const all = sorted(runs.flatMap((r) => [...r.findMs, ...r.callMs]));
  const errors = runs.flatMap((r) => r.errors);
  const pp = (xs: number[]) => (xs.length ? `${percentile(xs, 0.5).toFixed(1)} / ${percentile(xs, 0.99).toFixed(1)}` : '—');
  return [
    `${errors.length} of ${sessions * (requests + 1)}${errors.length ? ` (first: ${errors[0]})` : ''}`,
    `${(all.length / seconds).toFixed(0)} (${all.length} in ${seconds.toFixed(2)} s)`,
    pp(all),
    pp(sorted(runs.flatMap((r) => r.findMs))),
    pp(sorted(runs.flatMap((r) => r.callMs))),
    pp(sorted(runs.map((r) => r.initMs))),
    `${((after.cpu - before.cpu) / all.length).toFixed(2)} / ${((after.wait - before.wait) / all.length).toFixed(2)}`,
    load.map((l) => l.toFixed(2)).join(' '),
  ];
}

export async function benchConcurrent(opts: ConcurrentOptions = {}): Promise<string[]> {
  const sessions = opts.sessions ?? 50;
  const requests = opts.requests ?? 20;
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-concurrent-'));
  const token = randomBytes(24).toString('hex');
  const t0 = performance.now();
  const gw = new HttpChild([join(ROOT, 'dist/src/cli.js'), 'serve', '--http', '0', '--config', writeConfig(dir, token, 30)], { TOOL_CURATOR_LOG: 'info' });
  try {
    const url = (await gw.line(/^(?=.*"msg":"serving MCP over Streamable HTTP").*"url":"([^"]+)"/, 120_000, 'university gateway serving over HTTP'))[1]!;
    // A store without the university vectors means a cold USE build (minutes on a loaded 2-core machine).
    await gw.line(/"msg":"gateway ready"/, 900_000, 'university gateway index ready');
    const readyS = (performance.now() - t0) / 1000;
    const mixed = await burst(gw, url, token, sessions, requests, true);
    const callsOnly = await burst(gw, url, token, sessions, requests, false);
    const figures = [
      'errors (thrown or isError), of all requests incl. initialize',
      'requests/s over the burst (initialize not counted)',
      'request latency p50 / p99 ms',
      'find_tools p50 / p99 ms',
      'tools/call p50 / p99 ms',
      `initialize p50 / p99 ms (all ${sessions} at once)`,
      'gateway process CPU / run-queue wait per request, ms (all its threads; initialize and DELETE included)',
      'load average before the burst',
    ];
    return [
      `University example (8 upstreams, 191 tools), student token, curator hybrid with USE, gateway ready (dense index built) ${readyS.toFixed(0)} s after spawn. ` +
        `${sessions} sessions at once, each initialize + ${requests} requests one after another: first burst find_tools and tools/call alternating, then a burst of tools/call only (read-only student tools, identity injected).`,
      '',
      '| figure | find_tools + tools/call | tools/call only |',
      '|---|---|---|',
      ...figures.map((f, i) => `| ${f} | ${mixed[i]} | ${callsOnly[i]} |`),
      `| gateway VmRSS / VmHWM after both | ${(rssOf(gw.pid) / MiB).toFixed(0)} / ${(hwmOf(gw.pid) / MiB).toFixed(0)} MiB | |`,
    ];
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchConcurrent()).join('\n')}\n`);
}

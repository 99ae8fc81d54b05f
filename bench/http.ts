/**
 * Memory of a long-running gateway under many Streamable HTTP sessions. Starts the real
 * gateway as a child process (`node dist/src/cli.js serve --http 0`) on the bundled
 * university example — gateway.config.yaml copied into a temporary folder with absolute
 * paths, a bearer token for the student persona, the USE embedder, a copy of the store
 * (warm index) and of the fixture database, so nothing in the checkout is written — and
 * drives it with real MCP SDK clients over StreamableHTTPClientTransport. Each session:
 * initialize, tools/list, one find_tools (queries from a small university list), then
 * either DELETE (`terminateSession()`) and `close()` ("closed"), or `close()` alone, the
 * way a host that vanishes leaves it ("abandoned": held until the idle sweep,
 * `http.session_idle_minutes`, here shortened so the sweep happens within the run).
 *
 * Phases: N closed sessions one after another (`BENCH_HTTP_SESSIONS`, default 1000;
 * samples at N/10, N/2 and N), N/2 closed sessions 8 at a time, 100 initialize requests
 * the SDK transport refuses (HTTP 406: a plain JSON client whose Accept header lacks
 * text/event-stream), 300 abandoned sessions, then a wait for the idle sweep.
 *
 * Units: MiB (2^20 bytes) and ms. Columns:
 * - gateway RSS: VmRSS of the gateway process (/proc/PID/status), main thread and its
 *   embedder worker threads, sampled as it is (no forced GC).
 * - heap after GC: the gateway's V8 heap used after a forced full GC (`global.gc()`) —
 *   what the process really retains; RSS lags behind it because V8 keeps freed pages.
 * - live sessions: gateway `Session` objects and SDK `StreamableHTTPServerTransport`
 *   objects alive after a GC. The gateway exposes no session count, so a probe preloaded
 *   into the child (`--import`, written to the temporary folder; nothing in src/ changes)
 *   counts instances with the V8 inspector's Runtime.queryObjects, on request over an
 *   IPC channel; it also counts the listeners on the Gateway's 'catalog' event (each
 *   Session subscribes until its MCP server closes). The probe costs the child a few
 *   MiB, the same in every row.
 * - upstreams RSS: sum of VmRSS over the gateway's descendant processes (the eight
 *   mock servers).
 * - sessions/s and find_tools p50 / p99 (client side, HTTP round trip) over the rows'
 *   own sessions.
 * Run: `npm run build && node dist/bench/http.js` (or `npm run bench`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { dump, load } from 'js-yaml';
import { percentile } from '../src/eval/metrics.js';

/** The repository root, from dist/bench (compiled) or bench/ (sources, as test/helpers/fleet.ts imports it). */
const ROOT = resolve(import.meta.dirname, basename(resolve(import.meta.dirname, '..')) === 'dist' ? '../..' : '..');
const MiB = 2 ** 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a student asks the university testbed. */
export const QUERIES = [
  'what do I owe in fees', 'my attendance in CE701', 'am I allowed to sit my exams', 'download my hall ticket',
  'renew the book I borrowed', 'which placement drives can I apply to', 'show my timetable for tomorrow',
  'raise a complaint about the mess food', 'what is my cgpa', 'apply for leave from the hostel',
];

/** Preloaded into the gateway: answers 'probe' over IPC with heap after GC and live instance counts. */
const PROBE = (sessionUrl: string, gatewayUrl: string, transportUrl: string) => `
import { Session as Inspector } from 'node:inspector/promises';
let inspector;
async function count(proto, fn = 'function () { return this.length; }') {
  globalThis.__benchProbe = proto;
  try {
    const { result } = await inspector.post('Runtime.evaluate', { expression: 'globalThis.__benchProbe', objectGroup: 'bench' });
    const { objects } = await inspector.post('Runtime.queryObjects', { prototypeObjectId: result.objectId, objectGroup: 'bench' });
    const { result: n } = await inspector.post('Runtime.callFunctionOn', { objectId: objects.objectId, functionDeclaration: fn, returnByValue: true });
    return n.value;
  } finally {
    delete globalThis.__benchProbe;
    await inspector.post('Runtime.releaseObjectGroup', { objectGroup: 'bench' });
  }
}
process.on('message', async (m) => {
  if (m !== 'probe') return;
  try {
    if (!inspector) { inspector = new Inspector(); inspector.connect(); }
    const [{ Session }, { Gateway }, { NodeStreamableHTTPServerTransport }] = await Promise.all([import(${JSON.stringify(sessionUrl)}), import(${JSON.stringify(gatewayUrl)}), import(${JSON.stringify(transportUrl)})]);
    const sessions = await count(Session.prototype);
    const transports = await count(NodeStreamableHTTPServerTransport.prototype);
    // Every Session subscribes to the gateway's 'catalog' event until its server closes.
    const listeners = await count(Gateway.prototype, "function () { return this.reduce((n, g) => n + g.listenerCount('catalog'), 0); }");
    globalThis.gc();
    const { heapUsed } = process.memoryUsage();
    process.send({ heapUsed, sessions, transports, listeners });
  } catch (err) {
    process.send({ error: String(err && err.stack || err) });
  }
});
`;

interface Probe {
  heapUsed: number;
  sessions: number;
  transports: number;
  /** Listeners on the Gateway's 'catalog' event (one per unclosed Session). */
  listeners: number;
}

/** The bundled config, rewritten into `dir` with absolute paths, a token and a short idle sweep. */
export function writeConfig(dir: string, token: string, idleMinutes: number): string {
  const base = load(readFileSync(join(ROOT, 'gateway.config.yaml'), 'utf8')) as Record<string, any>;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(ROOT, p));
  const universityDb = join(dir, 'university.db');
  const fixture = join(ROOT, '.tool-curator', 'university.db');
  if (existsSync(fixture)) copyFileSync(fixture, universityDb); // else the mock servers seed it
  for (const u of Object.values(base.upstreams as Record<string, any>)) {
    if (!u.command) continue;
    u.args = (u.args ?? []).map((a: string) => (!isAbsolute(a) && existsSync(resolve(ROOT, a)) ? resolve(ROOT, a) : a));
    u.cwd = abs(u.cwd ?? '.');
    u.env = { ...u.env, UNIVERSITY_DB: universityDb };
  }
  // A copy of the checkout's store (warm index); the run's audit rows go to the copy.
  const store = abs(base.store ?? '.tool-curator/store.db');
  for (const suffix of ['', '-wal']) if (existsSync(store + suffix)) copyFileSync(store + suffix, join(dir, 'store.db' + suffix));
  base.store = join(dir, 'store.db');
  for (const k of Object.keys(base.policy ?? {})) base.policy[k] = abs(base.policy[k]);
  // `auto` falls back to USE here (no Hugging Face hub) after a 5 s try; use it directly, as bench/gateway.ts does.
  base.curator = { ...base.curator, embedder: 'use' };
  base.http = { host: '127.0.0.1', tokens: [{ token, persona: 'student', user_id: 'S0001' }], session_idle_minutes: idleMinutes };
  const path = join(dir, 'gateway.config.yaml');
  writeFileSync(path, dump(base));
  return path;
}

export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0; // exited between listing and reading
  }
}

export function hwmOf(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Every descendant process of `pid` (children of each of its threads, recursively). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const c of text.split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

class GatewayChild {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  idleCloses = 0;
  errors: string[] = [];
  private tail: string[] = [];
  private pending?: (p: Probe | { error: string }) => void;

  constructor(config: string, probe: string) {
    this.child = spawn(process.execPath, ['--expose-gc', '--import', pathToFileURL(probe).href, join(ROOT, 'dist/src/cli.js'), 'serve', '--http', '0', '--config', config], {
      cwd: ROOT,
      env: { ...process.env, TOOL_CURATOR_LOG: 'info' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.on('message', (m) => this.pending?.(m as Probe));
    let buffered = '';
    this.url = new Promise((resolveUrl, reject) => {
      this.child.once('exit', (code) => reject(new Error(`gateway exited (${code}) before serving:\n${this.tail.join('\n')}`)));
      // Logs (pino JSON on stderr) are read here, never printed: the table stays clean.
      this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          this.tail = [...this.tail.slice(-20), line];
          let rec: { msg?: string; level?: number; url?: string };
          try {
            rec = JSON.parse(line);
          } catch {
            continue;
          }
          if (rec.msg === 'serving MCP over Streamable HTTP' && rec.url) resolveUrl(rec.url);
          if (rec.msg === 'closing idle HTTP session') this.idleCloses++;
          if ((rec.level ?? 0) >= 50) this.errors.push(rec.msg ?? line);
        }
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  async probe(): Promise<Probe> {
    const answer = await new Promise<Probe | { error: string }>((r, reject) => {
      const timer = setTimeout(() => reject(new Error('probe timed out')), 30_000);
      this.pending = (m) => {
        clearTimeout(timer);
        r(m);
      };
      this.child.send('probe');
    });
    if ('error' in answer) throw new Error(`probe failed: ${answer.error}`);
    return answer;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** One host session; returns the find_tools round trip in ms. */
async function oneSession(url: URL, token: string, query: string, terminate: boolean): Promise<number> {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'bench-http', version: '1' });
  await client.connect(transport);
  await client.listTools();
  const t = performance.now();
  const r = await client.callTool({ name: 'find_tools', arguments: { query } });
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`find_tools failed: ${JSON.stringify(r.content)}`);
  if (terminate) await transport.terminateSession();
  await client.close();
  return ms;
}

/** `count` sessions, `parallel` at a time; find_tools round trips in ms. */
async function runSessions(url: URL, token: string, count: number, parallel: number, terminate: boolean, offset: number): Promise<{ ms: number[]; seconds: number }> {
  const ms: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        ms.push(await oneSession(url, token, QUERIES[(offset + i) % QUERIES.length]!, terminate));
      }
    }),
  );
  return { ms, seconds: (performance.now() - t0) / 1000 };
}

export interface HttpBenchOptions {
  /** Closed sessions one after another (default `BENCH_HTTP_SESSIONS`, else 1000). */
  sessions?: number;
  /** Sessions run 8 at a time (default sessions / 2). */
  concurrentSessions?: number;
  concurrency?: number;
  abandoned?: number;
  /** Initialize requests the transport refuses with 406 (default 100). */
  rejected?: number;
  /** http.session_idle_minutes for the run (default 0.25: sweep every 15 s, a session is closed 15–30 s after its last request). */
  idleMinutes?: number;
}

export async function benchHttp(opts: HttpBenchOptions = {}): Promise<string[]> {
  const n = opts.sessions ?? Number(process.env.BENCH_HTTP_SESSIONS ?? 1000);
  if (!Number.isInteger(n) || n < 10) throw new Error(`BENCH_HTTP_SESSIONS must be an integer ≥ 10, got ${process.env.BENCH_HTTP_SESSIONS}`);
  const concurrentN = opts.concurrentSessions ?? Math.round(n / 2);
  const parallel = opts.concurrency ?? 8;
  const abandonedN = opts.abandoned ?? 300;
  const rejectedN = opts.rejected ?? 100;
  const idleMinutes = opts.idleMinutes ?? 0.25;

  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-http-'));
  const token = randomBytes(24).toString('hex');
  const config = writeConfig(dir, token, idleMinutes);
  const probeFile = join(dir, 'probe.mjs');
  const dist = (f: string) => pathToFileURL(join(ROOT, 'dist/src/gateway', f)).href;
  writeFileSync(probeFile, PROBE(dist('session.js'), dist('gateway.js'), import.meta.resolve('@modelcontextprotocol/node')));

  const t0 = performance.now();
  const gw = new GatewayChild(config, probeFile);
  const lines = [
    '| point | sessions so far | gateway RSS MiB | heap after GC MiB | live Session / transport objects / catalog listeners | upstreams RSS MiB | sessions/s | find_tools p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const rows: Record<string, { rss: number; heap: number; total: number }> = {};
  let total = 0;
  const sample = async (label: string, run?: { ms: number[]; seconds: number }) => {
    const rss = rssOf(gw.pid);
    const upstreams = descendants(gw.pid).reduce((s, p) => s + rssOf(p), 0);
    const p = await gw.probe();
    rows[label] = { rss, heap: p.heapUsed, total };
    const sorted = run ? [...run.ms].sort((a, b) => a - b) : [];
    const speed = run ? [(run.ms.length / run.seconds).toFixed(1), percentile(sorted, 0.5).toFixed(1), percentile(sorted, 0.99).toFixed(1)] : ['', '', ''];
    lines.push(`| ${label} | ${total} | ${(rss / MiB).toFixed(1)} | ${(p.heapUsed / MiB).toFixed(1)} | ${p.sessions} / ${p.transports} / ${p.listeners} | ${(upstreams / MiB).toFixed(0)} | ${speed.join(' | ')} |`);
    return p;
  };

  try {
    const url = new URL(await gw.url);
    // Ready = a first session's find_tools answered (catalog listed, index loaded); it is not counted.
    await oneSession(url, token, QUERIES[0]!, true);
    const readyMs = performance.now() - t0;
    await sample('ready (after 1 warm-up session)');

    const marks = [...new Set([Math.round(n / 10), Math.round(n / 2), n])];
    let done = 0;
    for (const mark of marks) {
      const run = await runSessions(url, token, mark - done, 1, true, done);
      done = mark;
      total += run.ms.length;
      await sample(`${mark} closed, sequential`, run);
    }
    const concurrent = await runSessions(url, token, concurrentN, parallel, true, 0);
    total += concurrent.ms.length;
    await sample(`+${concurrentN} closed, ${parallel} concurrent`, concurrent);

    // Initialize requests the SDK transport refuses (406: Accept lacks text/event-stream) — a plain
    // JSON client. The gateway builds a Session before the transport answers; is it released?
    for (let i = 0; i < rejectedN; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'plain-json', version: '1' } } }),
      });
      await res.arrayBuffer();
      if (res.status !== 406) throw new Error(`rejected initialize: expected HTTP 406, got ${res.status}`);
    }
    const rejected = await sample(`+${rejectedN} initialize refused by the transport (HTTP 406)`);

    const abandoned = await runSessions(url, token, abandonedN, 1, false, 0);
    const lastRequest = performance.now();
    total += abandoned.ms.length;
    const held = await sample(`+${abandonedN} abandoned (no DELETE)`, abandoned);

    // Wait for the idle sweep: a session idle > idleMinutes is closed on the next tick (every min(idle, 1 min)).
    const idleMs = idleMinutes * 60_000;
    const deadline = lastRequest + idleMs + Math.min(idleMs, 60_000) + 15_000;
    let swept = held;
    while (performance.now() < deadline) {
      await sleep(1000);
      swept = await gw.probe();
      if (swept.sessions <= rejected.sessions && swept.transports <= rejected.transports) break;
    }
    const sweptAfter = (performance.now() - lastRequest) / 1000;
    await sample(`after the idle sweep (${sweptAfter.toFixed(0)} s after the last request)`);

    const first = rows[`${marks[0]} closed, sequential`]!;
    const last = rows[`${n} closed, sequential`]!;
    const mid = rows[`${marks[1] ?? n} closed, sequential`]!;
    const conc = rows[`+${concurrentN} closed, ${parallel} concurrent`]!;
    const before = rows[`+${rejectedN} initialize refused by the transport (HTTP 406)`]!;
    const ab = rows[`+${abandonedN} abandoned (no DELETE)`]!;
    const per1000 = (a: number, b: number, sessions: number) => (((b - a) / MiB) * 1000) / sessions;
    lines.push(
      '',
      `| figure | value |`,
      `|---|---|`,
      `| spawn to first find_tools answered (warm store) | ${readyMs.toFixed(0)} ms |`,
      `| growth over closed sessions ${marks[0]}→${n}: heap after GC / RSS | ${per1000(first.heap, last.heap, last.total - first.total).toFixed(2)} / ${per1000(first.rss, last.rss, last.total - first.total).toFixed(2)} MiB per 1000 sessions |`,
      `| growth over closed sessions ${mid.total}→${n} (steady state) | ${per1000(mid.heap, last.heap, last.total - mid.total).toFixed(2)} / ${per1000(mid.rss, last.rss, last.total - mid.total).toFixed(2)} MiB per 1000 sessions |`,
      `| heap change per refused initialize (should be ~0: nothing kept) | ${(((before.heap - conc.heap) / rejectedN) / 1024).toFixed(1)} KiB heap after GC (${rejected.sessions} Session objects live with no session open) |`,
      `| held per abandoned session until the sweep: heap after GC | ${(((ab.heap - before.heap) / abandonedN) / 1024).toFixed(1)} KiB (${held.sessions - rejected.sessions} more Session objects live) |`,
      `| idle sweep | session_idle_minutes ${idleMinutes} (default 30): ${gw.idleCloses} sessions closed by the sweep, ${swept.sessions} Session objects left (${rejected.sessions} from refused initializes) |`,
      `| gateway peak RSS (VmHWM) | ${(hwmOf(gw.pid) / MiB).toFixed(1)} MiB |`,
      `| gateway error log lines | ${gw.errors.length}${gw.errors.length ? ` (first: ${gw.errors[0]})` : ''} |`,
    );
    return lines;
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchHttp()).join('\n')}\n`);
}

/**
 * Memory of the stdio gateway around the fuzz (test/fuzz/generate.ts): the built gateway
 * (`node dist/src/cli.js serve`, V8's default heap limits) over the eight university
 * servers — the bundled example with BM25 and no embedder, as the fuzz test runs it — fed
 * 10,000 seeded messages, 32 in flight. A probe preloaded into the gateway with
 * `--expose-gc` reports on SIGUSR2 without collecting, and on SIGWINCH after a full GC.
 *
 * Rows: before the fuzz (after initialize and one find_tools), the live heap then (full
 * GC), right after the fuzz, every 5 s of idling for up to 60 s (nothing is sent; the
 * gateway's idle collector, src/cli/idleCollect.ts, may run), then after a forced GC.
 * Columns: RSS (VmRSS), the V8 heap's size (total_heap_size), its used part and its young
 * generation (new space). MiB.
 *
 * Run: `npm run build && node dist/bench/fuzzMemory.js`. BENCH_FUZZ_COUNT sets the
 * messages (default 10,000); BENCH_FUZZ_COMPARE=<another build's dist/src/cli.js> runs
 * that build the same way after this one's (e.g. main's, for before/after figures).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dump, load } from 'js-yaml';
import { generator, windowed } from '../test/fuzz/generate.js';
import { writeConfig } from './http.js';
import { within } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli.js');
const COUNT = Number(process.env.BENCH_FUZZ_COUNT ?? 10_000);
const SEED = 20261201;
const WINDOW = 32;
const MiB = 2 ** 20;

const PROBE = `import v8 from 'node:v8';
let n = 0;
const report = (gc) => {
  if (gc) { globalThis.gc(); globalThis.gc(); }
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  const h = v8.getHeapStatistics();
  process.stderr.write('bench-memory ' + ++n + ' ' + JSON.stringify({ heap: h.total_heap_size, used: h.used_heap_size, young }) + '\\n');
};
process.on('SIGUSR2', () => report(false));
process.on('SIGWINCH', () => report(true));
`;

interface Reading {
  rss: number;
  heap: number;
  used: number;
  young: number;
}

/** A stdio gateway fed raw lines; answers matched to their ids. */
class RawGateway {
  readonly child: ChildProcess;
  private stderr = '';
  private asked = 0;
  private partial = '';
  private readonly waiting = new Map<string, () => void>();

  constructor(cli: string, config: string, probe: string) {
    this.child = spawn(process.execPath, ['--expose-gc', '--import', pathToFileURL(probe).href, cli, 'serve', '--config', config], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TOOL_CURATOR_LOG: 'warn' },
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr = (this.stderr + d).slice(-100_000)));
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      const lines = (this.partial + d).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) {
        const id = (JSON.parse(line) as { id?: unknown; method?: unknown }).id;
        if (id !== undefined) this.waiting.get(JSON.stringify(id))?.();
      }
    });
  }

  /** Sends `payload` (raw text as is); resolves when the answer with `id` arrives, or at once without one. */
  async send(payload: unknown, raw: boolean, id?: string | number): Promise<void> {
    const answered = id === undefined ? undefined : new Promise<void>((r) => this.waiting.set(JSON.stringify(id), r));
    await new Promise<void>((r, j) => this.child.stdin!.write(`${raw ? (payload as string) : JSON.stringify(payload)}\n`, (e) => (e ? j(e) : r())));
    if (answered) await within(answered, 60_000, `the answer to ${JSON.stringify(id)}`).finally(() => this.waiting.delete(JSON.stringify(id)));
  }

  /** RSS and the probe's heap figures; `gc` first runs a full collection. */
  async read(gc: boolean): Promise<Reading> {
    const n = ++this.asked;
    this.child.kill(gc ? 'SIGWINCH' : 'SIGUSR2');
    const re = new RegExp(`bench-memory ${n} (\\{.*\\})\n`);
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      const m = re.exec(this.stderr);
      if (!m) continue;
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.child.pid}/status`, 'utf8'))![1]) * 1024;
      return { rss, ...(JSON.parse(m[1]!) as Omit<Reading, 'rss'>) };
    }
    throw new Error(`no memory reading from the gateway; stderr:\n${this.stderr.slice(-2000)}`);
  }
}

/** The fuzz test's configuration: the bundled example's upstreams, personas and synonyms, BM25, no embedder. */
function fuzzConfig(dir: string): string {
  const path = writeConfig(dir, 'unused-token', 30);
  const config = load(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete config.http;
  config.curator = { mode: 'bm25', top_k: 8, embedder: 'none' };
  config.timeouts = { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 30_000 };
  writeFileSync(path, dump(config));
  return path;
}

async function run(cli: string, label: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-fuzz-'));
  const probe = join(dir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  const g = new RawGateway(cli, fuzzConfig(dir), probe);
  const row = (what: string, r: Reading, base?: Reading) =>
    `| ${label} | ${what} | ${(r.rss / MiB).toFixed(1)}${base ? ` (${r.rss >= base.rss ? '+' : ''}${Math.round((r.rss / base.rss - 1) * 100)} %)` : ''} | ${(r.heap / MiB).toFixed(1)} | ${(r.used / MiB).toFixed(1)} | ${(r.young / MiB).toFixed(1)} |`;
  try {
    await g.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }, false, 'init');
    await g.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, false);
    await g.send({ jsonrpc: '2.0', id: 'warm', method: 'tools/call', params: { name: 'find_tools', arguments: { query: 'fee dues' } } }, false, 'warm');
    const before = await g.read(false);
    const rows = [row('before the fuzz', before)];
    rows.push(row('before, after a forced GC (live)', await g.read(true), before));
    const next = generator(SEED, 'stdio');
    await windowed(COUNT, WINDOW, async () => {
      const m = next();
      await g.send(m.payload, m.raw, m.expectId);
    });
    rows.push(row(`right after ${COUNT} messages`, await g.read(false), before));
    for (let s = 5; s <= 60; s += 5) {
      await new Promise((r) => setTimeout(r, 5000));
      const idle = await g.read(false);
      if (s % 15 === 0) rows.push(row(`idle ${s} s`, idle, before));
    }
    rows.push(row('then after a forced GC (live)', await g.read(true), before));
    return rows;
  } finally {
    g.child.kill('SIGTERM');
  }
}

export async function benchFuzzMemory(): Promise<string[]> {
  const builds: [string, string][] = [[CLI, 'this build']];
  if (process.env.BENCH_FUZZ_COMPARE) builds.push([resolve(process.env.BENCH_FUZZ_COMPARE), 'compared build']);
  const lines = ['| build | when | RSS MiB (vs before) | V8 heap MiB | used MiB | young generation MiB |', '|---|---|---|---|---|---|'];
  for (const [cli, label] of builds) lines.push(...(await run(cli, label)));
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchFuzzMemory()).join('\n')}\n`);
}

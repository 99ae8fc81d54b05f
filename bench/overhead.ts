/**
 * The gateway's per-call overhead, its start-up on a huge upstream catalog, and many
 * concurrent HTTP sessions (issue "scale & cold start"). The upstream is
 * bench/fixtures/manyTools.ts (N generated tools, an echo for every call), spawned over
 * stdio; every client is an MCP SDK Client; the gateway is the built CLI
 * (`node dist/src/cli.js serve --config …`), one process per configuration, each with an
 * empty store in a fresh temporary folder.
 *
 * 1. tools/call latency, N = 10 tools, the same call (same tool, same arguments) over four
 *    paths: the upstream directly over stdio (a 2025-11-25 and a 2026-07-28 client: the
 *    fixture serves both eras); through the gateway over stdio; through the
 *    gateway over Streamable HTTP (`serve --http 0`, `http.anonymous` on loopback); through
 *    mcp-proxy (npm `mcp-proxy`, its default flags) exposing the same stdio upstream over
 *    Streamable HTTP. WARMUP calls per path, then CALLS per path taken in interleaved
 *    blocks of BLOCK (path A 25, path B 25, …) so a change of machine load spreads over
 *    every path. Calls are sequential; the gateway is called by the tool's exposed name
 *    (any allowed tool can be, in either exposure mode). Overhead = a path's percentile
 *    minus the direct path's of the same era (a 2026 host's against the 2026 client's
 *    direct path: what the gateway adds, not what the newer revision costs the upstream
 *    itself), from the same run. Then WARM more calls per path, untimed, and CALLS again: the
 *    first window is a gateway's early calls (V8 still optimizing its call path), the
 *    second a gateway that has served thousands (BENCH_OVERHEAD_WARM=0 skips it).
 * 2. N = 100,000, empty store, curator `bm25` (no embedder): from spawning the gateway,
 *    when initialize, tools/list and the first find_tools answer; the gateway's own
 *    start-up timings; a misspelled tool name's call (name guard); the gateway's VmRSS /
 *    VmHWM; then the call overhead against the upstream directly. The upstream's own
 *    tools/list (all pages of 1,000) is timed by a client connected to it directly.
 *    Then one start in `hybrid` with the default embedder (`auto`): tools/list and the
 *    first find_tools, whose `retrievers` show it answered from BM25 while the dense
 *    index was still being built; that gateway is stopped right after.
 * 3. Concurrent Streamable HTTP sessions on the university example (bench/concurrent.ts).
 *
 * Units: ms unless stated; MiB = 2^20 bytes. Load averages (os.loadavg, as `uptime`)
 * are printed with each part: other jobs on the machine move every figure. So the
 * overhead tables also give, per call, the CPU time of the process the client talks to
 * (the upstream, the gateway or mcp-proxy; every thread, /proc schedstat) and how long it
 * sat runnable waiting for a core: its own cost, apart from the machine's load.
 * Run: `npm run build && node dist/bench/overhead.js` (or `npm run bench`);
 * BENCH_OVERHEAD_CALLS sets CALLS (default 300), BENCH_OVERHEAD_BIG the large N.
 * `node dist/bench/overhead.js calls` runs part 1 alone. BENCH_OVERHEAD_COMPARE=<the
 * `dist/src/cli.js` of another build> adds that build's gateway over stdio to part 1 as
 * one more path, its calls interleaved with this build's: an A/B on the same load.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult, Client, ClientOptions } from '@modelcontextprotocol/client';
import { dump } from 'js-yaml';
import { BLOCK, CALLS, callOf, misspelledCall, ms, overheadTable, text, timeCalls, WARM, WARMUP, type Path } from './callPaths.js';
import { benchConcurrent } from './concurrent.js';
import { generatedTool } from './fixtures/manyTools.js';
import { hwmOf, rssOf } from './http.js';
import { freePort, HttpChild, httpClient, StdioPeer } from './processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli.js');
const FIXTURE = join(ROOT, 'dist/bench/fixtures/manyTools.js');
const MCP_PROXY = join(ROOT, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs');
const BIG = Number(process.env.BENCH_OVERHEAD_BIG ?? 100_000);
/** Another build's CLI, compared with this one in part 1 (see the module comment). */
const COMPARE = process.env.BENCH_OVERHEAD_COMPARE;
/** Longest wait for one start-up step (a 100,000-tool catalog on a loaded 2-core machine). */
const START_MS = 900_000;
const READY = /"msg":"gateway ready"/;
const MiB = 2 ** 20;

/** A 2026-07-28 host: pinned, so the bench measures that era and never falls back. */
const MODERN: ClientOptions = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;
const memory = (pid: number) => `${(rssOf(pid) / MiB).toFixed(0)} / ${(hwmOf(pid) / MiB).toFixed(0)} MiB`;

/** A gateway config over the fixture with `n` tools, in `dir`; the same persona (everything allowed) on stdio and HTTP. */
function gatewayConfig(dir: string, n: number, curator: Record<string, unknown>): string {
  writeFileSync(join(dir, 'personas.yaml'), dump({ bench: { allow: ['*'], confirm: 'none' } }));
  const config = {
    // A credential, as real upstreams are given: the gateway's secret redaction has one to look for.
    upstreams: { many: { command: process.execPath, args: [FIXTURE, String(n)], env: { BENCH_API_TOKEN: 'bench-token-4f1c9a7e2d5b8036' } } },
    curator: { top_k: 10, ...curator },
    store: join(dir, 'store.db'),
    policy: { personas: join(dir, 'personas.yaml') },
    session: { persona: 'bench' },
    http: { host: '127.0.0.1', anonymous: { persona: 'bench' } },
    timeouts: { startup_ms: START_MS },
  };
  writeFileSync(join(dir, 'gateway.config.yaml'), dump(config));
  return join(dir, 'gateway.config.yaml');
}

/** A gateway over stdio, spawned and initialized (its index may still be building: wait for READY on its stderr). */
async function stdioGateway(config: string, cli = CLI, options?: ClientOptions): Promise<StdioPeer> {
  const gw = new StdioPeer([cli, 'serve', '--config', config], { TOOL_CURATOR_LOG: 'info' }, options);
  await gw.connect(120_000);
  return gw;
}

/** Part 1: four paths at N tools. */
async function smallCatalog(n: number, dirs: string[]): Promise<string[]> {
  const c = callOf(6);
  const stops: (() => Promise<void>)[] = [];
  try {
    const direct = new StdioPeer([FIXTURE, String(n)]);
    stops.push(() => direct.stop());
    await direct.connect(120_000);
    // The upstream serves both eras: a 2026-07-28 host's overhead is taken against its own direct path.
    const directModern = new StdioPeer([FIXTURE, String(n)], {}, MODERN);
    stops.push(() => directModern.stop());
    await directModern.connect(120_000);

    const dir1 = mkdtempSync(join(tmpdir(), 'tc-bench-overhead-'));
    dirs.push(dir1);
    const gw = await stdioGateway(gatewayConfig(dir1, n, { mode: 'bm25', embedder: 'none' }));
    stops.push(() => gw.stop());
    await gw.stderrLine(READY, START_MS, 'stdio gateway ready');

    // The same gateway config served to a 2026-07-28 host (pinned: server/discover, no initialize).
    const dirM = mkdtempSync(join(tmpdir(), 'tc-bench-overhead-'));
    dirs.push(dirM);
    const gwModern = await stdioGateway(gatewayConfig(dirM, n, { mode: 'bm25', embedder: 'none' }), CLI, MODERN);
    stops.push(() => gwModern.stop());
    await gwModern.stderrLine(READY, START_MS, 'stdio gateway (2026 host) ready');

    const compared: Path[] = [];
    if (COMPARE) {
      const dirB = mkdtempSync(join(tmpdir(), 'tc-bench-overhead-'));
      dirs.push(dirB);
      const other = await stdioGateway(gatewayConfig(dirB, n, { mode: 'bm25', embedder: 'none' }), COMPARE);
      stops.push(() => other.stop());
      await other.stderrLine(READY, START_MS, 'compared gateway ready');
      compared.push({ label: `through the gateway of ${COMPARE} (stdio, bm25)`, client: other.client, pid: other.pid });
    }

    const dir2 = mkdtempSync(join(tmpdir(), 'tc-bench-overhead-'));
    dirs.push(dir2);
    const http = new HttpChild([CLI, 'serve', '--http', '0', '--config', gatewayConfig(dir2, n, { mode: 'bm25', embedder: 'none' })], { TOOL_CURATOR_LOG: 'info' });
    stops.push(() => http.stop());
    const url = (await http.line(/^(?=.*"msg":"serving MCP over Streamable HTTP").*"url":"([^"]+)"/, 120_000, 'HTTP gateway serving'))[1]!;
    await http.line(READY, START_MS, 'HTTP gateway ready');
    const viaHttp = await httpClient(url, 60_000);
    stops.push(() => viaHttp.close());
    const viaHttpModern = await httpClient(url, 60_000, {}, MODERN);
    stops.push(() => viaHttpModern.close());

    const port = await freePort();
    const proxy = new HttpChild([MCP_PROXY, '--port', String(port), '--host', '127.0.0.1', '--server', 'stream', '--', process.execPath, FIXTURE, String(n)]);
    stops.push(() => proxy.stop());
    await proxy.line(/starting server on port/, 60_000, 'mcp-proxy start');
    // It prints the line as it starts listening: retry the first connection briefly.
    let viaProxy: Client | undefined;
    for (let attempt = 0; !viaProxy; attempt++) {
      viaProxy = await httpClient(`http://127.0.0.1:${port}/mcp`, 30_000).catch((err: Error) => {
        if (attempt >= 20) throw err;
        return new Promise<undefined>((r) => setTimeout(() => r(undefined), 250));
      });
    }
    stops.push(() => viaProxy!.close());

    const direct2025: Path = { label: 'upstream directly (stdio)', client: direct.client, pid: direct.pid };
    const modern: Path = { label: 'upstream directly (stdio), 2026-07-28 client', client: directModern.client, pid: directModern.pid };
    const before = load();
    const times = await timeCalls(
      [
        direct2025,
        modern,
        { label: 'through the gateway (stdio, bm25)', client: gw.client, pid: gw.pid },
        { label: 'through the gateway (stdio, bm25), 2026-07-28 host', client: gwModern.client, pid: gwModern.pid, baseline: modern },
        ...compared,
        { label: 'through the gateway (Streamable HTTP, bm25)', client: viaHttp, pid: http.pid },
        { label: 'through the gateway (Streamable HTTP, bm25), 2026-07-28 host', client: viaHttpModern, pid: http.pid, baseline: modern },
        { label: 'through mcp-proxy 6.7.19 (Streamable HTTP, default flags)', client: viaProxy, pid: proxy.pid },
      ],
      c,
    );
    return [
      `N = ${n} tools; every path calls \`${c.name}\` ${JSON.stringify(c.arguments)}; ${before} before, ${load()} after.`,
      '',
      `First window: ${WARMUP} warm-up calls, then ${CALLS} in blocks of ${BLOCK} interleaved across paths (each process's calls ${WARMUP + 1}–${WARMUP + CALLS}: V8 is still optimizing the call path).`,
      '',
      ...overheadTable(times.cold),
      '',
      ...(times.warm
        ? [`Warm window: ${WARM} more calls per path (interleaved, untimed), then ${CALLS} again (each process's calls ${WARMUP + CALLS + WARM + 1}–${WARMUP + 2 * CALLS + WARM}: a gateway that has served thousands of calls).`, '', ...overheadTable(times.warm), '']
        : []),
      `Name guard at N = ${n} (gateway stdio, bm25): ${await misspelledCall(gw.client, c)}.`,
    ];
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

/** The upstream alone: spawn + initialize, then every page of tools/list. */
async function upstreamList(peer: StdioPeer): Promise<{ initMs: number; listMs: number; tools: number; pages: number }> {
  const t0 = performance.now();
  await peer.connect(120_000);
  const initMs = performance.now() - t0;
  const t1 = performance.now();
  let tools = 0;
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await peer.client.listTools(cursor ? { cursor } : undefined, { timeout: START_MS });
    tools += page.tools.length;
    pages++;
    cursor = page.nextCursor;
  } while (cursor);
  return { initMs, listMs: performance.now() - t1, tools, pages };
}

/** Spawn → initialize → tools/list → first find_tools, all timed from the spawn. */
async function coldStart(config: string, query: string) {
  const t0 = performance.now();
  const gw = await stdioGateway(config);
  const initAt = performance.now() - t0;
  const listed = await gw.client.listTools(undefined, { timeout: START_MS });
  const listAt = performance.now() - t0;
  const found = (await gw.client.callTool({ name: 'find_tools', arguments: { query } }, { timeout: START_MS })) as CallToolResult;
  const findAt = performance.now() - t0;
  const payload = found.structuredContent as { tools?: { name: string }[]; retrievers?: string[] } | undefined;
  if (found.isError || !payload?.tools) throw new Error(`find_tools failed: ${text(found).slice(0, 300)}`);
  return { gw, initAt, listAt, findAt, listedTools: listed.tools.length, retrievers: payload.retrievers ?? [], top: payload.tools[0]?.name ?? '(none)' };
}

/** Part 2: N = BIG, empty store; bm25 start, overhead, then a hybrid start stopped after its first find_tools. */
async function bigCatalog(dirs: string[]): Promise<string[]> {
  const target = 54_321 % BIG;
  const c = callOf(target);
  // The target's own description, so the top hit says whether BM25 ranks over the whole catalog.
  const query = generatedTool(target).description!.split('.')[0]!;
  const lines: string[] = [`N = ${BIG.toLocaleString('en')} tools (pages of 1,000), every gateway on an empty store; ${load()} at the start.`, ''];
  const direct = new StdioPeer([FIXTURE, String(BIG)]);
  let gw: StdioPeer | undefined;
  try {
    const up = await upstreamList(direct);
    const dir = mkdtempSync(join(tmpdir(), 'tc-bench-overhead-'));
    dirs.push(dir);
    const bm25 = await coldStart(gatewayConfig(dir, BIG, { mode: 'bm25', embedder: 'none' }), query);
    gw = bm25.gw;
    const rssAfterFind = memory(gw.pid);
    const ready = JSON.parse((await gw.stderrLine(READY, START_MS, 'gateway ready')).input) as { upstreamsMs: number; indexedMs: number };
    const guard = await misspelledCall(gw.client, c);
    const before = load();
    const times = await timeCalls(
      [
        { label: 'upstream directly (stdio)', client: direct.client, pid: direct.pid },
        { label: 'through the gateway (stdio, bm25)', client: gw.client, pid: gw.pid },
      ],
      c,
    );
    lines.push(
      '| measure | curator mode | figure |',
      '|---|---|---|',
      `| upstream alone: spawn + initialize / tools/list, all ${up.pages} pages (${up.tools.toLocaleString('en')} tools) | — | ${ms(up.initMs)} / ${ms(up.listMs)} ms |`,
      `| gateway: initialize answered, from spawn | bm25 | ${ms(bm25.initAt)} ms |`,
      `| gateway: tools/list answered, from spawn (${bm25.listedTools} tools shown) | bm25 | ${ms(bm25.listAt)} ms |`,
      `| gateway: first find_tools answered, from spawn (retrievers ${bm25.retrievers.join('+')}; top: ${bm25.top}) | bm25 | ${ms(bm25.findAt)} ms |`,
      `| gateway's own log: upstreams listed / index built, from its start | bm25 | ${ready.upstreamsMs} / ${ready.indexedMs} ms |`,
      `| gateway VmRSS / VmHWM after the first find_tools | bm25 | ${rssAfterFind} |`,
      `| misspelled name through the gateway | bm25 | ${guard} |`,
      `| gateway VmRSS / VmHWM after ${WARMUP + CALLS + 6 + (times.warm ? WARM + CALLS : 0)} calls | bm25 | ${memory(gw.pid)} |`,
      '',
      `Call overhead at N = ${BIG.toLocaleString('en')}: \`${c.name}\` ${JSON.stringify(c.arguments)}; ${before} before, ${load()} after.`,
      '',
      ...overheadTable(times.cold),
      ...(times.warm ? ['', `Warm window (${WARM} calls later):`, '', ...overheadTable(times.warm)] : []),
    );
    await gw.stop();
    await direct.stop();

    const dirH = mkdtempSync(join(tmpdir(), 'tc-bench-overhead-'));
    dirs.push(dirH);
    const hybrid = await coldStart(gatewayConfig(dirH, BIG, { mode: 'hybrid' }), query);
    gw = hybrid.gw;
    const embedder = await gw.stderrLine(/"msg":"embedder: [^"]*"/, 1, 'embedder chosen').then((m) => m[0].slice(7, -1), () => 'embedder: still loading');
    const dense = await gw.stderrLine(/"msg":"curator index built"/, 1, 'dense index').then(() => 'built', () => 'not built yet');
    lines.push(
      '',
      `Hybrid, default embedder (\`auto\`), empty store: stopped right after its first find_tools (${load()}).`,
      '',
      '| measure | curator mode | figure |',
      '|---|---|---|',
      `| gateway: tools/list answered, from spawn | hybrid | ${ms(hybrid.listAt)} ms |`,
      `| gateway: first find_tools answered, from spawn | hybrid | ${ms(hybrid.findAt)} ms: retrievers ${hybrid.retrievers.join('+')} (top: ${hybrid.top}); dense index ${dense}; ${embedder} |`,
      `| gateway VmRSS / VmHWM at that moment | hybrid | ${memory(gw.pid)} |`,
    );
    return lines;
  } finally {
    await gw?.stop();
    await direct.stop();
  }
}

/** @param callsOnly part 1 alone. */
export async function benchOverhead(callsOnly = false): Promise<string[]> {
  if (!Number.isInteger(CALLS) || CALLS < BLOCK) throw new Error(`BENCH_OVERHEAD_CALLS must be an integer ≥ ${BLOCK}, got ${process.env.BENCH_OVERHEAD_CALLS}`);
  const dirs: string[] = [];
  try {
    const calls = ['### tools/call overhead, 10 tools', '', ...(await smallCatalog(10, dirs))];
    if (callsOnly) return calls;
    return [
      ...calls,
      '',
      `### ${BIG.toLocaleString('en')} tools: cold start, name guard, memory, call overhead`,
      '',
      ...(await bigCatalog(dirs)),
      '',
      '### 50 concurrent Streamable HTTP sessions',
      '',
      ...(await benchConcurrent()),
    ];
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${(await benchOverhead(process.argv[2] === 'calls')).join('\n')}\n`);
}

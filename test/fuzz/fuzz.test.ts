/**
 * Fuzz: seeded random and mutated requests against the built gateway over the eight
 * university servers, over stdio and over Streamable HTTP (loopback). Requirements:
 * no crash (the process is alive at the end and still answers), no hang (every request
 * with a usable id answered within ANSWER_MS; every HTTP POST answered, none lost to a
 * connection reset), resident memory back within 20 % of its post-warm-up level after an
 * idle pause, and the live heap after a full GC (liveHeap.ts) within 25 % of its
 * post-warm-up level. Each reports RSS and live heap after idle, and HTTP its resets.
 *
 * TOOL_CURATOR_FUZZ_COUNT sets the total (default 10,000: 70 % stdio, 30 % HTTP);
 * TOOL_CURATOR_FUZZ_SEED the seed (default 20261201).
 *
 * The gateway runs with a 64 MB old-space limit (TOOL_CURATOR_FUZZ_HEAP_MB; 0: V8's
 * default): with V8's default limit the heap grows during a burst and keeps the space it
 * grew into, so RSS measures V8's sizing, not retention. What the process retains is the
 * live heap after a full GC, measured by a probe preloaded into the gateway
 * (TOOL_CURATOR_FUZZ_LIVE_HEAP=off runs without it: its GC at warm-up changes how RSS
 * evolves). A leak shows in the live heap, and as an out-of-memory crash under the limit.
 * Figures: docs/RELIABILITY.md, "Fuzz".
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { universityConfig } from '../guards/university.js';
import { rssKiB } from '../helpers/procs.js';
import { RawHttp, RawStdio, startHttpGateway } from '../helpers/raw.js';
import { ROOT } from '../helpers/reference.js';
import { generator, windowed, type Generated } from './generate.js';
import { LiveHeap } from './liveHeap.js';

const COUNT = Number(process.env.TOOL_CURATOR_FUZZ_COUNT ?? 10_000);
const SEED = Number(process.env.TOOL_CURATOR_FUZZ_SEED ?? 20261201);
const STDIO_COUNT = Math.round(COUNT * 0.7);
const HTTP_COUNT = COUNT - STDIO_COUNT;
/** Bound on the answer to any one request: generous, the machine may be loaded. */
const ANSWER_MS = 60_000;
/** Requests in flight at once. */
const WINDOW = 32;
const TOKEN = 'fuzz-test-token-0123456789abcdef';
/** Old-space limit in MB; 0: V8's default. */
const HEAP_MB = Number(process.env.TOOL_CURATOR_FUZZ_HEAP_MB ?? 64);
/** `off`: no live-heap probe (its full GC at warm-up changes how RSS evolves), only RSS. */
const LIVE_HEAP = process.env.TOOL_CURATOR_FUZZ_LIVE_HEAP !== 'off';
const heap = new LiveHeap();
const NODE_ARGS = [...(HEAP_MB > 0 ? [`--max-old-space-size=${HEAP_MB}`] : []), ...(LIVE_HEAP ? heap.nodeArgs : [])];
/** The live heap in KiB, or 0 with the probe off. */
const liveKiB = (pid: number, stderr: () => string) => (LIVE_HEAP ? heap.kib(pid, stderr) : Promise.resolve(0));
/** Live heap after idle / after warm-up: retained objects, not garbage (measured +2 % stdio, +6 % HTTP; docs/RELIABILITY.md). */
const HEAP_RATIO = 1.25;

function config(): string {
  return universityConfig({
    curator: { mode: 'bm25', top_k: 8, embedder: 'none' },
    http: { tokens: [{ token: TOKEN, persona: 'student', user_id: 'S0001' }] },
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 30_000 },
    policy: { personas: join(ROOT, 'personas.yaml'), synonyms: join(ROOT, 'domain_synonyms.json') },
  }).configPath;
}

/** Waits (bounded) for the RSS of `pid` to come back within `ratio` of `baseKiB`; returns the last reading. */
async function settledRss(pid: number, baseKiB: number, ratio: number, maxMs: number): Promise<number> {
  const end = Date.now() + maxMs;
  let rss = rssKiB(pid)!;
  while (rss > baseKiB * ratio && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 1000));
    rss = rssKiB(pid)!;
  }
  return rss;
}

const tally = (kinds: Map<string, number>, g: Generated) => kinds.set(g.kind, (kinds.get(g.kind) ?? 0) + 1);

describe(`fuzz: ${COUNT} seeded requests (seed ${SEED})`, () => {
  let configPath: string;
  beforeAll(() => {
    configPath = config();
  });

  describe('over stdio', () => {
    let g: RawStdio;
    beforeAll(async () => {
      g = new RawStdio(configPath, [], {}, NODE_ARGS);
      await g.initialize(120_000);
      // Warm up: the catalog is ready once find_tools answers.
      expect((await g.request('warm', 'tools/call', { name: 'find_tools', arguments: { query: 'fee dues' } }, 120_000)).result).toBeDefined();
    }, 180_000);
    afterAll(() => g?.child.kill('SIGTERM'));

    it(`${STDIO_COUNT} messages: no crash, every request with an id answered, RSS back within 20 %`, async () => {
      const next = generator(SEED, 'stdio');
      const warm = Math.min(500, Math.floor(STDIO_COUNT / 10));
      const kinds = new Map<string, number>();
      const unanswered: Generated[] = [];
      let baseKiB = 0;
      let baseHeap = 0;
      const send = async (i: number) => {
        const m = next();
        tally(kinds, m);
        await g.send(m.raw ? (m.payload as string) : m.payload);
        if (m.expectId === undefined) return;
        const id = m.expectId;
        await g.next((x) => x.id === id && x.method === undefined, ANSWER_MS).catch(() => void unanswered.push(m));
        if (i === warm) {
          baseKiB = rssKiB(g.child.pid!)!;
          baseHeap = await liveKiB(g.child.pid!, () => g.stderr);
        }
      };
      await windowed(STDIO_COUNT, WINDOW, send);
      expect(unanswered.map((m) => m.kind)).toEqual([]);
      expect(g.child.exitCode).toBeNull();
      expect((await g.request('alive', 'ping', {}, ANSWER_MS)).result).toEqual({});
      const rss = await settledRss(g.child.pid!, baseKiB, 1.2, 30_000);
      const live = await liveKiB(g.child.pid!, () => g.stderr);
      console.log(
        `fuzz stdio (seed ${SEED}): ${STDIO_COUNT} messages ${JSON.stringify(Object.fromEntries(kinds))}; RSS after warm-up ${baseKiB} KiB, after idle ${rss} KiB; live heap ${baseHeap} → ${live} KiB`,
      );
      expect(rss).toBeLessThanOrEqual(baseKiB * 1.2);
      expect(live).toBeLessThanOrEqual(baseHeap * HEAP_RATIO);
    }, 900_000);
  });

  describe('over HTTP', () => {
    let http: Awaited<ReturnType<typeof startHttpGateway>>;
    beforeAll(async () => {
      http = await startHttpGateway(configPath, {}, NODE_ARGS);
    }, 180_000);
    afterAll(() => http?.child.kill('SIGTERM'));

    it(`${HTTP_COUNT} POSTs over 4 sessions: no crash, every POST answered, requests with ids answered by id, RSS back within 20 %`, async () => {
      const sessions = await Promise.all(Array.from({ length: 4 }, async () => {
        const s = new RawHttp(http.url, TOKEN);
        await s.initialize();
        return s;
      }));
      const next = generator(SEED + 1, 'http');
      const warm = Math.min(300, Math.floor(HTTP_COUNT / 10));
      const kinds = new Map<string, number>();
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      let resets = 0;
      let baseKiB = 0;
      let baseHeap = 0;
      await windowed(HTTP_COUNT, 8, async (i) => {
        const m = next();
        tally(kinds, m);
        try {
          const r = await sessions[i % sessions.length]!.post(m.raw ? (m.payload as string) : m.payload, AbortSignal.timeout(ANSWER_MS));
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status === 200 && m.expectId !== undefined && !r.messages.some((x) => x.id === m.expectId)) failures.push(`${m.kind}: 200 without an answer for ${m.expectId}`);
          if (r.status >= 500) failures.push(`${m.kind}: HTTP ${r.status}`);
        } catch (err) {
          const cause = (err as Error & { cause?: { code?: string } }).cause?.code;
          if (cause === 'ECONNRESET' || cause === 'UND_ERR_SOCKET') resets++;
          failures.push(`${m.kind}: ${(err as Error).message}${cause ? ` (${cause})` : ''}`);
        }
        if (i === warm) {
          baseKiB = rssKiB(http.child.pid!)!;
          baseHeap = await liveKiB(http.child.pid!, http.stderr);
        }
      });
      expect(failures).toEqual([]);
      expect(http.child.exitCode).toBeNull();
      const rss = await settledRss(http.child.pid!, baseKiB, 1.2, 30_000);
      const live = await liveKiB(http.child.pid!, http.stderr);
      console.log(
        `fuzz http (seed ${SEED + 1}): ${HTTP_COUNT} POSTs ${JSON.stringify(Object.fromEntries(kinds))}; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
          `connection resets ${resets}; RSS after warm-up ${baseKiB} KiB, after idle ${rss} KiB; live heap ${baseHeap} → ${live} KiB`,
      );
      expect(rss).toBeLessThanOrEqual(baseKiB * 1.2);
      expect(live).toBeLessThanOrEqual(baseHeap * HEAP_RATIO);
    }, 900_000);
  });
});

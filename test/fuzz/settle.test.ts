/**
 * The stdio gateway gives back what a burst left behind once it idles: the built gateway
 * at V8's default limits, as users run it, with nothing collecting from outside (the
 * probe of liveHeap.ts is loaded, but only asked for the young generation's size, which
 * it reads without collecting), gets the stdio share of the fuzz (generate.ts), then
 * nothing. The burst grows V8's young generation. The idle gateway says, once, that it
 * collected (src/cli/idleCollect.ts, a debug line), and the young generation is then
 * smaller than the burst left it. Before the idle collector no such collection came: V8
 * gave the memory back on its own only 87–99 s into the idle time, when at all
 * (docs/RELIABILITY.md, "Fuzz").
 *
 * TOOL_CURATOR_FUZZ_COUNT and TOOL_CURATOR_FUZZ_SEED as in fuzz.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { universityConfig } from '../guards/university.js';
import { rssKiB, waitFor } from '../helpers/procs.js';
import { RawStdio } from '../helpers/raw.js';
import { ROOT } from '../helpers/reference.js';
import { generator, windowed } from './generate.js';
import { LiveHeap } from './liveHeap.js';

const STDIO_COUNT = Math.round(Number(process.env.TOOL_CURATOR_FUZZ_COUNT ?? 10_000) * 0.7);
const SEED = Number(process.env.TOOL_CURATOR_FUZZ_SEED ?? 20261201);
/** Bound on the wait for the idle collection: the gateway checks every 5 s; a loaded machine delays it. */
const SETTLE_MS = 120_000;

const heap = new LiveHeap();
let g: RawStdio;
/** The gateway's "memory: idle after a burst" log lines, as they come. */
const collections: { before: number; after: number }[] = [];

beforeAll(async () => {
  const { configPath } = universityConfig({
    curator: { mode: 'bm25', top_k: 8, embedder: 'none' },
    timeouts: { startup_ms: 120_000, list_wait_ms: 120_000, call_ms: 30_000 },
    policy: { personas: join(ROOT, 'personas.yaml'), synonyms: join(ROOT, 'domain_synonyms.json') },
  });
  g = new RawStdio(configPath, [], { TOOL_CURATOR_LOG: 'debug' }, heap.nodeArgs);
  let partial = '';
  g.child.stderr!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const m = /memory: idle after a burst; heap (\d+) → (\d+) MiB/.exec(line);
      if (m) collections.push({ before: Number(m[1]), after: Number(m[2]) });
    }
  });
  await g.initialize(120_000);
  expect((await g.request('warm', 'tools/call', { name: 'find_tools', arguments: { query: 'fee dues' } }, 120_000)).result).toBeDefined();
}, 180_000);
afterAll(() => g?.child.kill('SIGTERM'));

it(`after ${STDIO_COUNT} messages, the idle gateway collects once and its young generation shrinks`, async () => {
  const pid = g.child.pid!;
  const rssBefore = rssKiB(pid)!;
  const next = generator(SEED, 'stdio');
  let unanswered = 0;
  await windowed(STDIO_COUNT, 32, async () => {
    const m = next();
    await g.send(m.raw ? (m.payload as string) : m.payload);
    const id = m.expectId;
    if (id !== undefined) await g.next((x) => x.id === id && x.method === undefined, 60_000).catch(() => void unanswered++);
  });
  expect(unanswered).toBe(0);
  const duringBurst = collections.length;
  const grown = await heap.youngKiB(pid, () => g.stderr);
  const rssAfter = rssKiB(pid)!;
  await waitFor(() => collections.length > duringBurst || undefined, SETTLE_MS, 'the idle gateway to collect');
  const young = await heap.youngKiB(pid, () => g.stderr);
  const collected = collections.at(-1)!;
  console.log(
    `settle stdio (seed ${SEED}): RSS ${rssBefore} KiB before, ${rssAfter} KiB right after, ${rssKiB(pid)} KiB after the idle collection ` +
      `(heap ${collected.before} → ${collected.after} MiB); young generation ${grown} → ${young} KiB`,
  );
  expect(collections).toHaveLength(duringBurst + 1);
  expect(collected.after).toBeLessThan(collected.before);
  expect(young).toBeLessThan(grown);
}, 900_000);

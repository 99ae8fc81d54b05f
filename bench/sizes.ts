/**
 * The curator at 1,000 / 10,000 / 100,000 tools (issue 14's table). Catalogs are built
 * from the public catalogs' real tool records (the 770-tool union of metatool, toollens,
 * api_bank and mcptoolbenchpp, bench/scale.ts), copied under distinct names
 * (`<name>__c<k>`, description and schema unchanged) up to the size. Each size runs in a
 * child process of its own, so its RSS is its own.
 *
 * Vectors: CHEAP, not USE. A hashing bag-of-words embedder (512 dimensions, the USE
 * size) gives every text a unit vector in microseconds, so the 10k and 100k rows measure
 * the index (build, search, memory), not the embedder. Retrieval quality on these copies
 * means nothing and is not reported. The embedder's own cost is the separate "cold" row:
 * the real 1,000-tool catalog embedded with USE into an empty store (texts/s, peak RSS),
 * from which the cold time of a bigger catalog is ESTIMATED (distinct texts / rate).
 *
 * Per size: time until BM25 answers (what a host waits for the first find_tools) on a
 * cold and on a warm build; the warm build to a dense-ready index (vectors and catalog
 * trust cached); the catalog trust measured cold; the longest event-loop stall during
 * the warm build (what tools/list could wait); select() p50/p99 after the query embedding
 * (query vectors computed beforehand) and its dense and BM25 stages alone (the dense
 * stage at the depth select() asks for; through the HNSW graph from curator.approximate's
 * threshold on, with the share of the exact dense top 10 it finds); RSS after GC with
 * the index built, and the process's peak RSS. BENCH_APPROXIMATE_FROM=<tools> moves the
 * threshold (0: every size approximate).
 *
 * `node dist/bench/sizes.js` runs 191 (the university catalog's size), 1k and 10k (about 3 minutes here); BENCH_100K=1 adds
 * 100k (several GiB of vectors: see docs/PERFORMANCE.md).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { SERVER_SEPARATOR } from '../src/catalog/catalog.js';
import type { ToolRecord } from '../src/catalog/types.js';
import { buildBm25, buildDense } from '../src/curator/build.js';
import { createCurator } from '../src/curator/index.js';
import { rankingDepth } from '../src/curator/curator.js';
import { RRF_DEPTH } from '../src/curator/rrf.js';
import { DEFAULT_APPROXIMATE, type ApproximateOptions } from '../src/curator/types.js';
import { measureTrust } from '../src/curator/trust.js';
import { createEmbedder } from '../src/embedding/index.js';
import type { Embedder } from '../src/embedding/types.js';
import { everyKth, loadPublicSet, PUBLIC_SETS } from '../src/eval/data.js';
import { percentile } from '../src/eval/metrics.js';
import { openDb } from '../src/store/db.js';
import { EmbeddingStore } from '../src/store/embeddings.js';
import { unionCatalog } from './scale.js';

const QUERIES_PER_SET = 50;
const WARMUP = 20;
const TOP_K = 10;
const DIM = 512;
/** Tools of the cold USE build; BENCH_COLD_TOOLS=10000 measures the issue's cold 10,000-tool build (about 12 minutes at 30 texts/s). */
const COLD_TOOLS = Number(process.env.BENCH_COLD_TOOLS ?? 1_000);
/** The curator's approximate search; BENCH_APPROXIMATE_FROM=<tools> moves its threshold (0: always). */
const APPROXIMATE: ApproximateOptions = {
  ...DEFAULT_APPROXIMATE,
  ...(process.env.BENCH_APPROXIMATE_FROM !== undefined ? { from: Number(process.env.BENCH_APPROXIMATE_FROM) } : {}),
};

interface SizeRow {
  tools: number;
  texts: number;
  bm25ColdMs: number;
  bm25WarmMs: number;
  warmBuildMs: number;
  trustColdMs: number;
  stallMs: number;
  /** Wall-clock p50, p99, then CPU-time p50, p99 (ms). */
  select: [number, number, number, number];
  dense: [number, number, number, number];
  bm25: [number, number, number, number];
  /** CPU time (ms) of the warm build and of the cold trust measurement. */
  warmBuildCpuMs: number;
  trustColdCpuMs: number;
  rssMiB: number;
  peakMiB: number;
  /** Whether the dense stage searched the HNSW graph (catalog ≥ approximate.from). */
  approximate: boolean;
  /** Mean share of the exact dense top 10 that the dense stage's top 10 holds, ties counted as found (1 when exact). */
  denseRecall10: number;
  /** The same by original tool: the originals of the exact top 10 found among the originals of the dense stage's top 10. */
  familyRecall10: number;
}

interface ColdRow {
  tools: number;
  texts: number;
  ms: number;
  rate: number;
  peakMiB: number;
}

const gc: () => void = (() => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const peakMiB = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

/** The union of the public catalogs, copied under distinct names up to `n` tools; and 200 of their queries. */
export function catalog(n: number): { tools: ToolRecord[]; queries: string[] } {
  const sets = PUBLIC_SETS.map((s) => loadPublicSet(s));
  const { tools: union } = unionCatalog(sets);
  const tools: ToolRecord[] = [];
  for (let k = 1; tools.length < n; k++) {
    for (const t of union) {
      if (tools.length === n) break;
      tools.push(k === 1 ? t : { ...t, name: `${t.name}${SERVER_SEPARATOR}c${k}` });
    }
  }
  return { tools, queries: sets.flatMap((s) => everyKth(s.cases, QUERIES_PER_SET).map((c) => c.query)) };
}

/** CHEAP vectors: signed feature hashing of lowercase words into DIM dimensions, L2-normalized. */
function hashingEmbedder(): Embedder {
  const embed = (text: string): Float32Array => {
    const v = new Float32Array(DIM);
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
      v[(h >>> 1) % DIM]! += h & 1 ? 1 : -1;
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    return v.map((x) => x / norm);
  };
  return { id: 'bench:hash-512', dim: DIM, embedDocuments: async (texts) => texts.map(embed), embedQuery: async (t) => embed(t), close: async () => {} };
}

/** CPU time of this process (all threads) in ms: unlike wall-clock time, it does not grow when other jobs load the machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** p50 and p99 in ms of `fn` over `items`, after a warm-up: wall-clock [p50, p99], then CPU time [p50, p99]. */
async function latency<T>(items: readonly T[], fn: (item: T) => unknown): Promise<[number, number, number, number]> {
  for (const item of items.slice(0, WARMUP)) await fn(item);
  const times: number[] = [];
  const cpu: number[] = [];
  for (const item of items) {
    const c0 = cpuMs();
    const t0 = performance.now();
    await fn(item);
    times.push(performance.now() - t0);
    cpu.push(cpuMs() - c0);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return [percentile(times, 0.5), percentile(times, 0.99), percentile(cpu, 0.5), percentile(cpu, 0.99)];
}

/** The longest gap between 10 ms timer ticks while `fn` runs: how long a request could have waited. */
async function stall(fn: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return Math.max(0, worst);
}

async function measureSize(n: number): Promise<SizeRow> {
  const { tools, queries } = catalog(n);
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-sizes-'));
  const db = openDb(join(dir, 'store.db'));
  const cache = new EmbeddingStore(db);
  const cheap = hashingEmbedder();
  // Query vectors computed beforehand: select() is timed after the query embedding.
  const vectors = new Map<string, Float32Array>();
  for (const q of queries) vectors.set(q, await cheap.embedQuery(q));
  const embedder: Embedder = { ...cheap, embedQuery: async (q) => vectors.get(q) ?? cheap.embedQuery(q) };
  try {
    // Cold (cheap vectors): fills the store; what matters here is when BM25 answers. Dropped after, so RSS holds one index.
    let t0 = performance.now();
    const bm25ColdMs = await (async () => {
      const cold = createCurator({ mode: 'hybrid', embedder, cache, approximate: APPROXIMATE });
      const coldBuild = cold.buildIndex(tools);
      await cold.whenSearchable();
      const ms = performance.now() - t0;
      await coldBuild;
      return ms;
    })();

    // Warm: a new curator over the same store, as after a restart.
    const curator = createCurator({ mode: 'hybrid', embedder, cache, approximate: APPROXIMATE });
    let bm25WarmMs = 0;
    let c0 = cpuMs();
    t0 = performance.now();
    const stallMs = await stall(async () => {
      const build = curator.buildIndex(tools);
      await curator.whenSearchable();
      bm25WarmMs = performance.now() - t0;
      await build;
    });
    const warmBuildMs = performance.now() - t0;
    const warmBuildCpuMs = cpuMs() - c0;

    const select = await latency(queries, (q) => curator.select(q, tools, { topK: TOP_K }));
    gc();
    await new Promise((r) => setImmediate(r));
    gc();
    const rssMiB = mib(process.memoryUsage().rss);

    // Stages alone, on retrievers built the same way (warm).
    const bm25 = await buildBm25(tools, {});
    const built = await buildDense(embedder, tools, {}, cache, undefined, APPROXIMATE);
    c0 = cpuMs();
    t0 = performance.now();
    await measureTrust(built.probes, bm25, DIM);
    const trustColdMs = performance.now() - t0;
    const trustColdCpuMs = cpuMs() - c0;
    const all = new Uint8Array(tools.length).fill(1);
    // The depth select() asks of the dense stage for this top_k.
    const depth = Math.max(rankingDepth(TOP_K), RRF_DEPTH);
    const dense = await latency(queries, (q) => built.index.search(vectors.get(q)!, all, depth));
    // BM25 as select() asks it: every hit beside an exact dense stage, its first `depth` beside an approximate one.
    const lexical = await latency(queries, (q) => bm25.query(q, all, undefined, built.index.approximate ? depth : undefined));
    // A tool of the approximate top 10 counts as found when its exact score reaches the exact
    // tenth's: the copies share description sentences, so many tools tie and which of the
    // tied ones the top 10 holds is arbitrary. The tolerance covers float32 vs float64 sums.
    // Second measure: by original tool (a copy counts as the tool it copies), the share of
    // the originals in the exact top 10 that the approximate top 10 holds.
    const original = (i: number): string => tools[i]!.name.replace(/__c\d+$/, '');
    let found = 0;
    let families = 0;
    let familiesFound = 0;
    for (const q of queries) {
      const full = built.index.search(vectors.get(q)!, all);
      const tenth = full.similarities[9] ?? -Infinity;
      const approx = [...built.index.search(vectors.get(q)!, all, depth).indices.slice(0, 10)];
      found += approx.filter((i) => full.score[i]! >= tenth - 1e-6).length;
      const want = new Set([...full.indices.slice(0, 10)].map(original));
      const got = new Set(approx.map(original));
      families += want.size;
      familiesFound += [...want].filter((f) => got.has(f)).length;
    }
    return {
      tools: n, texts: new Set(built.texts).size, bm25ColdMs, bm25WarmMs, warmBuildMs, warmBuildCpuMs, trustColdMs, trustColdCpuMs, stallMs, select, dense, bm25: lexical,
      rssMiB, peakMiB: peakMiB(), approximate: built.index.approximate, denseRecall10: found / (10 * queries.length), familyRecall10: familiesFound / families,
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The real 1,000-tool catalog embedded with USE into an empty store. */
async function measureCold(): Promise<ColdRow> {
  const { tools } = catalog(COLD_TOOLS);
  const dir = mkdtempSync(join(tmpdir(), 'tc-bench-cold-'));
  const db = openDb(join(dir, 'store.db'));
  const embedder = await createEmbedder({ provider: 'use' });
  try {
    let texts = 0;
    const curator = createCurator({ mode: 'hybrid', embedder, cache: new EmbeddingStore(db), onProgress: (p) => (texts = p.total) });
    const t0 = performance.now();
    await curator.buildIndex(tools);
    const ms = performance.now() - t0;
    return { tools: COLD_TOOLS, texts, ms, rate: texts / (ms / 1000), peakMiB: peakMiB() };
  } finally {
    await embedder.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = promisify(execFile);
const self = fileURLToPath(import.meta.url);

async function child<T>(arg: string): Promise<T> {
  const { stdout } = await run(process.execPath, ['--max-old-space-size=8192', self, arg], { maxBuffer: 1 << 20, env: { ...process.env, TOOL_CURATOR_LOG: 'warn' } });
  return JSON.parse(stdout) as T;
}

const f0 = (x: number): string => x.toFixed(0);
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const pq = (l: [number, number, number, number]): string => `${f2(l[0])} / ${f2(l[1])} [${f2(l[2])} / ${f2(l[3])}]`;

/** Markdown table of every size (each in its own process) and the cold USE row. */
export async function benchSizes(): Promise<string[]> {
  const sizes = [191, 1_000, 10_000, ...(process.env.BENCH_100K === '1' ? [100_000] : [])];
  const rows: SizeRow[] = [];
  for (const n of sizes) rows.push(await child<SizeRow>(String(n)));
  const cold = await child<ColdRow>('cold');
  const lines = [
    'Wall-clock figures, then (in brackets) CPU time of the process, which other jobs on the machine do not inflate.',
    '',
    '| tools | distinct texts | BM25 answers after (cold / warm) s | warm build to dense-ready s [CPU s] | catalog trust, measured cold s [CPU s] | longest event-loop stall in the warm build ms | select p50 / p99 ms after the query embedding [CPU p50 / p99] | dense stage p50 / p99 ms [CPU] (search; dense R@10 vs exact, ties found; by original tool) | BM25 stage p50 / p99 ms [CPU] | RSS after GC MiB | peak RSS MiB | cold build with USE (ESTIMATE from the rate below) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) =>
      `| ${r.tools.toLocaleString('en')} | ${r.texts.toLocaleString('en')} | ${f2(r.bm25ColdMs / 1000)} / ${f2(r.bm25WarmMs / 1000)} | ${f2(r.warmBuildMs / 1000)} [${f2(r.warmBuildCpuMs / 1000)}] | ${f2(r.trustColdMs / 1000)} [${f2(r.trustColdCpuMs / 1000)}] | ${f0(r.stallMs)} | ${pq(r.select)} | ${pq(r.dense)} (${r.approximate ? `HNSW; ${r.denseRecall10.toFixed(3)}, by original ${r.familyRecall10.toFixed(3)}` : 'exact'}) | ${pq(r.bm25)} | ${r.rssMiB} | ${r.peakMiB} | ~${f0(r.texts / cold.rate / 60)} min |`),
    '',
    'Vectors above: CHEAP (hashing bag of words, 512 dimensions): the index measured, not the embedder; no quality figure.',
    '',
    '| cold build with USE (worker pool), empty store | tools | texts embedded | s | texts/s | peak RSS MiB |',
    '|---|---|---|---|---|---|',
    `| public union, copies to ${cold.tools.toLocaleString('en')} | ${cold.tools.toLocaleString('en')} | ${cold.texts.toLocaleString('en')} | ${f1(cold.ms / 1000)} | ${f1(cold.rate)} | ${cold.peakMiB} |`,
  ];
  return lines;
}

const arg = process.argv[2];
if (process.argv[1] === self && arg) {
  const result = arg === 'cold' ? await measureCold() : await measureSize(Number(arg));
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
} else if (process.argv[1] === self) {
  process.stdout.write(`${(await benchSizes()).join('\n')}\n`);
}

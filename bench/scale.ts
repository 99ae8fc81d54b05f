/**
 * The curator on catalogs larger than any single public data set, with the USE embedder
 * and the eval embeddings cache ($TOOL_CURATOR_EVAL_CACHE, default .tool-curator/eval.db,
 * the one `tool-curator eval` fills), so a repeated run embeds nothing.
 * Run from the repository root: `node dist/bench/scale.js`.
 *
 * 1. Quality lost to a bigger pool. The union of the four public catalogs (metatool 199 +
 *    toollens 464 + api_bank 52 + mcptoolbenchpp 55 = 770 real tools; a name held by two
 *    sets is exposed as `<set>__<name>` in both, as the gateway's catalog does, and gold
 *    names are mapped through the same renaming). Each set's queries (metatool and
 *    toollens: an every-k-th sample of 300; api_bank and mcptoolbenchpp: all) ranked with
 *    topK 10 against the set's own catalog and against the union: Complete@10 and nDCG@10
 *    (fractions in [0, 1], src/eval/metrics.ts), their difference, and the average number
 *    of other sets' tools among the union top 10. Hybrid (default fusion) and BM25 alone.
 *    Query vectors memoized and cached, as `tool-curator eval` does. The gold stays each
 *    set's own, so another set's tool that does the same job (metatool's WeatherTool vs
 *    toollens's forecast endpoints, news, finance, time zones) counts as a miss: the Δ is
 *    the loss against the set's labels, an upper bound where the sets overlap.
 * 2. Latency and memory by catalog size: toollens (464), the union (770), and SYNTHETIC
 *    catalogs of 2× and 4× the union (1,540 and 3,080 tools): copy k of a tool is named
 *    `<name>__copy<k>`, description and schema unchanged, so its description passages reuse
 *    the cached vectors and only its document and name phrase are new (embedded once, on
 *    the first run, then cached). The copies are only good for latency and memory, not for
 *    quality. Per catalog: buildIndex warm in ms (every vector and the catalog trust cached;
 *    a second build, the first in the run fills the cache if needed); select() p50/p99 in
 *    ms over the same 200 queries (50 per set, every-k-th) with the whole catalog allowed,
 *    hybrid with the query embedding included (as bench/select.ts), hybrid with query
 *    vectors memoized (retrieval alone) and BM25 alone; process RSS (MiB) and JS heap used +
 *    ArrayBuffers (MiB; the dense matrix is an ArrayBuffer) after a GC with the hybrid index
 *    built, and the growth of heap + ArrayBuffers over the build (the index's own size).
 *    RSS includes the USE model and, once something was embedded in this process, its
 *    worker threads.
 * 3. buildIndex cold: the union with an empty in-memory cache (every document and passage
 *    vector embedded, catalog trust measured): ms, texts embedded, texts/s; the 4× synthetic
 *    catalog with vectors cached but the catalog trust measured (its O(n²) probes); and an
 *    ESTIMATE of a cold 3,080-tool catalog of distinct tools: 4× the union's texts at the
 *    measured rate plus that non-embedding time. The embedding time includes starting the
 *    USE worker pool when no earlier step of the process started it. Peak RSS is the
 *    process's maximum so far (the workers each hold a model).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { SERVER_SEPARATOR } from '../src/catalog/catalog.js';
import type { ToolRecord } from '../src/catalog/types.js';
import { createCurator } from '../src/curator/index.js';
import type { CuratorMode, ToolCurator } from '../src/curator/types.js';
import { createEmbedder } from '../src/embedding/index.js';
import type { Embedder } from '../src/embedding/types.js';
import { everyKth, loadPublicSet, PUBLIC_SETS, type PublicCase, type PublicSet, type PublicSetName } from '../src/eval/data.js';
import { MetricsAccumulator } from '../src/eval/metrics.js';
import { memoizeQueries } from '../src/eval/public.js';
import { openDb } from '../src/store/db.js';
import { EmbeddingStore } from '../src/store/embeddings.js';
import { percentile } from '../src/eval/metrics.js';

/** Queries per set for the quality table; sets with fewer (or listed in ALL_QUERIES) use all. */
const QUALITY_SAMPLE = 300;
const ALL_QUERIES: readonly PublicSetName[] = ['api_bank', 'mcptoolbenchpp'];
/** Latency queries: this many per set, the same 200 for every catalog. */
const LATENCY_PER_SET = 50;
const WARMUP = 20;
const TOP_K = 10;
const COPIES = 4;

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const f1 = (x: number): string => x.toFixed(1);
const f3 = (x: number): string => x.toFixed(3);
const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/** A full GC (global.gc when --expose-gc was given, else enabled at run time). */
const gc: () => void = (() => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** RSS and heap used + ArrayBuffers after full GCs (two, a turn apart: freed ArrayBuffers are released by the second). */
async function memory(): Promise<{ rss: number; heap: number }> {
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.arrayBuffers };
}

/** The union catalog and, per set, its tool names → union names (changed only on collision). */
export function unionCatalog(sets: readonly PublicSet[]): { tools: ToolRecord[]; rename: Map<PublicSetName, Map<string, string>> } {
  const holders = new Map<string, number>();
  for (const s of sets) for (const t of s.tools) holders.set(t.name, (holders.get(t.name) ?? 0) + 1);
  const rename = new Map<PublicSetName, Map<string, string>>();
  const tools: ToolRecord[] = [];
  for (const s of sets) {
    const names = new Map<string, string>();
    for (const t of s.tools) {
      const name = holders.get(t.name)! > 1 ? `${s.name}${SERVER_SEPARATOR}${t.name}` : t.name;
      names.set(t.name, name);
      tools.push({ ...t, name });
    }
    rename.set(s.name, names);
  }
  return { tools, rename };
}

/** SYNTHETIC: `copies` × `tools`, copy k ≥ 2 named `<name>__copy<k>`, everything else unchanged. */
function replicate(tools: readonly ToolRecord[], copies: number): ToolRecord[] {
  const out = [...tools];
  for (let k = 2; k <= copies; k++) for (const t of tools) out.push({ ...t, name: `${t.name}${SERVER_SEPARATOR}copy${k}` });
  return out;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function latencies(curator: ToolCurator, queries: readonly string[], allowed: ToolRecord[]): Promise<{ p50: number; p99: number }> {
  for (const q of queries.slice(0, WARMUP)) await curator.select(q, allowed, { topK: TOP_K });
  const times: number[] = [];
  for (const q of queries) times.push(await timed(() => curator.select(q, allowed, { topK: TOP_K })));
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/** An EmbeddingStore that never holds a catalog trust: buildIndex measures it every time. */
class NoTrustStore extends EmbeddingStore {
  override async get(embedderId: string, texts: readonly string[]): Promise<(Float32Array | undefined)[]> {
    return embedderId.endsWith('#trust') ? texts.map(() => undefined) : super.get(embedderId, texts);
  }

  override async put(embedderId: string, entries: readonly { text: string; vector: Float32Array }[]): Promise<void> {
    if (!embedderId.endsWith('#trust')) await super.put(embedderId, entries);
  }
}

/** Counts the texts embedded as documents and the time spent embedding them. */
function counting(embedder: Embedder): Embedder & { texts: number; ms: number } {
  const c = {
    id: embedder.id,
    dim: embedder.dim,
    texts: 0,
    ms: 0,
    embedQuery: (text: string) => embedder.embedQuery(text),
    close: () => embedder.close(),
    async embedDocuments(texts: string[]) {
      const t0 = performance.now();
      const out = await embedder.embedDocuments(texts);
      c.ms += performance.now() - t0;
      c.texts += texts.length;
      return out;
    },
  };
  return c;
}

interface QualityRow {
  set: PublicSetName;
  queries: number;
  mode: CuratorMode;
  own: ReturnType<MetricsAccumulator['result']>;
  union: ReturnType<MetricsAccumulator['result']>;
  foreign: number;
}

async function quality(sets: readonly PublicSet[], union: ToolRecord[], rename: Map<PublicSetName, Map<string, string>>,
  queryEmbedder: Embedder, cache: EmbeddingStore): Promise<string[]> {
  const rows: QualityRow[] = [];
  for (const mode of ['hybrid', 'bm25'] as CuratorMode[]) {
    const inUnion = createCurator({ mode, embedder: queryEmbedder, cache });
    await inUnion.buildIndex(union);
    for (const set of sets) {
      const own = createCurator({ mode, embedder: queryEmbedder, cache });
      await own.buildIndex(set.tools);
      const cases: PublicCase[] = ALL_QUERIES.includes(set.name) ? set.cases : everyKth(set.cases, QUALITY_SAMPLE);
      const names = rename.get(set.name)!;
      // A set's tools by their union names (a tool's server is its own server where the set names one, mcptoolbenchpp's).
      const ownNames = new Set(set.tools.map((t) => names.get(t.name) ?? t.name));
      const accOwn = new MetricsAccumulator();
      const accUnion = new MetricsAccumulator();
      let foreign = 0;
      for (const c of cases) {
        accOwn.add((await own.select(c.query, set.tools, { topK: TOP_K })).tools.map((t) => t.name), c.gold);
        const top = (await inUnion.select(c.query, union, { topK: TOP_K })).tools;
        accUnion.add(top.map((t) => t.name), c.gold.map((g) => names.get(g) ?? g));
        foreign += top.slice(0, TOP_K).filter((t) => !ownNames.has(t.name)).length;
      }
      rows.push({ set: set.name, queries: cases.length, mode, own: accOwn.result(), union: accUnion.result(), foreign: foreign / (cases.length || 1) });
    }
  }
  const order = (r: QualityRow): number => PUBLIC_SETS.indexOf(r.set) * 2 + (r.mode === 'hybrid' ? 0 : 1);
  rows.sort((a, b) => order(a) - order(b));
  const size = new Map(sets.map((s) => [s.name, s.tools.length]));
  return [
    `**Quality: each set's queries against its own catalog and against the union of the four (${union.length} real tools), topK ${TOP_K}**`,
    '',
    '| set | own tools | queries | mode | Complete@10 own | union | Δ | nDCG@10 own | union | Δ | other sets\' tools in union top 10 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.set} | ${size.get(r.set)} | ${r.queries} | ${r.mode} | ${f3(r.own.complete10)} | ${f3(r.union.complete10)} | ${signed(r.union.complete10 - r.own.complete10)} | ${f3(r.own.ndcg10)} | ${f3(r.union.ndcg10)} | ${signed(r.union.ndcg10 - r.own.ndcg10)} | ${r.foreign.toFixed(1)} |`),
  ];
}

async function latency(catalogs: { label: string; tools: ToolRecord[] }[], queries: readonly string[], embedder: Embedder, cache: EmbeddingStore): Promise<string[]> {
  // One wrapper: queries embedded each time (memo off), or looked up (memo on, retrieval alone).
  const memo = new Map<string, Float32Array>();
  let memoized = false;
  const queryEmbedder: Embedder = {
    id: embedder.id,
    dim: embedder.dim,
    embedDocuments: (texts) => embedder.embedDocuments(texts),
    close: () => embedder.close(),
    async embedQuery(text) {
      const hit = memoized ? memo.get(text) : undefined;
      if (hit) return hit;
      const v = await embedder.embedQuery(text);
      memo.set(text, v);
      return v;
    },
  };
  const lines = [
    `**select() latency (ms, ${queries.length} queries, whole catalog allowed, topK ${TOP_K}) and memory after a GC with the hybrid index built**`,
    '',
    '| catalog | tools | buildIndex warm ms | hybrid p50 / p99, query embedded | hybrid p50 / p99, retrieval alone | bm25 p50 / p99 | RSS MiB | heap + ArrayBuffers MiB | index size MiB |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { label, tools } of catalogs) {
    await createCurator({ mode: 'hybrid', embedder: queryEmbedder, cache }).buildIndex(tools); // fills the cache on a first run
    const before = await memory();
    const hybrid = createCurator({ mode: 'hybrid', embedder: queryEmbedder, cache });
    const warm = await timed(() => hybrid.buildIndex(tools));
    const after = await memory();
    memoized = false;
    const embedded = await latencies(hybrid, queries, tools);
    memoized = true;
    const alone = await latencies(hybrid, queries, tools);
    const bm25 = createCurator({ mode: 'bm25', embedder: null });
    await bm25.buildIndex(tools);
    const lexical = await latencies(bm25, queries, tools);
    const pair = (x: { p50: number; p99: number }): string => `${f1(x.p50)} / ${f1(x.p99)}`;
    lines.push(`| ${label} | ${tools.length} | ${f1(warm)} | ${pair(embedded)} | ${pair(alone)} | ${pair(lexical)} | ${mib(after.rss)} | ${mib(after.heap)} | ${f1((after.heap - before.heap) / 2 ** 20)} |`);
  }
  return lines;
}

async function cold(union: ToolRecord[], synthetic: ToolRecord[], embedder: Embedder, cachePath: string): Promise<string[]> {
  const counter = counting(embedder);
  const empty = new EmbeddingStore(openDb(':memory:'));
  const unionMs = await timed(() => createCurator({ mode: 'hybrid', embedder: counter, cache: empty }).buildIndex(union));
  const rate = counter.texts / (counter.ms / 1000);
  const peak = mib(process.resourceUsage().maxRSS * 1024);
  const noTrust = new NoTrustStore(openDb(cachePath));
  const trustMs = await timed(() => createCurator({ mode: 'hybrid', embedder, cache: noTrust }).buildIndex(synthetic));
  const estimate = (COPIES * counter.texts) / rate * 1000 + trustMs;
  const s = (ms: number): string => (ms / 1000).toFixed(1);
  return [
    '**buildIndex cold (s)**',
    '',
    '| catalog | tools | texts embedded | buildIndex s | of which embedding s | texts/s | peak RSS MiB |',
    '|---|---|---|---|---|---|---|',
    `| union, empty cache | ${union.length} | ${counter.texts} | ${s(unionMs)} | ${s(counter.ms)} | ${rate.toFixed(0)} | ${peak} |`,
    `| ${COPIES}× union (synthetic), vectors cached, catalog trust measured | ${synthetic.length} | 0 | ${s(trustMs)} | 0 | | |`,
    `| ESTIMATE: ${synthetic.length} distinct tools, empty cache (${COPIES} × ${counter.texts} texts at ${rate.toFixed(0)}/s + the row above) | ${synthetic.length} | ≈ ${COPIES * counter.texts} | ≈ ${s(estimate)} | | | |`,
  ];
}

/** All three tables, Markdown lines. */
export async function benchScale(embedder: Embedder): Promise<string[]> {
  const cachePath = process.env.TOOL_CURATOR_EVAL_CACHE ?? '.tool-curator/eval.db';
  const cache = new EmbeddingStore(openDb(cachePath));
  const sets = PUBLIC_SETS.map((name) => loadPublicSet(name));
  const { tools: union, rename } = unionCatalog(sets);
  const queries = sets.flatMap((s) => everyKth(s.cases, LATENCY_PER_SET).map((c) => c.query));
  const synthetic = replicate(union, COPIES);
  const catalogs = [
    { label: 'toollens', tools: sets.find((s) => s.name === 'toollens')!.tools },
    { label: 'union of the four', tools: union },
    { label: 'union × 2 (synthetic)', tools: replicate(union, 2) },
    { label: `union × ${COPIES} (synthetic)`, tools: synthetic },
  ];
  const lines = [...(await latency(catalogs, queries, embedder, cache)), ''];
  lines.push(...(await quality(sets, union, rename, memoizeQueries(embedder, cache), cache)), '');
  lines.push(...(await cold(union, synthetic, embedder, cachePath)));
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const embedder = await createEmbedder({ provider: 'use' });
  try {
    process.stdout.write(`${(await benchScale(embedder)).join('\n')}\n\n${((performance.now() - started) / 1000).toFixed(0)} s in all\n`);
  } finally {
    await embedder.close();
  }
}

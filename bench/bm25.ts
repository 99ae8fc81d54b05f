/**
 * The BM25 index alone at a catalog size (default 100,000 tools; the same copies of the
 * public catalogs' tool records as bench/sizes.ts): time to compute the retrieval fields,
 * to index them (Bm25Index.add in buildBm25's chunks, without its event-loop yields), and
 * `query` p50 / p99 over the 200 bench queries with every tool allowed, returning every
 * hit and the first 50 (`limit`, what a shortlist reads).
 *
 * `node --max-old-space-size=8000 dist/bench/bm25.js [tools]`
 */
import { retrievalFields, type RetrievalFields } from '../src/catalog/retrievalText.js';
import { Bm25Index } from '../src/curator/bm25.js';
import { percentile } from '../src/eval/metrics.js';
import { catalog } from './sizes.js';

const CHUNK = 2_000;
const WARMUP = 20;
const LIMIT = 50;

function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

/** Wall-clock p50 and p99 (ms) of `fn` over `items`, after a warm-up. */
function latency(items: readonly string[], fn: (item: string) => unknown): [number, number] {
  for (const item of items.slice(0, WARMUP)) fn(item);
  const times = items.map((item) => timed(() => fn(item))[1]).sort((a, b) => a - b);
  return [percentile(times, 0.5), percentile(times, 0.99)];
}

const n = Number(process.argv[2] ?? 100_000);
const { tools, queries } = catalog(n);
const [fields, fieldsMs] = timed(() => tools.map((t) => retrievalFields(t)));
const [index, indexMs] = timed(() => {
  const index = new Bm25Index();
  for (let at = 0; at < fields.length; at += CHUNK) index.add(fields.slice(at, at + CHUNK) as RetrievalFields[], at);
  return index;
});
const all = new Uint8Array(n).fill(1);
const [, firstMs] = timed(() => index.query(queries[0]!, all));
const full = latency(queries, (q) => index.query(q, all));
const top = latency(queries, (q) => index.query(q, all, undefined, LIMIT));
const hits = queries.reduce((s, q) => s + index.query(q, all).length, 0) / queries.length;
const f = (ms: number): string => ms.toFixed(ms < 10 ? 2 : 0);
const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const memory = process.memoryUsage();
process.stdout.write(
  `${n} tools: retrievalFields ${f(fieldsMs)} ms, index ${f(indexMs)} ms, first query ${f(firstMs)} ms; ` +
    `query p50 / p99 ${f(full[0])} / ${f(full[1])} ms (all hits, ${Math.round(hits)} on average), ` +
    `${f(top[0])} / ${f(top[1])} ms (limit ${LIMIT}); JS heap + array buffers ${mib(memory.heapUsed + memory.arrayBuffers)} MiB (catalog included)\n`,
);

/**
 * Public data-set runner: builds a curator per mode over a data set's catalog, asks it
 * for each query's shortlist and averages the ranking metrics of that shortlist.
 */
import { createCurator, DEFAULT_FUSION } from '../curator/index.js';
import type { ApproximateOptions, CuratorMode, Fusion, Mechanism, ToolCurator } from '../curator/types.js';
import type { Embedder } from '../embedding/types.js';
import type { EmbeddingCache } from '../store/types.js';
import { everyKth, loadPublicSet, type PublicSet, type PublicSetName } from './data.js';
import { MetricsAccumulator, percentile, type RetrievalMetrics } from './metrics.js';
import { replayScope, replaySplit, replayTraffic } from './replay.js';

export interface PublicEvalOptions {
  /**
   * Limit asked of the curator. Default 15: a confident ranking returns 10, the cut-off of
   * the @10 metrics; a flat one 15 (expand.ts reserveOf).
   */
  topK?: number;
  /** Evaluate an every-k-th sample of this many queries (fast checks); default all. */
  sample?: number;
  /** Caches document and query embeddings across runs (query vectors under `<id>#query`). */
  cache?: EmbeddingCache;
  /** Data folder; default evalDataDir(). */
  dir?: string;
  /** Hybrid fusion; default the curator's ('score'). */
  fusion?: Fusion;
  /** Approximate dense search (CuratorOptions.approximate); `{ from: 0 }` forces it on every set. Default the curator's. */
  approximate?: Partial<ApproximateOptions>;
  /** Learning from use by replay (replay.ts): each mode scores the test half before and after replaying the traffic half. Default false. */
  replay?: boolean;
  /** Mechanisms switched off (CuratorOptions.off). Default none. */
  off?: readonly Mechanism[];
}

export interface ModeResult extends RetrievalMetrics {
  /** The mode asked for, and the mode the curator reported for most queries. */
  mode: CuratorMode;
  ranAs: CuratorMode;
  /** Average shortlist length (low-confidence expansion and splitting can exceed topK). */
  avgShortlist: number;
  /** select() latency in ms, p50 and p99, with query vectors memoized: the retrieval cost alone (bench/select.ts measures it with embedding). */
  p50Ms: number;
  p99Ms: number;
  /** Set on the result after a replay: how many learned exemplars the curator ranked with. */
  learned?: number;
  /**
   * Queries the curator answered with its no-match rule (Selection.noMatch) although every
   * gold tool is in the catalog: each one is a query it wrongly called unanswerable
   * (issue 22's target: 0 on every public set).
   */
  noMatch: number;
}

export interface PublicEvalResult {
  set: PublicSetName;
  tools: number;
  /** The hybrid fusion the curator used. */
  fusion: Fusion;
  results: ModeResult[];
}

/**
 * Wraps `embedder` so each distinct query is embedded once per run (and once ever with a
 * cache): the three modes and repeated runs then cost one embedding per query.
 */
export function memoizeQueries(embedder: Embedder, cache?: EmbeddingCache): Embedder {
  const memo = new Map<string, Float32Array>();
  const cacheId = `${embedder.id}#query`;
  return {
    id: embedder.id,
    dim: embedder.dim,
    embedDocuments: (texts) => embedder.embedDocuments(texts),
    close: () => embedder.close(),
    async embedQuery(text) {
      let v = memo.get(text) ?? (await cache?.get(cacheId, [text]))?.[0];
      if (!v) {
        v = await embedder.embedQuery(text);
        await cache?.put(cacheId, [{ text, vector: v }]);
      }
      memo.set(text, v);
      return v;
    },
  };
}

/**
 * Runs one mode over a loaded set: one result, or with `options.replay` two, the test
 * half before and after replaying the traffic half (replay.ts).
 */
export async function evaluateMode(set: PublicSet, mode: CuratorMode, embedder: Embedder | null, options: PublicEvalOptions = {}): Promise<ModeResult[]> {
  const curator = createCurator({ mode, fusion: options.fusion, embedder, cache: options.cache, approximate: options.approximate, off: options.off });
  await curator.buildIndex(set.tools);
  const cases = options.sample ? everyKth(set.cases, options.sample) : set.cases;
  if (!options.replay) return [await score(curator, mode, cases, set.tools, options)];
  const { traffic, test } = replaySplit(cases);
  const before = await score(curator, mode, test, set.tools, options);
  const learned = await replayTraffic(curator, traffic.map((c) => ({ persona: '', query: c.query, tools: c.gold })), () => set.tools);
  return [before, { ...(await score(curator, mode, test, set.tools, options, replayScope(''))), learned }];
}

async function score(curator: ToolCurator, mode: CuratorMode, cases: PublicSet['cases'], tools: PublicSet['tools'], options: PublicEvalOptions, learnedScope?: string): Promise<ModeResult> {
  const topK = options.topK ?? 15;
  const acc = new MetricsAccumulator();
  const times: number[] = [];
  const ranAs = new Map<CuratorMode, number>();
  let shortlist = 0;
  let noMatch = 0;
  const known = new Set(tools.map((t) => t.name));
  for (const c of cases) {
    const t0 = performance.now();
    const s = await curator.select(c.query, tools, { topK, ...(learnedScope !== undefined && { learnedScope }) });
    times.push(performance.now() - t0);
    acc.add(s.tools.map((t) => t.name), c.gold);
    shortlist += s.tools.length;
    if (s.noMatch && c.gold.length > 0 && c.gold.every((g) => known.has(g))) noMatch++;
    ranAs.set(s.mode, (ranAs.get(s.mode) ?? 0) + 1);
  }
  times.sort((a, b) => a - b);
  const most = [...ranAs].sort((a, b) => b[1] - a[1])[0]?.[0] ?? mode;
  return { mode, ranAs: most, ...acc.result(), avgShortlist: shortlist / (cases.length || 1), noMatch, p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99) };
}

/**
 * Evaluates `modes` on one public data set.
 *
 * ### Usage
 * ```ts
 * const r = await runPublicEval('api_bank', ['bm25', 'dense', 'hybrid'], await createEmbedder({ provider: 'use' }));
 * process.stdout.write(`${formatPublicTable([r])}\n`);
 * ```
 */
export async function runPublicEval(
  set: PublicSetName,
  modes: readonly CuratorMode[],
  embedder: Embedder | null,
  options: PublicEvalOptions = {},
): Promise<PublicEvalResult> {
  const data = loadPublicSet(set, options.dir);
  const queryEmbedder = embedder && memoizeQueries(embedder, options.cache);
  const results: ModeResult[] = [];
  for (const mode of modes) results.push(...(await evaluateMode(data, mode, queryEmbedder, options)));
  return { set, tools: data.tools.length, fusion: options.fusion ?? DEFAULT_FUSION, results };
}

/**
 * Curator latency on real catalogs with the USE embedder: buildIndex cold (empty
 * embeddings cache) and warm (every vector and the catalog trust cached), then select()
 * p50/p99 over 200 queries per catalog, query embedding included, for hybrid with each
 * fusion and for BM25 alone. Run: `node dist/bench/select.js`.
 */
import { createCurator } from '../src/curator/index.js';
import type { CuratorMode, Fusion } from '../src/curator/types.js';
import { createEmbedder } from '../src/embedding/index.js';
import type { Embedder } from '../src/embedding/types.js';
import { everyKth, loadPublicSet, type PublicSetName } from '../src/eval/data.js';
import { openDb } from '../src/store/db.js';
import { EmbeddingStore } from '../src/store/embeddings.js';

const SETS: PublicSetName[] = ['mcptoolbenchpp', 'toollens'];
const QUERIES = 200;

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function benchSelect(embedder: Embedder): Promise<string[]> {
  const lines = ['| catalog | tools | buildIndex cold ms | warm ms | mode | select p50 ms | p99 ms |', '|---|---|---|---|---|---|---|'];
  for (const name of SETS) {
    const set = loadPublicSet(name);
    const cache = new EmbeddingStore(openDb(':memory:'));
    const cold = await timed(() => createCurator({ mode: 'hybrid', embedder, cache }).buildIndex(set.tools));
    const queries = everyKth(set.cases, QUERIES).map((c) => c.query);
    const runs: [CuratorMode, Fusion][] = [['hybrid', 'score'], ['hybrid', 'rrf'], ['bm25', 'score']];
    for (const [mode, fusion] of runs) {
      const curator = createCurator({ mode, fusion, embedder, cache });
      const warm = await timed(() => curator.buildIndex(set.tools));
      await curator.select(queries[0]!, set.tools);
      const times: number[] = [];
      for (const q of queries) times.push(await timed(() => curator.select(q, set.tools, { topK: 12 })));
      times.sort((a, b) => a - b);
      const f = (x: number): string => x.toFixed(1);
      const first = mode === 'hybrid' && fusion === 'score';
      lines.push(`| ${name} | ${set.tools.length} | ${first ? f(cold) : ''} | ${f(warm)} | ${mode === 'hybrid' ? `hybrid, ${fusion}` : mode} | ${f(pct(times, 0.5))} | ${f(pct(times, 0.99))} |`);
    }
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const embedder = await createEmbedder({ provider: 'use' });
  try {
    process.stdout.write(`${(await benchSelect(embedder)).join('\n')}\n`);
  } finally {
    await embedder.close();
  }
}

/**
 * Ranking metrics for tool retrieval, per query; average them over a set. `ranked` is the
 * retrieved tool names best first, `gold` the tools that answer the query (relevance is
 * binary). A query with an empty gold list has nothing to find: every metric is 1.
 */

/**
 * The `p`-quantile (0 ≤ p ≤ 1) of ascending `sorted` values, nearest rank below: the value
 * at index ⌊p · n⌋ (the last one for p = 1); 0 for no values. Latency p50 / p99 here and in bench/.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Share of the gold tools among the first `k` ranked, in [0, 1]. */
export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 1;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

/** 1 when every gold tool is among the first `k` (the task can be completed), else 0. */
export function completeAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  return recallAt(ranked, gold, k) === 1 ? 1 : 0;
}

/**
 * nDCG@k with binary relevance (Järvelin & Kekäläinen 2002): Σ 1/log2(rank + 1) over
 * gold tools in the first k, divided by the same sum for a perfect ranking of
 * min(|gold|, k) tools. In [0, 1].
 */
export function ndcgAt(ranked: readonly string[], gold: readonly string[], k = 10): number {
  if (gold.length === 0) return 1;
  const relevant = new Set(gold);
  let dcg = 0;
  ranked.slice(0, k).forEach((name, r) => {
    if (relevant.has(name)) dcg += 1 / Math.log2(r + 2);
  });
  let ideal = 0;
  for (let r = 0; r < Math.min(gold.length, k); r++) ideal += 1 / Math.log2(r + 2);
  return dcg / ideal;
}

/** Reciprocal rank of the first gold tool in `ranked` (1/rank, 1-based), 0 when none is there. */
export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  if (gold.length === 0) return 1;
  const relevant = new Set(gold);
  const r = ranked.findIndex((name) => relevant.has(name));
  return r < 0 ? 0 : 1 / (r + 1);
}

/** Averages of the per-query metrics over a set of queries. */
export interface RetrievalMetrics {
  queries: number;
  recall5: number;
  recall10: number;
  complete10: number;
  ndcg10: number;
  mrr: number;
}

/** Accumulates per-query metrics; `result()` gives the averages (0s for no query). */
export class MetricsAccumulator {
  private n = 0;
  private sums = { recall5: 0, recall10: 0, complete10: 0, ndcg10: 0, mrr: 0 };

  add(ranked: readonly string[], gold: readonly string[]): void {
    this.n++;
    this.sums.recall5 += recallAt(ranked, gold, 5);
    this.sums.recall10 += recallAt(ranked, gold, 10);
    this.sums.complete10 += completeAt(ranked, gold, 10);
    this.sums.ndcg10 += ndcgAt(ranked, gold, 10);
    this.sums.mrr += reciprocalRank(ranked, gold);
  }

  result(): RetrievalMetrics {
    const d = this.n || 1;
    const s = this.sums;
    return { queries: this.n, recall5: s.recall5 / d, recall10: s.recall10 / d, complete10: s.complete10 / d, ndcg10: s.ndcg10 / d, mrr: s.mrr / d };
  }
}
